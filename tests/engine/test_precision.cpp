// FP8 and a stated utilization (docs/workloads.md sections 2.11 and 2.13): which
// lines run at the FP8 rate, what FP8 changes in memory, which devices refuse it,
// and that both are stored with the workload. Each number is a hand computation.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "libra/training.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

Network libra3d() {
  Network net;
  net.dims = {dimension("package", BuildingBlock::Ring, 16, "InterPackage"),
              dimension("node", BuildingBlock::FullyConnected, 8, "InterNode"),
              dimension("pod", BuildingBlock::Switch, 32, "InterPod")};
  return net;
}

Parallelism gpt3Run(Precision precision) {
  Parallelism p;
  p.tp = 8;
  p.pp = 16;
  p.zeroStage = 1;
  p.sequenceParallel = true;
  p.precision = precision;
  return p;
}

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool startsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// The blocks' weight GEMMs: Q, K, V, the attention output ("concat") and the MLP
// lines X<i>W<j>b<j>.
bool blockLinear(const std::string& name) {
  if (startsWith(name, "QK")) return false;
  for (const char* prefix : {"Q", "K", "V", "concat"}) {
    if (startsWith(name, prefix)) return true;
  }
  return startsWith(name, "X") && name.find('W') != std::string::npos;
}

}  // namespace

// A device whose FP8 peak is exactly twice its BF16 peak (the FP8 efficiency
// defaulting to the BF16 one): every block GEMM takes half the time, for all three
// phases, while the attention scores, softmax, norms and the output layer keep
// theirs. GPT-3's GEMMs are compute bound at these sizes, so the 1-byte operands do
// not change the roofline's side.
TEST(Fp8, BlockGemmsRunAtTheFp8RateAndTheRestStaysBf16) {
  Device d = findDevice("h100");
  d.peakFp8Flops = 2 * d.peakFlops;
  d.fp8Efficiency = 0;
  const Preset& gpt3 = findPreset("gpt3-175b");
  const Workload bf16 = generateWorkload(gpt3, gpt3Run(Precision::Bf16), d, libra3d());
  const Workload fp8 = generateWorkload(gpt3, gpt3Run(Precision::Fp8), d, libra3d());
  ASSERT_EQ(bf16.layers.size(), fp8.layers.size());
  int halved = 0, kept = 0;
  bool outputSeen = false;
  for (std::size_t i = 0; i < bf16.layers.size(); ++i) {
    const Layer& a = bf16.layers[i];
    const Layer& b = fp8.layers[i];
    ASSERT_EQ(a.name, b.name);
    const double ratio = blockLinear(a.name) ? 0.5 : 1.0;
    for (PhaseKind k : {PhaseKind::Forward, PhaseKind::InputGrad, PhaseKind::WeightGrad}) {
      EXPECT_NEAR(b.phase(k).computeNs, ratio * a.phase(k).computeNs,
                  1e-9 * a.phase(k).computeNs + 1e-9)
          << a.name;
    }
    (ratio < 1 ? halved : kept) += 1;
    outputSeen = outputSeen || startsWith(a.name, "output");
  }
  EXPECT_GT(halved, 0);
  EXPECT_GT(kept, 0);
  EXPECT_TRUE(outputSeen);  // the last stage's output layer, kept in BF16
  EXPECT_NE(fp8.name.find("FP8"), std::string::npos) << fp8.name;
}

// The FP8 efficiency, when a device states one, replaces the BF16 one for FP8 GEMMs.
TEST(Fp8, AnFp8EfficiencyScalesOnlyTheFp8Lines) {
  Device d = findDevice("h100");
  d.peakFp8Flops = 2 * d.peakFlops;
  d.fp8Efficiency = d.efficiency / 2;  // so FP8 GEMMs take as long as BF16 ones
  const Preset& gpt3 = findPreset("gpt3-175b");
  const Workload bf16 = generateWorkload(gpt3, gpt3Run(Precision::Bf16), d, libra3d());
  const Workload fp8 = generateWorkload(gpt3, gpt3Run(Precision::Fp8), d, libra3d());
  for (std::size_t i = 0; i < bf16.layers.size(); ++i) {
    EXPECT_NEAR(fp8.layers[i].phase(PhaseKind::Forward).computeNs,
                bf16.layers[i].phase(PhaseKind::Forward).computeNs,
                1e-9 * bf16.layers[i].phase(PhaseKind::Forward).computeNs + 1e-9)
        << bf16.layers[i].name;
  }
}

