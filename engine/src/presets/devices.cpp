#include <cmath>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "text.hpp"

namespace libra {

void Device::validate() const {
  const std::string where = "device '" + id + "'";
  if (!std::isfinite(peakFlops) || peakFlops <= 0) {
    throw InputError(where + ": peak throughput " + text::formatNumber(peakFlops) +
                     " FLOP/s must be a finite number > 0");
  }
  if (!std::isfinite(efficiency) || efficiency <= 0 || efficiency > 1) {
    throw InputError(where + ": efficiency " + text::formatNumber(efficiency) +
                     " must be in (0, 1] (the achieved fraction of the peak)");
  }
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

}  // namespace

const std::vector<Device>& devices() {
  // Peaks are dense BF16 tensor throughput per chip (the vendors' headline numbers
  // with 2:4 structured sparsity are twice these). The efficiency 0.4 is the model
  // FLOPs utilization Meta reports for Llama 3 405B pre-training on H100
  // (38-43 %, arXiv:2407.21783 Table 4); it is applied to every device alike.
  static const std::vector<Device> list = {
      {"h100", "NVIDIA H100 SXM5", 989.4e12, "BF16 dense", 3.35e12, 80e9, 0.4,
       "https://www.nvidia.com/en-us/data-center/h100/ (H100 SXM: BF16 Tensor Core 1,979 "
       "TFLOPS with sparsity, i.e. 989.4 dense; HBM3 80 GB, 3.35 TB/s)",
       30000, kHopperPrice},
      {"b200", "NVIDIA B200 (HGX, 1000 W)", 2.25e15, "BF16 dense", 8.0e12, 180e9, 0.4,
       "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200, 8 GPUs: FP16/BF16 36 PFLOPS "
       "with sparsity, i.e. 2.25 PFLOPS dense per GPU; HBM3e 8 TB/s per GPU; 1.44 TB of GPU "
       "memory for 8 GPUs, i.e. 180 GB usable per GPU of the 192 GB on the package)",
       35000, kBlackwellPrice},
      {"mi300x", "AMD Instinct MI300X", 1307.4e12, "BF16 dense", 5.3e12, 192e9, 0.4,
       "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html (peak BF16 "
       "1307.4 TFLOPS, 2614.9 with structured sparsity; HBM3 192 GB, 5.3 TB/s)",
       15000, kMi300xPrice},
      {"tpu-v5p", "Google Cloud TPU v5p", 459e12, "BF16 dense", 2765e9, 95e9, 0.4,
       "https://cloud.google.com/tpu/docs/v5p (peak compute per chip (bf16) 459 TFLOPs; "
       "HBM2e 95 GB per chip, 2765 GBps)",
       0, "not sold: Google rents TPU v5p by the chip-hour; give --npu-price"},
      {"a100", "NVIDIA A100 SXM4 80GB", 312e12, "BF16 dense", 2039e9, 80e9, 0.4,
       "https://www.nvidia.com/en-us/data-center/a100/ (BF16 Tensor Core 312 TFLOPS, 624 with "
       "sparsity; HBM2e 80 GB, 2,039 GB/s)",
       10000, kAmperePrice},
      // 3 * 2^33 / 5^8 FLOP/ns: the rate at which the reference files' GEMM lines run
      // (GPT-3 Q: 2 * 32768 * 12288 * 768 FLOPs in 9,375,000 ns). No memory: the
      // reference model has no capacity, so nothing is checked against it.
      {"libra-reference", "LIBRA reference NPU", 3.0 * 8589934592.0 / 390625.0 * 1e9,
       "as implied by the reference workload files", 0, 0, 1.0,
       "derived from ../reference/libra-inputs/workload/GPT_3.txt and MSFT_1T.txt (see "
       "docs/workloads.md)",
       0, "a model of the reference files, not a product: give --npu-price"},
  };
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
