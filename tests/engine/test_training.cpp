// What a design means for training (libra/training.hpp): the work of an
// iteration fixed by the model, model FLOPs, throughput and MFU, the pipeline
// bubble and its point-to-point traffic, memory per NPU, and 64-bit counts.
// Every number is checked against a hand computation or a published formula.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "libra/analysis.hpp"
#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "libra/traffic.hpp"
#include "libra/training.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

// The 4,096-NPU 3D network of the LIBRA paper (resources/examples/networks/gpt3-3d.yml).
Network libra3d() {
  Network net;
  net.dims = {dimension("package", BuildingBlock::Ring, 16, "InterPackage"),
              dimension("node", BuildingBlock::FullyConnected, 8, "InterNode"),
              dimension("pod", BuildingBlock::Switch, 32, "InterPod")};
  return net;
}

Parallelism degrees(int tp, int pp) {
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
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

const TransformerConfig& gpt3() {
  return std::get<TransformerConfig>(findPreset("gpt3-175b").model);
}

}  // namespace

// --- item 1: the work per iteration ----------------------------------------------

// GPT-3 175B: 1536 sequences of 2048 tokens per iteration (Narayanan et al., SC'21,
// arXiv:2104.04473, Table 1, the 175B row; Brown et al. Table 2.1 give 3.2 M
// tokens). Before, the preset fixed 16 sequences per DP rank: 8.39 M tokens at
// TP 16 x DP 256 and 1.05 M at TP 32 x PP 4 (issue 9). Now both run 3,145,728.
TEST(BatchPlan, GlobalBatchIsTheSameForEveryParallelism) {
  const Preset& p = findPreset("gpt3-175b");
  EXPECT_EQ(p.globalBatch, 1536);
  EXPECT_EQ(p.sequenceLength, 2048);
  const BatchPlan a = planBatch(p, resolveDegrees(degrees(16, 1), 4096), {});
  EXPECT_EQ(a.tokensPerIteration(), 3145728.0);
  EXPECT_EQ(a.replicas, 256);
  EXPECT_EQ(a.microBatch, 1);    // Megatron-LM's micro-batch 1 ...
  EXPECT_EQ(a.microBatches, 6);  // ... and 1536 / 256 = 6 accumulation steps
  const BatchPlan b = planBatch(p, resolveDegrees(degrees(32, 4), 4096), {});
  EXPECT_EQ(b.tokensPerIteration(), 3145728.0);
  EXPECT_EQ(b.replicas, 32);
  EXPECT_EQ(b.microBatches, 48);
  // --global-batch, --micro-batch, --micro-batches
  GeneratorOptions o;
  o.globalBatch = 2048;
  o.microBatch = 2;
  const BatchPlan c = planBatch(p, resolveDegrees(degrees(16, 1), 4096), o);
  EXPECT_EQ(c.globalBatch, 2048);
  EXPECT_EQ(c.microBatches, 4);  // 2048 / 256 / 2
}

TEST(BatchPlan, ImpossibleCombinationsNameTheNumbers) {
  const Preset& p = findPreset("gpt3-175b");
  const Parallelism dp256 = resolveDegrees(degrees(16, 1), 4096);
  GeneratorOptions o;
  o.globalBatch = 1000;  // 1000 / 256 is not whole
  std::string m = messageOf([&] { (void)planBatch(p, dp256, o); });
  EXPECT_NE(m.find("global batch of 1000 sequences"), std::string::npos) << m;
  EXPECT_NE(m.find("256 data-parallel replicas"), std::string::npos) << m;
  o.globalBatch = 0;
  o.microBatch = 4;  // does not divide the 6 of each replica
  m = messageOf([&] { (void)planBatch(p, dp256, o); });
  EXPECT_NE(m.find("micro-batch of 4 sequences"), std::string::npos) << m;
  EXPECT_NE(m.find("6 sequences of each replica"), std::string::npos) << m;
  o.microBatch = 2;
  o.microBatches = 2;  // 2 x 2 != 6
  m = messageOf([&] { (void)planBatch(p, dp256, o); });
  EXPECT_NE(m.find("2 micro-batches of 2 sequences are 4, not"), std::string::npos) << m;
  o.microBatch = 0;
  o.microBatches = 4;
  m = messageOf([&] { (void)planBatch(p, dp256, o); });
  EXPECT_NE(m.find("4 micro-batches do not divide"), std::string::npos) << m;
}

