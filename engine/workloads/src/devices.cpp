#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "text.hpp"

namespace libra {

double Device::utilization(ModelFamily family) const {
  switch (family) {
    case ModelFamily::Transformer:
    case ModelFamily::MixtureOfExperts:
      return transformerUtilization;
    case ModelFamily::Cnn:
      return cnnUtilization;
    case ModelFamily::Dlrm:
      return dlrmUtilization;
  }
  return transformerUtilization;
}

double Device::achievedFlops(ModelFamily family, Precision precision) const {
  if (precision == Precision::Fp8 && hasFp8()) {
    return peakFp8Flops * (fp8Efficiency > 0 ? fp8Efficiency : efficiency) * utilization(family);
  }
  return peakFlops * efficiency * utilization(family);
}

Device Device::withUtilization(double value) const {
  Device d = *this;
  d.transformerUtilization = value;
  d.cnnUtilization = value;
  d.dlrmUtilization = value;
  return d;
}

void Device::validate() const {
  const std::string where = "device '" + id + "'";
  if (!std::isfinite(peakFlops) || peakFlops <= 0) {
    throw InputError(where + ": peak throughput " + text::formatNumber(peakFlops) +
                     " FLOP/s must be a finite number > 0");
  }
  auto fraction = [&](double value, const char* what) {
    if (!std::isfinite(value) || value <= 0 || value > 1) {
      throw InputError(where + ": " + what + " " + text::formatNumber(value) +
                       " must be in (0, 1] (an achieved fraction)");
    }
  };
  fraction(efficiency, "efficiency");
  fraction(transformerUtilization, "transformer utilization");
  fraction(cnnUtilization, "CNN utilization");
  fraction(dlrmUtilization, "DLRM utilization");
  if (!std::isfinite(peakFp8Flops) || peakFp8Flops < 0) {
    throw InputError(where + ": FP8 peak " + text::formatNumber(peakFp8Flops) +
                     " FLOP/s must be a finite number >= 0 (0: no FP8)");
  }
  if (fp8Efficiency != 0) fraction(fp8Efficiency, "FP8 efficiency");
  if (!std::isfinite(memoryBandwidth) || memoryBandwidth < 0) {
    throw InputError(where + ": memory bandwidth " + text::formatNumber(memoryBandwidth) +
                     " bytes/s must be a finite number >= 0");
  }
  if (!std::isfinite(listPriceUsd) || listPriceUsd < 0) {
    throw InputError(where + ": list price " + text::formatNumber(listPriceUsd) +
                     " $ must be a finite number >= 0");
  }
  if (!std::isfinite(memoryBytes) || memoryBytes < 0) {
    throw InputError(where + ": memory capacity " + text::formatNumber(memoryBytes) +
                     " bytes must be a finite number >= 0");
  }
}

namespace {

// List prices are not published; these are the estimates the press reported,
// the middle of each range. TPU v5p is not sold (only rented), so it has none.
constexpr const char* kHopperPrice =
    "estimate: $25,000-40,000 per H100 (CNBC, 2024-03-19, https://www.cnbc.com/2024/03/19/"
    "nvidias-blackwell-ai-chip-will-cost-more-than-30000-ceo-says.html); $30,000 taken";
constexpr const char* kBlackwellPrice =
    "estimate: $30,000-40,000 per B200, Jensen Huang to CNBC (2024-03-19, "
    "https://www.cnbc.com/2024/03/19/nvidias-blackwell-ai-chip-will-cost-more-than-30000-ceo-"
    "says.html); $35,000 taken";
constexpr const char* kMi300xPrice =
    "estimate: $10,000-15,000 per MI300X (Citi research, reported January 2024); $15,000 taken";
constexpr const char* kAmperePrice =
    "estimate: about $10,000 per A100 (CNBC, 2023-02-23, https://www.cnbc.com/2023/02/23/"
    "nvidias-a100-is-the-10000-chip-powering-the-race-for-ai-.html)";

// The achieved fraction of the dense BF16 peak in matrix multiplications, per
// device: the "Maximum Achievable Matmul FLOPS" (MAMF) of S. Bekman's ML Engineering
// book, measured with mamf-finder.py (the best mean TFLOPS over a search of GEMM
// shapes), https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/
// README.md#maximum-achievable-matmul-flops-comparison-table.
constexpr const char* kMamf =
    "https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/"
    "README.md#maximum-achievable-matmul-flops-comparison-table";

// The fraction of that matmul rate the kernels of a training step sustain (the
// non-matmul kernels, small and transposed GEMMs, launch gaps), one number per
// kind of model for every device: calibrated against the published runs of
// docs/workloads.md section 2.11 (tests/data/calibration), not measured.
// Transformers: the one value that brings Llama 3 405B on 8,192 and 16,384 H100
// and GPT-3 175B on 64 A100 closest (0.76, 0.80 and 0.74 each alone). CNN: fitted
// on ResNet-50 on a DGX A100 (0.187), whose batch norm, ReLU and small-channel
// convolutions run far below the matmul rate; no second CNN run checks it.
constexpr double kTransformerUtilization = 0.77;
constexpr double kCnnUtilization = 0.19;
constexpr double kDlrmUtilization = 1.0;  // no published DLRM run calibrated: matmul rate

Device device(std::string id, std::string name, double peak, double memoryBandwidth,
              double memoryBytes, double efficiency, std::string source,
              std::string efficiencySource) {
  Device d;
  d.id = std::move(id);
  d.name = std::move(name);
  d.peakFlops = peak;
  d.precision = "BF16 dense";
  d.memoryBandwidth = memoryBandwidth;
  d.memoryBytes = memoryBytes;
  d.efficiency = efficiency;
  d.transformerUtilization = kTransformerUtilization;
  d.cnnUtilization = kCnnUtilization;
  d.dlrmUtilization = kDlrmUtilization;
  d.source = std::move(source);
  d.efficiencySource = std::move(efficiencySource) +
                       "; utilizations calibrated against published training runs "
                       "(docs/workloads.md section 2.11)";
  return d;
}

// FP8 (section 2.13): the dense FP8 peak from the same spec sheet, and the achieved
// fraction of it in FP8 matmuls where one was measured (`efficiency` > 0, with
// where it comes from); otherwise FP8 GEMMs are taken to reach the same fraction
// of their peak as BF16 ones (fp8Efficiency 0).
Device withFp8(Device d, double peak, std::string source, double efficiency = 0,
               const std::string& efficiencySource = {}) {
  d.peakFp8Flops = peak;
  d.fp8Efficiency = efficiency;
  d.fp8Source = std::move(source) +
                (efficiency > 0 ? "; achieved FP8 matmul fraction: " + efficiencySource
                                : std::string("; achieved fraction assumed equal to the BF16 "
                                              "matmul efficiency (no FP8 matmul benchmark of "
                                              "this device found)"));
  return d;
}

// The FP8 rows of the MAMF table (torch._scaled_mm, float8_e4m3fn with per-tensor
// scales; the best mean over a search of shapes).
std::string mamfFp8(const char* measured) {
  return std::string("MAMF FP8 ") + measured + ", " + kMamf + " (FP8 table)";
}

Device priced(Device d, double usd, const char* source) {
  d.listPriceUsd = usd;
  d.priceSource = source;
  return d;
}

// The devices with a published matmul benchmark of their own.
void measuredDevices(std::vector<Device>& list) {
  // Peaks are dense BF16 tensor throughput per chip (the vendors' headline numbers
  // with 2:4 structured sparsity are twice these).
  list.push_back(withFp8(
      priced(
          device("h100", "NVIDIA H100 SXM5", 989.4e12, 3.35e12, 80e9, 794.5 / 989.0,
                 "https://www.nvidia.com/en-us/data-center/h100/ (H100 SXM: BF16 Tensor Core 1,979 "
                 "TFLOPS with sparsity, i.e. 989.4 dense; HBM3 80 GB, 3.35 TB/s)",
                 std::string("MAMF 794.5 of 989 TFLOPS (80.3 %), H100 SXM, torch 2.7.0+cu126: ") +
                     kMamf),
          30000, kHopperPrice),
      1978.9e12,
      "https://www.nvidia.com/en-us/data-center/h100/ (H100 SXM: FP8 Tensor Core 3,958 TFLOPS "
      "with sparsity, i.e. 1,979 dense)",
      1402.6 / 1978.9, mamfFp8("1402.6 of 1979 TFLOPS (70.9 %), H100 SXM, torch 2.7.0+cu126")));
  list.push_back(withFp8(
      priced(
          device(
              "b200", "NVIDIA B200 (HGX, 1000 W)", 2.25e15, 8.0e12, 180e9, 1745.0 / 2250.0,
              "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200, 8 GPUs: FP16/BF16 36 "
              "PFLOPS "
              "with sparsity, i.e. 2.25 PFLOPS dense per GPU; HBM3e 8 TB/s per GPU; 1.44 TB of GPU "
              "memory for 8 GPUs, i.e. 180 GB usable per GPU of the 192 GB on the package)",
              std::string("MAMF 1745.0 of 2250 TFLOPS (77.6 %), B200 SXM, torch 2.7.1+cu128: ") +
                  kMamf),
          35000, kBlackwellPrice),
      4.5e15,
      "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200, 8 GPUs: FP8 72 PFLOPS with "
      "sparsity, i.e. 4.5 PFLOPS dense per GPU)",
      3432.5 / 4500.0, mamfFp8("3432.5 of 4500 TFLOPS (76.3 %), B200 SXM, torch 2.7.1+cu128")));
  list.push_back(withFp8(
      priced(
          device(
              "mi300x", "AMD Instinct MI300X", 1307.4e12, 5.3e12, 192e9, 668.4 / 1300.0,
              "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html (peak BF16 "
              "1307.4 TFLOPS, 2614.9 with structured sparsity; HBM3 192 GB, 5.3 TB/s)",
              std::string("MAMF 668.4 of 1300 TFLOPS (51.4 %), MI300X, torch 2.5.1 ROCm 6.3, "
                          "TunableOp: ") +
                  kMamf),
          15000, kMi300xPrice),
      2614.9e12,
      "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html (peak FP8 "
      "2614.9 TFLOPS, 5229.8 with structured sparsity)",
      1273.0 / 2614.9,
      "AMD's max-achievable FLOPs, FP8 1273 TFLOPS on MI300X (ROCm blog 'Measuring "
      "Max-Achievable FLOPs - Part 2', 2025-02-28, https://rocm.blogs.amd.com/"
      "software-tools-optimization/measuring-max-achievable-flops-part2/README.html)"));
  list.push_back(withFp8(
      priced(device("tpu-v5p", "Google Cloud TPU v5p", 459e12, 2765e9, 95.0 * 1073741824.0,
                    794.5 / 989.0,
                    "https://cloud.google.com/tpu/docs/v5p (peak compute per chip (BF16) 459 "
                    "TFLOPs; HBM capacity per chip 95 GiB (96 physical), 2765 GBps)",
                    std::string("no published matmul benchmark found for TPU v5p: assumed equal "
                                "to the H100's measured 80.3 % (") +
                        kMamf + ")"),
             0, "not sold: Google rents TPU v5p by the chip-hour; give --npu-price"),
      459e12,
      "https://cloud.google.com/tpu/docs/v5p (peak compute per chip (FP8) 459 TFLOPs: the BF16 "
      "rate, so FP8 saves memory but no time)"));
  list.push_back(priced(
      device(
          "a100", "NVIDIA A100 SXM4 80GB", 312e12, 2039e9, 80e9, 271.2 / 312.0,
          "https://www.nvidia.com/en-us/data-center/a100/ (BF16 Tensor Core 312 TFLOPS, 624 with "
          "sparsity; HBM2e 80 GB, 2,039 GB/s)",
          std::string("MAMF 271.2 of 312 TFLOPS (86.9 %), A100 SXM, torch 2.6.0+cu126: ") + kMamf),
      10000, kAmperePrice));
}

// Devices without a matmul benchmark of their own take the measured fraction of
// the device of the same silicon or generation (stated in each source).
std::string assumedLike(const char* like, const char* fraction) {
  return std::string("no published matmul benchmark found: assumed equal to the ") + like +
         "'s measured " + fraction + " (" + kMamf + ")";
}
constexpr const char* kNoPrice = "no list price published or reported: give --npu-price";

// NVIDIA's devices whose matmul fraction is taken from the same silicon.
void sameSiliconNvidia(std::vector<Device>& list) {
  list.push_back(withFp8(
      priced(device("h200", "NVIDIA H200 SXM", 989.4e12, 4.8e12, 141e9, 794.5 / 989.0,
                    "https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM: BF16 Tensor Core "
                    "1,979 TFLOPS with sparsity, i.e. 989.4 dense; HBM3e 141 GB, 4.8 TB/s)",
                    assumedLike("H100 (the same GH100 die)", "80.3 %")),
             0, kNoPrice),
      1978.9e12,
      "https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM: FP8 Tensor Core 3,958 TFLOPS "
      "with sparsity, i.e. 1,979 dense)",
      1453.4 / 1978.9, mamfFp8("1453.4 of 1979 TFLOPS (73.4 %), H200 SXM, torch 2.7.1+cu128")));
  list.push_back(withFp8(
      priced(device("h800", "NVIDIA H800 SXM5", 989.4e12, 3.35e12, 80e9, 794.5 / 989.0,
                    "NVIDIA H800 datasheet (the H100 SXM5's compute and memory: BF16 1,979 "
                    "TFLOPS with sparsity, i.e. 989.4 dense; HBM3 80 GB, 3.35 TB/s; NVLink "
                    "400 GB/s instead of 900); DeepSeek-V3 technical report, arXiv:2412.19437, "
                    "section 3.1 (its cluster of H800s)",
                    assumedLike("H100 (the same GH100 die)", "80.3 %")),
             0, kNoPrice),
      1978.9e12, "NVIDIA H800 datasheet (FP8 3,958 TFLOPS with sparsity, i.e. 1,979 dense)",
      1402.6 / 1978.9,
      "assumed equal to the H100's (the same GH100 die): " +
          mamfFp8("1402.6 of 1979 TFLOPS (70.9 %), H100 SXM")));
  list.push_back(withFp8(
      priced(device("gb200", "NVIDIA GB200 (a Blackwell GPU of a GB200 NVL72)", 2.5e15, 8.0e12,
                    186e9, 1745.0 / 2250.0,
                    "https://www.nvidia.com/en-us/data-center/gb200-nvl72/ (GB200 NVL72, 72 GPUs "
                    "in one NVLink domain: FP16/BF16 360 PFLOPS with sparsity, i.e. 2.5 PFLOPS "
                    "dense per GPU; HBM3e 13.4 TB and 576 TB/s, i.e. 186 GB and 8 TB/s per GPU; "
                    "NVLink 130 TB/s, 1.8 TB/s per GPU)",
                    assumedLike("B200 (the same Blackwell GPU)", "77.6 %")),
             0, kNoPrice),
      5.0e15,
      "https://www.nvidia.com/en-us/data-center/gb200-nvl72/ (FP8/FP6 720 PFLOPS with sparsity "
      "for 72 GPUs, i.e. 5 PFLOPS dense per GPU)",
      3615.6 / 5000.0,
      mamfFp8("3615.6 of 5000 TFLOPS (72.3 %), GB200, torch 2.10.0.dev20250916+cu130")));
  list.push_back(withFp8(
      priced(device("b300", "NVIDIA B300 (HGX, Blackwell Ultra)", 2.25e15, 8.0e12, 288e9,
                    1745.0 / 2250.0,
                    "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B300, 8 GPUs: FP16/BF16 "
                    "36 PFLOPS with sparsity, i.e. 2.25 PFLOPS dense per GPU; up to 2.3 TB of "
                    "HBM3e, i.e. 288 GB per GPU; 8 TB/s per GPU)",
                    assumedLike("B200 (Blackwell, the same BF16 rate)", "77.6 %")),
             0, kNoPrice),
      4.5e15,
      "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B300: FP8/FP6 72 PFLOPS with sparsity "
      "for 8 GPUs, i.e. 4.5 PFLOPS dense per GPU)",
      3353.3 / 4500.0, mamfFp8("3353.3 of 4500 TFLOPS (74.5 %), B300 SXM, torch 2.9.1+cu130")));
}

// AMD's and Google's devices whose matmul fraction is taken from the same
// silicon or generation.
void sameSiliconOthers(std::vector<Device>& list) {
  list.push_back(withFp8(
      priced(device("mi325x", "AMD Instinct MI325X", 1307.4e12, 6.0e12, 256e9, 668.4 / 1300.0,
                    "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html "
                    "(peak BF16 1307.4 TFLOPS, 2614.9 with structured sparsity; HBM3E 256 GB, "
                    "6 TB/s)",
                    assumedLike("MI300X (the same CDNA 3 compute dies)", "51.4 %")),
             0, kNoPrice),
      2614.9e12,
      "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html (peak FP8 2614.9 "
      "TFLOPS, 5229.8 with structured sparsity)",
      1408.06 / 2614.9,
      "AMD's max-achievable FLOPs, FP8 1,408.06 TFLOPS on MI325X (M 4096, N 3648, K 32896; "
      "ROCm blog 'Measuring Max-Achievable FLOPs - Part 2', https://rocm.blogs.amd.com/"
      "software-tools-optimization/measuring-max-achievable-flops-part2/README.html)"));
  list.push_back(withFp8(
      priced(device("mi355x", "AMD Instinct MI355X", 2.5e15, 8.0e12, 288e9, 668.4 / 1300.0,
                    "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html "
                    "(peak FP16/BF16 2.5 PFLOPS dense; HBM3E 288 GB, 8 TB/s)",
                    assumedLike("MI300X (the previous CDNA generation)", "51.4 %")),
             0, kNoPrice),
      5.0e15,
      "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html (peak FP8 5 "
      "PFLOPS dense, twice the BF16 rate)"));
  list.push_back(priced(
      device("tpu-v4", "Google Cloud TPU v4", 275e12, 1200e9, 32.0 * 1073741824.0, 794.5 / 989.0,
             "https://cloud.google.com/tpu/docs/v4 (peak compute per chip (bf16) 275 TFLOPs; HBM2 "
             "32 GiB per chip, 1200 GBps; no FP8)",
             assumedLike("H100", "80.3 %")),
      0, "not sold: Google rents TPU v4 by the chip-hour; give --npu-price"));
}

// The devices whose matmul fraction is taken from the same silicon or generation.
void sameSiliconDevices(std::vector<Device>& list) {
  sameSiliconNvidia(list);
  sameSiliconOthers(list);
}

Device referenceDevice() {
  // 3 * 2^33 / 5^8 FLOP/ns: the rate at which the reference files' GEMM lines run
  // (GPT-3 Q: 2 * 32768 * 12288 * 768 FLOPs in 9,375,000 ns). No memory: the
  // reference model has no capacity, so nothing is checked against it. Efficiency
  // and utilizations 1: the rate is already what the files run at.
  Device reference;
  reference.id = "libra-reference";
  reference.name = "LIBRA reference NPU";
  reference.peakFlops = 3.0 * 8589934592.0 / 390625.0 * 1e9;
  reference.precision = "as implied by the reference workload files";
  reference.source =
      "derived from ../reference/libra-inputs/workload/GPT_3.txt and MSFT_1T.txt (see "
      "docs/workloads.md)";
  reference.efficiencySource = "1: the reference files' own rate";
  reference.priceSource = "a model of the reference files, not a product: give --npu-price";
  return reference;
}

std::vector<Device> buildDevices() {
  std::vector<Device> list;
  measuredDevices(list);
  sameSiliconDevices(list);
  list.push_back(referenceDevice());
  return list;
}

}  // namespace

const std::vector<Device>& devices() {
  static const std::vector<Device> list = buildDevices();
  return list;
}

const Device& findDevice(std::string_view id) {
  const std::string key = text::lower(text::trim(id));
  std::string known;
  for (const Device& d : devices()) {
    if (d.id == key) return d;
    known += (known.empty() ? "" : ", ") + d.id;
  }
  throw InputError("device '" + std::string(id) + "' is unknown; known devices: " + known);
}

}  // namespace libra