// Korthikanti et al.'s 34 s b h per layer (sequence parallel, scores recomputed)
// keeps four GEMM inputs in 16 bits: the QKV input (s b h), the projection input
// (s b h), the MLP input (s b h) and the down-projection input (4 s b h for GPT-3's
// f = 4h), 7 s b h elements. Stored as 1-byte values they take 7 s b h bytes less:
// 27 s b h / t.
TEST(Fp8, SavedGemmInputsTakeOneByte) {
  const auto& m = std::get<TransformerConfig>(findPreset("gpt3-175b").model);
  const double s = 2048, b = 1, h = m.hidden, t = 8;
  Parallelism p = gpt3Run(Precision::Fp8);
  p.pp = 1;
  p.selectiveRecompute = true;
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, p), s * b * h * 27 / t, 1e-6);
  p.precision = Precision::Bf16;
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, p), s * b * h * 34 / t, 1e-6);
  // Full recomputation keeps only each layer's input, in BF16 either way.
  p.recompute = true;
  p.selectiveRecompute = false;
  const double kept = activationBytesPerLayer(m, s, b, p);
  p.precision = Precision::Fp8;
  EXPECT_DOUBLE_EQ(activationBytesPerLayer(m, s, b, p), kept);
}

// The FP8 copies of the weights and their transposes: 2 bytes for each weight of
// the blocks' linear layers an NPU holds. GPT-3 at TP 8 x PP 16: 6 blocks of 12 h^2
// weights per stage, 1/8 each, so 2 x 6 x 12 h^2 / 8 bytes more (2.72 GB).
TEST(Fp8, WeightCopiesAddTwoBytesPerLinearWeight) {
  const Preset& gpt3 = findPreset("gpt3-175b");
  const Device& h100 = findDevice("h100");
  const Parallelism bf16 = resolveDegrees(gpt3Run(Precision::Bf16), 4096);
  const Parallelism fp8 = resolveDegrees(gpt3Run(Precision::Fp8), 4096);
  const BatchPlan plan = planBatch(gpt3, bf16, {});
  const MemoryEstimate a = estimateMemory(gpt3, bf16, plan, h100);
  const MemoryEstimate b = estimateMemory(gpt3, fp8, plan, h100);
  ASSERT_TRUE(a.use && b.use);
  const double h = 12288;
  EXPECT_NEAR(b.use->weights - a.use->weights, 2 * 6 * 12 * h * h / 8, 1.0);
  EXPECT_DOUBLE_EQ(b.use->gradients, a.use->gradients);
  EXPECT_DOUBLE_EQ(b.use->optimizer, a.use->optimizer);
  EXPECT_LT(b.use->activations, a.use->activations);
}

TEST(Fp8, DevicesWithoutFp8AndNonTransformersRefuseIt) {
  const Preset& gpt3 = findPreset("gpt3-175b");
  const std::string a100 = messageOf(
      [&] { generateWorkload(gpt3, gpt3Run(Precision::Fp8), findDevice("a100"), libra3d()); });
  EXPECT_NE(a100.find("'a100'"), std::string::npos) << a100;
  EXPECT_NE(a100.find("no FP8"), std::string::npos) << a100;
  Parallelism dp;
  dp.precision = Precision::Fp8;
  const std::string cnn = messageOf(
      [&] { generateWorkload(findPreset("resnet50"), dp, findDevice("h100"), libra3d()); });
  EXPECT_NE(cnn.find("transformers only"), std::string::npos) << cnn;
  for (const Device& d : devices()) {
    EXPECT_NO_THROW(d.validate()) << d.id;
    if (d.hasFp8()) {
      // Dense FP8 is twice dense BF16 on the GPUs (the vendors' sheets, within
      // the rounding of the published figures) and equal to it on TPU v5p.
      const double ratio = d.peakFp8Flops / d.peakFlops;
      EXPECT_NEAR(ratio, d.id == "tpu-v5p" ? 1.0 : 2.0, 0.01) << d.id;
      EXPECT_GT(d.fp8Efficiency > 0 ? d.fp8Efficiency : d.efficiency, 0.4) << d.id;
      EXPECT_FALSE(d.fp8Source.empty()) << d.id;
    }
  }
}