// --- item 2: model FLOPs, throughput, MFU, time to train ----------------------------

// Narayanan et al. (arXiv:2104.04473, section 5.1) count 96 B s l h^2 (1 + s / 6h +
// V / 16 l h) FLOPs per iteration with recomputation; without it the forward is
// not repeated: 72 B s l h^2 (1 + s / 6h) + 6 B s h V. GPT-3's preset is the
// plain GPT of that formula, so it must match to rounding.
TEST(ModelFlops, MatchNarayananEtAlForGpt3) {
  const TransformerConfig& m = gpt3();
  const double s = 2048, l = m.layers, h = m.hidden, V = m.vocab;
  const double expected = 72 * s * l * h * h * (1 + s / (6 * h)) + 6 * s * h * V;
  EXPECT_NEAR(modelFlopsPerSample(findPreset("gpt3-175b"), 2048) / expected, 1.0, 1e-12);
}

TEST(Throughput, TokensTflopsMfuAndTimeToTrainByHand) {
  TrainingFacts f;
  f.tokensPerIteration = 3145728;
  f.modelFlopsPerIteration = 4096 * 400e12;  // 400 TFLOP per NPU per iteration
  f.trainTokens = 300e9;
  f.npus = 4096;
  f.peakFlops = 1000e12;
  const Throughput t = throughputAt(f, 2e9);  // 2 s per iteration
  ASSERT_TRUE(t.tokensPerSecond && t.modelTflopsPerNpu && t.mfu && t.timeToTrainS);
  EXPECT_DOUBLE_EQ(*t.tokensPerSecond, 1572864);
  EXPECT_DOUBLE_EQ(*t.modelTflopsPerNpu, 200);
  EXPECT_DOUBLE_EQ(*t.mfu, 0.2);
  EXPECT_DOUBLE_EQ(*t.timeToTrainS, 300e9 / 1572864);
  // A workload of weight 2 in the objective: its iteration is T / 2.
  f.weight = 2;
  EXPECT_DOUBLE_EQ(*throughputAt(f, 2e9).tokensPerSecond, 2 * 1572864.0);
  // No time, no throughput.
  EXPECT_FALSE(throughputAt(f, INFINITY).tokensPerSecond);
}

// The analysis of a GPT-3 project reports the throughput of its design, and MFU
// is the model FLOPs over the dense peak: the device's achieved fraction of its
// peak for transformers (matmul efficiency x transformer utilization) times the
// share of the iteration spent computing, since the generator charges the model
// FLOPs at that rate.
TEST(Throughput, AnalysisOfGpt3ReportsMfuBelowTheEfficiency) {
  ProjectOptions options;
  options.constraints = {"total == 500"};
  const Project project =
      makeProject(findPreset("gpt3-175b"), degrees(16, 1), findDevice("h100"), libra3d(), options);
  const Analysis a = analyze(project);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a.training.tokensPerIteration);
  EXPECT_EQ(*a.training.tokensPerIteration, 3145728.0);
  const Throughput& t = a.design.throughput;
  ASSERT_TRUE(t.mfu && t.tokensPerSecond && t.timeToTrainS);
  const double seconds = a.design.eval.iterationNs * 1e-9;
  EXPECT_NEAR(*t.tokensPerSecond, 3145728.0 / seconds, 1e-6 * *t.tokensPerSecond);
  const Device& h100 = findDevice("h100");
  const double achieved = h100.achievedFlops(ModelFamily::Transformer) / h100.peakFlops;
  EXPECT_NEAR(achieved, 794.5 / 989.0 * 0.77, 1e-12);
  // The compute time also holds the memory-bound kernels (norms, residual adds,
  // activations, materialized attention scores: section 2.8), which model FLOPs do
  // not count, so the MFU is below the sustained matmul rate times the compute share.
  const double computeShare = a.design.eval.computeNs / a.design.eval.iterationNs;
  EXPECT_LT(*t.mfu, 0.95 * achieved * computeShare);
  EXPECT_LT(*t.mfu, achieved);
  EXPECT_NEAR(*t.timeToTrainS, 300e9 / *t.tokensPerSecond, 1e-6 * *t.timeToTrainS);

  // On a device without a memory bandwidth the roofline is the compute term alone:
  // then the compute time is the model FLOPs at the sustained rate, within 0.1 % (the
  // generator also charges the layer norms' 2 T h FLOPs, which model FLOPs do not
  // count).
  Device computeOnly = h100;
  computeOnly.memoryBandwidth = 0;
  const Analysis c = analyze(
      makeProject(findPreset("gpt3-175b"), degrees(16, 1), computeOnly, libra3d(), options));
  ASSERT_TRUE(c.ok() && c.design.throughput.mfu);
  const double share = c.design.eval.computeNs / c.design.eval.iterationNs;
  EXPECT_NEAR(*c.design.throughput.mfu / (achieved * share), 1.0, 1e-3);
  EXPECT_LE(*c.design.throughput.mfu, achieved * share);
  EXPECT_GT(*c.design.throughput.mfu, *t.mfu);
}

// --- item 3: pipeline parallelism ------------------------------------------------

TEST(Pipeline, BubbleOf1F1BAndInterleaved) {
  // Narayanan et al. (arXiv:2104.04473) section 2.2: (p - 1) / m, and (p - 1) / (v m)
  // with v model chunks per stage.
  EXPECT_DOUBLE_EQ(pipelineBubble(16, 48), 15.0 / 48);
  EXPECT_DOUBLE_EQ(pipelineBubble(16, 48, 3), 15.0 / 144);
  EXPECT_EQ(pipelineBubble(1, 48), 0);
}

TEST(Pipeline, SendRecvCrossesEveryDimensionOfTheGroup) {
  const std::vector<int> groups{2, 1, 8};
  const std::vector<double> v = collectiveTraffic(CollectiveType::SendRecv, 1000, groups);
  EXPECT_EQ(v, (std::vector<double>{1000, 0, 1000}));
}

// GPT-3 at TP 8 x PP 16 on Ring 16 x FC 8 x Switch 32: TP takes 8 of the package,
// PP the other 2 and the node's 8, DP the pod. The node dimension carries only
// pipeline traffic: before, it was given 0 GB/s (issue 9). Now it carries the
// point-to-point activations (s b h / TP x 2 bytes = 2048 x 12288 x 2 / 8 per
// micro-batch and direction) and gets bandwidth; no dimension is without traffic.
TEST(Pipeline, ADimensionOfOnlyPipelineTrafficGetsBandwidth) {
  ProjectOptions options;
  options.constraints = {"total == 500"};
  const Project project =
      makeProject(findPreset("gpt3-175b"), degrees(8, 16), findDevice("h100"), libra3d(), options);
  const Workload& w = project.workloads[0];
  const Layer* send = findLayer(w, "pipeline_mb1");
  ASSERT_NE(send, nullptr);
  EXPECT_EQ(send->phase(PhaseKind::Forward).collective, CollectiveType::SendRecv);
  EXPECT_EQ(send->phase(PhaseKind::Forward).sizeBytes, 2048.0 * 12288 * 2 / 8);
  EXPECT_EQ(send->phase(PhaseKind::Forward).groups, (std::vector<int>{2, 8, 1}));
  const Analysis a = analyze(project);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a.dimensionsWithoutTraffic.empty());
  ASSERT_EQ(a.design.bandwidth.size(), 3u);
  EXPECT_GT(a.design.bandwidth[1], 1.0);  // node: pipeline only
  ASSERT_TRUE(a.training.pipelineBubble);
  EXPECT_DOUBLE_EQ(*a.training.pipelineBubble, 15.0 / 48);  // 1536 / 32 = 48 micro-batches
}

// --- item 4: memory per NPU --------------------------------------------------------