// A stated utilization replaces the calibrated one for every compute-bound line
// (time scales by calibrated / stated) and is kept with the workload, so opening
// or regenerating the project keeps it.
TEST(Utilization, AStatedValueScalesComputeAndIsStored) {
  const Preset& gpt3 = findPreset("gpt3-175b");
  const Device& h100 = findDevice("h100");
  GeneratorOptions stated;
  stated.utilization = 0.5;
  const Workload calibrated = generateWorkload(gpt3, gpt3Run(Precision::Bf16), h100, libra3d());
  const Workload slower = generateWorkload(gpt3, gpt3Run(Precision::Bf16), h100, libra3d(), stated);
  const double scale = h100.transformerUtilization / 0.5;
  int gemms = 0;
  for (std::size_t i = 0; i < calibrated.layers.size(); ++i) {
    if (!blockLinear(calibrated.layers[i].name)) continue;
    EXPECT_NEAR(slower.layers[i].phase(PhaseKind::Forward).computeNs,
                scale * calibrated.layers[i].phase(PhaseKind::Forward).computeNs,
                1e-9 * slower.layers[i].phase(PhaseKind::Forward).computeNs);
    ++gemms;
  }
  EXPECT_GT(gemms, 0);
  const auto choice = presetChoiceOf(slower);
  ASSERT_TRUE(choice);
  EXPECT_DOUBLE_EQ(choice->generator.utilization, 0.5);
  EXPECT_EQ(choice->parallelism.precision, Precision::Bf16);
  EXPECT_DOUBLE_EQ(presetChoiceOf(calibrated)->generator.utilization, 0.0);
  Workload again = slower;
  ASSERT_TRUE(regenerateForNetwork(again, libra3d()));
  EXPECT_EQ(again.layers, slower.layers);

  for (double bad : {-0.1, 1.5}) {
    GeneratorOptions o;
    o.utilization = bad;
    const std::string m =
        messageOf([&] { generateWorkload(gpt3, gpt3Run(Precision::Bf16), h100, libra3d(), o); });
    EXPECT_NE(m.find("utilization"), std::string::npos) << m;
  }
}

TEST(Fp8, PrecisionIsStoredWithTheWorkload) {
  const Workload w = generateWorkload(findPreset("gpt3-175b"), gpt3Run(Precision::Fp8),
                                      findDevice("h100"), libra3d());
  const auto choice = presetChoiceOf(w);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->parallelism.precision, Precision::Fp8);
  EXPECT_EQ(parsePrecision(" FP8 "), Precision::Fp8);
  EXPECT_EQ(parsePrecision("bf16"), Precision::Bf16);
  EXPECT_FALSE(parsePrecision("fp16"));
}

// The devices of issue 26 item 4, against their vendors' spec sheets (sparse
// headline numbers halved; per-GPU shares of HGX / NVL72 totals): dense BF16 and
// FP8 peaks in TFLOP/s, HBM in GB and TB/s. TPU v4 has no FP8.
TEST(Devices, TheSpecSheetNumbers) {
  struct Sheet {
    const char* id;
    double bf16, fp8, gigabytes, terabytesPerSecond;
  };
  for (const Sheet& s :
       {Sheet{"h200", 989.4, 1978.9, 141, 4.8}, Sheet{"h800", 989.4, 1978.9, 80, 3.35},
        Sheet{"gb200", 10000.0 / 4, 20000.0 / 4, 13400.0 / 72, 576.0 / 72},
        Sheet{"b300", 36000.0 / 16, 72000.0 / 16, 2300.0 / 8, 8},
        Sheet{"mi325x", 1307.4, 2614.9, 256, 6}, Sheet{"mi355x", 2500, 5000, 288, 8},
        Sheet{"tpu-v4", 275, 0, 32 * 1.073741824, 1.2}}) {
    const Device& d = findDevice(s.id);
    EXPECT_NEAR(d.peakFlops / 1e12, s.bf16, 1e-9 * s.bf16) << s.id;
    EXPECT_NEAR(d.peakFp8Flops / 1e12, s.fp8, 1e-9 * s.fp8) << s.id;
    EXPECT_NEAR(d.memoryBytes / 1e9, s.gigabytes, 0.5) << s.id;
    EXPECT_NEAR(d.memoryBandwidth / 1e12, s.terabytesPerSecond, 1e-9) << s.id;
    EXPECT_FALSE(d.source.empty()) << s.id;
  }
}