// Mixed-precision Adam keeps 2 + 2 + 12 = 16 bytes per weight (Rajbhandari et al.,
// arXiv:1910.02054, section 3.1); ZeRO stages 1, 2, 3 shard the optimizer states,
// the gradients and the weights over the data-parallel replicas.
TEST(Memory, ModelStatesAndZeroStages) {
  const double n = 1e9;
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 64, 0, 2).total(), 16e9);
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 64, 1, 2).total(), 4e9 + 12e9 / 64);
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 64, 2, 2).total(), 2e9 + 14e9 / 64);
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 64, 3, 2).total(), 16e9 / 64);
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 1, 0, 4).total(), 16e9);  // fp32: 4 + 4 + 8
  // SGD without momentum: no state but the fp32 master copy of 16-bit weights.
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 1, 0, 4, Optimizer::Sgd).total(), 8e9);
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 1, 0, 2, Optimizer::Sgd).total(), 8e9);
  EXPECT_DOUBLE_EQ(modelStateBytes(n, 8, 1, 2, Optimizer::Sgd).optimizer, 4e9 / 8);
}

// DLRM (MLPerf, Criteo Terabyte) on 8 NPUs, 65536 samples per iteration: micro-batches
// of 2048 per NPU. The tables are placed whole, largest first on the least loaded
// NPU: the 8 largest go to one NPU each, the small ones fill the NPU of the 8th; the
// most loaded holds the 39,979,771-row table alone: 39,979,771 x 128 x 4 bytes =
// 20,469,642,752 (SGD in fp32 keeps no optimizer state). Its sparse gradient: the
// 2048 x 8 = 16384 rows the global micro-batch looks up, x 128 x 4 = 8,388,608 bytes.
// The MLPs (2,365,184 weights, data parallel): 4 + 4 bytes each. Activations per
// sample: 26 x 128 looked-up values and the MLP inputs 13 + 512 + 256 (bottom) and
// 479 + 1024 + 1024 + 512 + 256 (top) = 7404 values of 4 bytes.
TEST(Memory, DlrmTablesByHand) {
  const Preset& p = findPreset("dlrm-mlperf");
  Parallelism par;
  const Parallelism r = resolveDegrees(par, 8);
  const BatchPlan batch = planBatch(p, r, {});
  ASSERT_EQ(batch.microBatch, 2048);
  const MemoryEstimate e = estimateMemory(p, r, batch, findDevice("a100"));
  ASSERT_TRUE(e.use) << e.note;
  const double mlp = 2365184;
  EXPECT_DOUBLE_EQ(e.use->weights, 20469642752.0 + mlp * 4);
  EXPECT_DOUBLE_EQ(e.use->gradients, 8388608.0 + mlp * 4);
  EXPECT_DOUBLE_EQ(e.use->optimizer, 0);
  EXPECT_DOUBLE_EQ(e.use->activations, 2048.0 * 7404 * 4);
  EXPECT_EQ(e.use->where, "the NPU with the most embedding rows (1 table)");
  EXPECT_TRUE(e.fits());
  // On one NPU all 96.1 GB of tables: more than an A100's 80 GB.
  const Parallelism one = resolveDegrees(par, 1);
  const MemoryEstimate alone = estimateMemory(p, one, planBatch(p, one, {}), findDevice("a100"));
  ASSERT_TRUE(alone.use);
  EXPECT_NEAR(alone.use->weights, 187767399.0 * 128 * 4 + mlp * 4, 1);
  EXPECT_FALSE(alone.fits());
  // The LIBRA reference's DLRM gives no table rows: no estimate, and a note saying why.
  const Preset& libra = findPreset("dlrm-libra");
  const MemoryEstimate unknown =
      estimateMemory(libra, r, planBatch(libra, r, {}), findDevice("a100"));
  EXPECT_FALSE(unknown.use);
  EXPECT_NE(unknown.note.find("rows"), std::string::npos) << unknown.note;
}

// Korthikanti et al., arXiv:2205.05198, Table 2 (bytes per layer, 16-bit): no
// parallelism sbh (34 + 5 a s / h); tensor parallel sbh (10 + 24 / t + 5 a s / (h t));
// with sequence parallelism sbh (34 / t + 5 a s / (h t)); and selective
// recomputation drops the 5 a s / h term; full recomputation keeps 2 s b h.
TEST(Memory, ActivationsFollowKorthikantiTable2) {
  const TransformerConfig& m = gpt3();
  const double s = 2048, b = 1, h = m.hidden, a = m.heads, t = 8;
  const double sbh = s * b * h;
  Parallelism p = degrees(8, 1);
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, p), sbh * (10 + 24 / t + 5 * a * s / (h * t)), 1e-6);
  p.sequenceParallel = true;
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, p), sbh * (34 / t + 5 * a * s / (h * t)), 1e-6);
  p.selectiveRecompute = true;
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, p), sbh * 34 / t, 1e-6);
  p.selectiveRecompute = false;
  p.recompute = true;
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, p), 2 * sbh / t, 1e-6);
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, degrees(1, 1)), sbh * (34 + 5 * a * s / h), 1e-6);
  // Fused attention (FlashAttention) keeps no score matrices, only the softmax
  // statistics: 4 a s b bytes (fp32) instead of 5 a s^2 b.
  p.recompute = false;
  p.attention = AttentionKernel::Fused;
  EXPECT_NEAR(activationBytesPerLayer(m, s, b, p), sbh * 34 / t + 4 * a * s * b / t, 1e-6);
}

// GPT-3 at TP 16 without pipeline or ZeRO needs about 175 GB per GPU of model
// states (issue 9): 175e9 / 16 x 16 bytes, more than an H100's 80 GB.
TEST(Memory, Gpt3AtTp16DoesNotFitAnH100) {
  const Preset& p = findPreset("gpt3-175b");
  const Parallelism r = resolveDegrees(degrees(16, 1), 4096);
  const MemoryEstimate e = estimateMemory(p, r, planBatch(p, r, {}), findDevice("h100"));
  ASSERT_TRUE(e.use);
  const double states = e.use->weights + e.use->gradients + e.use->optimizer;
  EXPECT_NEAR(states / (p.parameterCount() / 16 * 16), 1.0, 1e-9);
  EXPECT_NEAR(states / 175e9, 1.0, 0.01);
  // Activations of one micro-batch (b = 1), 96 layers, Table 2 with TP 16, and the
  // fp32 logits 4 s b V / t.
  const double sbh = 2048.0 * 12288;
  EXPECT_NEAR(
      e.use->activations,
      96 * sbh * (10 + 24.0 / 16 + 5 * 96 * 2048.0 / (12288 * 16)) + 4 * 2048.0 * 50257 / 16, 1e3);
  EXPECT_EQ(e.capacityBytes, 80e9);
  EXPECT_FALSE(e.fits());
  // ZeRO-1, sequence parallelism and selective recomputation make it fit:
  // 21.8 + 21.8 + 131 / 256 GB of states and 96 x 34 s b h / 16 bytes of activations.
  Parallelism lean = r;
  lean.zeroStage = 1;
  lean.sequenceParallel = true;
  lean.selectiveRecompute = true;
  const MemoryEstimate fit = estimateMemory(p, lean, planBatch(p, lean, {}), findDevice("h100"));
  ASSERT_TRUE(fit.use);
  EXPECT_TRUE(fit.fits());
  EXPECT_NEAR(fit.use->total() / 1e9, 49.3, 0.05);
}

// 1F1B: the first of p stages keeps min(p, m) micro-batches of activations in flight
// (Narayanan et al. section 2.2; Korthikanti et al. section 4.2.3).
TEST(Memory, FirstPipelineStageKeepsPMicroBatches) {
  const Preset& p = findPreset("gpt3-175b");
  const Parallelism r = resolveDegrees(degrees(8, 16), 4096);
  const MemoryEstimate e = estimateMemory(p, r, planBatch(p, r, {}), findDevice("h100"));
  ASSERT_TRUE(e.use);
  EXPECT_EQ(e.use->where, "pipeline stage 1 of 16");
  const double sbh = 2048.0 * 12288;
  EXPECT_NEAR(e.use->activations, 16 * 6 * sbh * (10 + 24.0 / 8 + 5 * 96 * 2048.0 / (12288 * 8)),
              1e3);
}

// Interleaved 1F1B with v model chunks per stage: the first stage keeps the
// activations of L (1 + (p - 1) / (p v)) layers (Korthikanti et al.,
// arXiv:2205.05198, section 4.2.3): Megatron-LM's warm-up of 2 (p - 1) + (v - 1) p
// chunk forwards plus one, each chunk 1 / v of the stage. GPT-3 at TP 8 x PP 16 x DP 32
// (m = 1536 / 32 = 48 micro-batches), v = 2: 96 (1 + 15 / 32) = 141 layers =
// (30 + 16 + 1) / 2 = 23.5 micro-batches of the stage's 6 layers; 1F1B keeps 16.
TEST(Memory, InterleavedFirstStageKeepsMoreMicroBatches) {
  EXPECT_EQ(microBatchesInFlight(16, 0, 48, 1), 16);
  EXPECT_EQ(microBatchesInFlight(16, 15, 48, 1), 1);
  EXPECT_EQ(microBatchesInFlight(16, 0, 48, 2), 23.5);
  EXPECT_EQ(microBatchesInFlight(16, 0, 48, 2) * 96 / 16, 96 * (1 + 15.0 / 32));
  // The last stage warms up (v - 1) p chunks: (16 + 1) / 2 micro-batches.
  EXPECT_EQ(microBatchesInFlight(16, 15, 48, 2), 8.5);
  // Never more than the m v chunks of the iteration (m = 4: 8 chunks = 4 micro-batches).
  EXPECT_EQ(microBatchesInFlight(16, 0, 4, 2), 4);
  EXPECT_EQ(microBatchesInFlight(16, 0, 4, 1), 4);
  EXPECT_EQ(microBatchesInFlight(1, 0, 48, 2), 1);

  const Preset& p = findPreset("gpt3-175b");
  const Parallelism r = resolveDegrees(degrees(8, 16), 4096);
  const BatchPlan batch = planBatch(p, r, {});
  ASSERT_EQ(batch.microBatches, 48);
  const MemoryEstimate plain = estimateMemory(p, r, batch, findDevice("h100"));
  const MemoryEstimate interleaved = estimateMemory(p, r, batch, findDevice("h100"), 2);
  ASSERT_TRUE(plain.use && interleaved.use);
  EXPECT_EQ(interleaved.use->where, "pipeline stage 1 of 16");
  const double layer = activationBytesPerLayer(gpt3(), 2048, 1, r);
  EXPECT_NEAR(plain.use->activations, 96 * layer, 1e3);
  EXPECT_NEAR(interleaved.use->activations, 96 * (1 + 15.0 / 32) * layer, 1e3);
  EXPECT_EQ(interleaved.use->weights, plain.use->weights);
}

// --- item 8: 64-bit counts ---------------------------------------------------------

TEST(Counts, DegreesAreSixtyFourBitAndChecked) {
  // 2^40 NPUs at TP 16: DP 2^36, no wrap (before: "DP -2147483648").
  const Parallelism r = resolveDegrees(degrees(16, 1), kMaxNpus);
  EXPECT_EQ(r.dp, std::int64_t{1} << 36);
  EXPECT_NE(r.label().find("DP 68719476736"), std::string::npos) << r.label();
  // A given DP whose product overflows 64 bits is refused, not wrapped.
  Parallelism huge = degrees(1 << 30, 1);
  huge.dp = std::int64_t{1} << 40;
  const std::string m = messageOf([&] { (void)resolveDegrees(huge, 1024); });
  EXPECT_NE(m.find("more NPUs than 64 bits can count"), std::string::npos) << m;
  // A network of more than 2^40 NPUs is refused with the count.
  Network net;
  net.dims = {dimension("a", BuildingBlock::Ring, 1 << 21, "InterPackage"),
              dimension("b", BuildingBlock::Switch, 1 << 20, "InterPod")};
  const std::string n = messageOf([&] { net.validate(); });
  EXPECT_NE(n.find("more than 2^40"), std::string::npos) << n;
  // The work per iteration of 2^40 NPUs: one sample each.
  GeneratorOptions o;
  o.globalBatch = kMaxNpus;
  const BatchPlan b = planBatch(findPreset("resnet50"), resolveDegrees(Parallelism{}, kMaxNpus), o);
  EXPECT_EQ(b.replicas, kMaxNpus);
  EXPECT_EQ(b.microBatch, 1);
}
