// Issue 25 item 6: the execution search on the hardware of every calibration run
// (the calibration table's networks and bandwidths, tests/cli/
// test_calibration.cpp; presets and model files, BF16 and FP8, context
// parallelism, Megatron-Core's MoE layout) evaluates the published execution, with the time an
// independent path gives it (the project `libra new --execution given` writes,
// evaluated at the same bandwidths), and finds one at least as fast. Where the
// memory allows less recomputation than the run used, the search evaluates that
// twin instead (never slower), and the test checks it is not slower. Every
// execution that fits the memory is evaluated (no pruning), with the automatic
// placement (TP inside the node, as the runs placed it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "libra/execution.hpp"
#include "libra/libra_format.hpp"
#include "libra/model_file.hpp"
#include "libra/presets.hpp"
#include "libra/problem.hpp"

namespace libra {
namespace {

struct PublishedRun {
  const char* name;
  const char* model;  // a preset id, or a model file in tests/data/models ("*.json")
  const char* device;
  const char* network;  // tests/data/calibration
  std::vector<double> bandwidth;
  std::int64_t globalBatch;
  Parallelism published;  // degrees and choices of the published run
  int virtualStages;
  bool materialized;  // the run's Megatron-LM wrote the attention scores to memory
  // The memory estimate (no allocator details) puts Meta's layout 4-7 GB above the
  // H100's 80 GB (docs/workloads.md 2.11): that run is searched without the check.
  bool ignoreMemory;
  int microBatch = 1;
  std::int64_t sequenceLength = 0;  // 0: the model's
  // A degree the search fixes as a user would with its flag (CP below 16K tokens
  // is searched only when given: kContextParallelFromTokens).
  std::optional<int> fixedCp;
};

Parallelism run(int tp, int pp, bool selective, int zero, bool full = false) {
  Parallelism p;
  p.tp = tp;
  p.pp = pp;
  p.sequenceParallel = !full;  // the SC'21 runs predate sequence parallelism
  p.selectiveRecompute = selective;
  p.recompute = full;
  p.zeroStage = zero;
  p.attention = AttentionKernel::Fused;  // materialized where the row says so
  return p;
}

// The run's settings that the search does not choose: its attention kernel,
// precision and expert dispatch.
Parallelism settingsOf(const PublishedRun& r) {
  Parallelism p = r.published;
  if (r.materialized) p.attention = AttentionKernel::Materialized;
  return p;
}

Parallelism bloom() {
  return run(4, 12, false, 1, true);
}

Parallelism fp8(int tp, int cp, int pp = 1) {
  Parallelism p = run(tp, pp, false, 1);
  p.sequenceParallel = tp > 1;
  p.cp = cp;
  p.attention = AttentionKernel::Fused;
  p.precision = Precision::Fp8;
  return p;
}

// Data parallel only (CNNs), at a ZeRO stage.
Parallelism dataParallel(int zero) {
  Parallelism p = run(1, 1, false, zero);
  p.sequenceParallel = false;
  return p;
}

// FSDP / ZeRO-3 over the data-parallel group, full recomputation (the runs'
// activation checkpointing), with TP (and sequence parallelism) where given.
Parallelism fsdp(int tp, bool sequenceParallel) {
  Parallelism p = run(tp, 1, false, 0, true);
  p.sequenceParallel = sequenceParallel;
  p.zero3 = true;
  return p;
}

Parallelism withFp8(Parallelism p) {
  p.precision = Precision::Fp8;
  return p;
}

Parallelism withCp(Parallelism p, int cp) {
  p.cp = cp;
  return p;
}

// A mixture of experts with the distributed optimizer (ZeRO-1), BF16.
Parallelism moe(int tp, int ep, int pp, MoeDispatcher dispatcher, MoeRouting routing) {
  Parallelism p = run(tp, pp, false, 1);
  p.sequenceParallel = tp > 1;
  p.ep = ep;
  p.moeDispatcher = dispatcher;
  p.moeRouting = routing;
  return p;
}

// NeMo AutoModel's MoE runs: FSDP, full recomputation, DeepEP with the balanced
// gate (contiguous routing).
Parallelism fsdpMoe(int tp, int ep, int pp) {
  Parallelism p = fsdp(tp, tp > 1);
  p.pp = pp;
  p.ep = ep;
  p.moeDispatcher = MoeDispatcher::DeepEp;
  p.moeRouting = MoeRouting::Contiguous;
  return p;
}

Parallelism deepseek() {
  Parallelism p = run(2, 8, false, 1);
  p.ep = 64;
  p.expertTp = 1;
  p.attention = AttentionKernel::Fused;
  p.precision = Precision::Fp8;
  p.moeDispatcher = MoeDispatcher::DeepEp;
  p.moeRouting = MoeRouting::Random;
  return p;
}

// Korthikanti et al. (arXiv:2205.05198) Tables 3 and 5: GPT-3 175B on 64 A100 and
// MT-NLG 530B on 280 A100, TP 8, PP 8 / 35 interleaved (v 3), micro-batch 1, sequence
// parallelism and selective recomputation; Llama Team (arXiv:2407.21783) Table 4:
// Llama 3 405B on 8,192 H100, TP 8, PP 16, DP 64 (interleaving v 4, ZeRO-1 assumed,
// as in the calibration table).
const std::vector<PublishedRun>& runs() {
  static const std::vector<PublishedRun> list{
      {"gpt3-175b-a100-64",
       "gpt3-175b",
       "a100",
       "a100-8x8.yml",
       {300, 25},
       64,
       run(8, 8, true, 0),
       3,
       true,
       false,
       1,
       0,
       std::nullopt},
      {"mt-nlg-530b-a100-280",
       "mt-nlg-530b",
       "a100",
       "a100-8x35.yml",
       {300, 25},
       280,
       run(8, 35, true, 0),
       3,
       true,
       false,
       1,
       0,
       std::nullopt},
      // Narayanan et al. (SC'21, arXiv:2104.04473) Tables 1 and 2: full recomputation,
      // no sequence parallelism.
      {"sc21-gpt3-175b-a100-1536",
       "gpt3-175b",
       "a100",
       "a100-8x192.yml",
       {300, 25},
       1536,
       run(8, 12, false, 0, true),
       2,
       true,
       false,
       1,
       0,
       std::nullopt},
      {"sc21-mt-nlg-530b-a100-2520",
       "mt-nlg-530b",
       "a100",
       "a100-8x315.yml",
       {300, 25},
       2520,
       run(8, 35, false, 0, true),
       3,
       true,
       false,
       1,
       0,
       std::nullopt},
      {"llama3-405b-h100-8192",
       "llama3-405b",
       "h100",
       "h100-8x1024.yml",
       {450, 50},
       2048,
       run(8, 16, false, 1),
       4,
       false,
       true,
       1,
       0,
       std::nullopt},
      // The other Korthikanti et al. rows: MT-NLG 530B with 8-way data parallelism
      // (section 6.3), GPT 1T (PP 64, 1F1B) and GPT 22B (one DGX, micro-batch 4).
      {"mt-nlg-530b-a100-2240",
       "mt-nlg-530b",
       "a100",
       "a100-8x280.yml",
       {300, 25},
       2240,
       run(8, 35, true, 0),
       3,
       true,
       false,
       1,
       0,
       std::nullopt},
      {"gpt-1t-a100-512",
       "megatron-gpt-1t",
       "a100",
       "a100-8x64.yml",
       {300, 25},
       512,
       run(8, 64, true, 0),
       1,
       true,
       false,
       1,
       0,
       std::nullopt},
      {"gpt-22b-a100-8",
       "megatron-gpt-22b",
       "a100",
       "a100-dgx.yml",
       {300},
       4,
       run(8, 1, true, 0),
       1,
       true,
       false,
       4,
       0,
       std::nullopt},
      // Narayanan et al. Table 1: GPT 1T on 3,072 A100 and 18.4B (a model file) on
      // 256, full recomputation.
      {"sc21-gpt-1t-a100-3072",
       "megatron-gpt-1t",
       "a100",
       "a100-8x384.yml",
       {300, 25},
       3072,
       run(8, 64, false, 0, true),
       1,
       true,
       false,
       1,
       0,
       std::nullopt},
      {"sc21-gpt-18.4b-a100-256",
       "megatron-gpt-18.4b.json",
       "a100",
       "a100-8x32.yml",
       {300, 25},
       1024,
       run(8, 1, false, 0, true),
       1,
       true,
       false,
       1,
       0,
       std::nullopt},
      // Llama 3 405B on 16,384 H100 (Table 4), as the 8,192 row.
      {"llama3-405b-h100-16384",
       "llama3-405b",
       "h100",
       "h100-8x2048.yml",
       {450, 50},
       2048,
       run(8, 16, false, 1),
       4,
       false,
       true,
       1,
       0,
       std::nullopt},
      // Megatron-LM's README: a 70B GPT (model file) on 768 H100, TP 8 x PP 2 (v 21).
      {"mcore-gpt-70b-h100-768",
       "megatron-gpt-70b.json",
       "h100",
       "h100-8x96.yml",
       {450, 50},
       384,
       run(8, 2, false, 1),
       21,
       false,
       false,
       1,
       0,
       std::nullopt},
      // NeMo 24.07: GPT-3 175B in FP8 on 512 H100, TP 4 x PP 8 (v 6), micro-batch 2;
      // Megatron-Bridge 26.02: Llama 3 70B in FP8 on 64 H100, TP 4 x PP 8 (v 5).
      {"nemo-gpt3-175b-h100-512-fp8",
       "gpt3-175b",
       "h100",
       "h100-8x64.yml",
       {450, 50},
       2048,
       fp8(4, 1, 8),
       6,
       false,
       false,
       2,
       0,
       std::nullopt},
      {"bridge-llama3-70b-h100-64-fp8",
       "llama3-70b",
       "h100",
       "h100-8x8.yml",
       {450, 50},
       256,
       fp8(4, 1, 8),
       5,
       false,
       false,
       1,
       0,
       std::nullopt},
      // The rest of the calibration table (docs/workloads.md section 2.11 cites
      // each): Megatron-Core GPTs (model files), DeepSpeed ZeRO-3, llm-foundry and
      // torchtitan FSDP, NeMo and Megatron-Bridge FP8, mixtures of experts of
      // Megatron-Bridge and NeMo AutoModel, context parallelism, and ResNet-50.
      {"resnet50-dgx-a100",
       "resnet50",
       "a100",
       "a100-dgx.yml",
       {300},
       2048,
       dataParallel(0),
       1,
       false,
       false,
       256,
       0,
       std::nullopt},
      {"mcore-gpt-7.1b-h100-96",
       "megatron-gpt-7.1b.json",
       "h100",
       "h100-8x12.yml",
       {450, 50},
       192,
       run(2, 1, false, 1),
       1,
       false,
       false,
       1,
       0,
       std::nullopt},
      {"mcore-gpt-177b-h100-2304",
       "megatron-gpt-177b.json",
       "h100",
       "h100-8x288.yml",
       {450, 50},
       1152,
       run(8, 6, false, 1),
       8,
       false,
       false,
       1,
       0,
       std::nullopt},
      {"mcore-gpt-462b-h100-6144",
       "megatron-gpt-462b.json",
       "h100",
       "h100-8x768.yml",
       {450, 50},
       3072,
       run(8, 16, false, 1),
       7,
       false,
       false,
       1,
       0,
       std::nullopt},
      {"zero3-gpt3-175b-a100-384",
       "gpt3-175b",
       "a100",
       "a100-8x48.yml",
       {300, 25},
       1536,
       fsdp(1, false),
       1,
       true,
       false,
       4,
       0,
       std::nullopt},
      {"zero3-gpt3-175b-a100-1536",
       "gpt3-175b",
       "a100",
       "a100-8x192.yml",
       {300, 25},
       1536,
       fsdp(1, false),
       1,
       true,
       false,
       1,
       0,
       std::nullopt},
      {"mpt-70b-h100-64",
       "mpt-70b.json",
       "h100",
       "h100-8x8.yml",
       {450, 50},
       2048,
       fsdp(1, false),
       1,
       false,
       false,
       8,
       0,
       std::nullopt},
      {"mpt-30b-a100-8",
       "mpt-30b.json",
       "a100",
       "a100-dgx.yml",
       {300},
       504,
       fsdp(1, false),
       1,
       false,
       false,
       3,
       0,
       std::nullopt},
      {"torchtitan-llama3.1-8b-h100-8",
       "llama3-8b.json",
       "h100",
       "grand-teton-h100-8.yml",
       {450},
       16,
       fsdp(1, false),
       1,
       false,
       false,
       2,
       8192,
       std::nullopt},
      {"torchtitan-llama3.1-70b-h100-256",
       "llama3-70b",
       "h100",
       "grand-teton-h100-8x32.yml",
       {450, 50},
       512,
       fsdp(8, true),
       1,
       false,
       false,
       1,
       0,
       std::nullopt},
      {"torchtitan-llama3.1-8b-h200-32-fp8",
       "llama3-8b.json",
       "h200",
       "h200-8x4.yml",
       {450, 50},
       64,
       withFp8(fsdp(1, false)),
       1,
       false,
       false,
       2,
       8192,
       std::nullopt},
      {"nemo-gpt3-175b-b200-512-fp8",
       "gpt3-175b",
       "b200",
       "b200-8x64.yml",
       {900, 50},
       2048,
       fp8(4, 1, 4),
       6,
       false,
       false,
       2,
       0,
       std::nullopt},
      {"bridge-llama3.1-405b-gb200-256-fp8",
       "llama3-405b",
       "gb200",
       "gb200-nvl-64x4.yml",
       {900, 50},
       1536,
       fp8(4, 1, 16),
       4,
       false,
       true,
       1,
       0,
       std::nullopt},
      {"bridge-gpt-oss-120b-h100-64",
       "gpt-oss-120b.json",
       "h100",
       "h100-8x8.yml",
       {450, 50},
       1280,
       moe(1, 8, 4, MoeDispatcher::AllToAll, MoeRouting::Random),
       1,
       false,
       false,
       1,
       0,
       std::nullopt},
      {"bridge-gpt-oss-120b-b200-64",
       "gpt-oss-120b.json",
       "b200",
       "b200-8x8.yml",
       {900, 50},
       1280,
       moe(1, 8, 1, MoeDispatcher::AllToAll, MoeRouting::Random),
       1,
       false,
       false,
       4,
       0,
       std::nullopt},
      {"bridge-deepseek-v3-gb200-256",
       "deepseek-v3",
       "gb200",
       "gb200-nvl-64x4.yml",
       {900, 50},
       4096,
       moe(1, 64, 4, MoeDispatcher::AllToAll, MoeRouting::Random),
       4,
       false,
       true,
       1,
       0,
       std::nullopt},
      {"automodel-qwen3-30b-a3b-h100-8",
       "qwen3-30b-a3b.json",
       "h100",
       "h100-dgx.yml",
       {450},
       512,
       fsdpMoe(1, 8, 1),
       1,
       false,
       false,
       4,
       0,
       std::nullopt},
      {"automodel-deepseek-v3-h100-256",
       "deepseek-v3",
       "h100",
       "h100-8x32.yml",
       {450, 50},
       512,
       fsdpMoe(1, 64, 4),
       8,
       false,
       false,
       1,
       0,
       std::nullopt},
      {"automodel-deepseek-v3-h100-1024",
       "deepseek-v3",
       "h100",
       "h100-8x128.yml",
       {450, 50},
       2048,
       fsdpMoe(1, 64, 4),
       8,
       false,
       false,
       1,
       0,
       std::nullopt},
      {"llama3-405b-128k-cp16",
       "llama3-405b",
       "h100",
       "h100-8x2048.yml",
       {450, 50},
       128,
       withCp(run(8, 16, false, 1), 16),
       4,
       false,
       false,
       1,
       131072,
       std::nullopt},
      {"nemo-llama3-70b-h100-64-fp8-cp2",
       "llama3-70b",
       "h100",
       "h100-8x8.yml",
       {450, 50},
       128,
       fp8(4, 2, 4),
       5,
       false,
       false,
       1,
       0,
       2},
      {"automodel-llama3-70b-h100-64-cp2",
       "llama3-70b",
       "h100",
       "h100-8x8.yml",
       {450, 50},
       128,
       withCp(fsdp(1, false), 2),
       1,
       false,
       false,
       1,
       0,
       2},
      // BigScience tr11-176B-ml (the calibration row): BLOOM from its model file,
      // TP 4 x PP 12 x DP 8, ZeRO-1, full recomputation, micro-batch 2.
      {"bloom-176b-a100-384",
       "bloom-176b.json",
       "a100",
       "jean-zay-a100-8x48.yml",
       {300, 6.25},
       2048,
       bloom(),
       1,
       true,
       false,
       2,
       0,
       std::nullopt},
      // Megatron-Bridge 25.11: Llama 3 8B in FP8 on 8 B200, DP 8, ZeRO-1, micro-batch 2.
      {"bridge-llama3-8b-b200-8-fp8",
       "llama3-8b.json",
       "b200",
       "b200-dgx.yml",
       {900},
       128,
       fp8(1, 1),
       1,
       false,
       true,
       2,
       8192,
       std::nullopt},
      // NeMo 24.07: Llama 3 8B in FP8 with context parallelism CP 2 on 8 H100 (CP
      // fixed, as --cp 2: at 8K tokens the search leaves CP to the user).
      {"nemo-llama3-8b-h100-8-fp8-cp2",
       "llama3-8b.json",
       "h100",
       "h100-dgx.yml",
       {450},
       128,
       fp8(1, 2),
       1,
       false,
       true,
       1,
       8192,
       2},
      // Megatron-Bridge 25.09: DeepSeek-V3 in FP8 on 1,024 H100 with Megatron-Core's
      // MoE layout: TP 2, EP 64 with expert TP 1, PP 8 (v 4), ZeRO-1, DeepEP.
      {"bridge-deepseek-v3-h100-1024",
       "deepseek-v3",
       "h100",
       "h100-8x128.yml",
       {450, 50},
       8192,
       deepseek(),
       4,
       false,
       false,
       1,
       0,
       std::nullopt},
  };
  return list;
}

int recomputation(const Parallelism& p) {
  return p.recompute ? 2 : (p.selectiveRecompute ? 1 : 0);
}

// The published execution, or one the search keeps instead because it is at
// least as fast by construction: the same degrees, interleaving, micro-batch and
// sequence parallelism, with less recomputation that still fits the memory (it
// only adds compute) or another ZeRO stage of 0-2 (they move the same bytes).
bool publishedOrTwin(const Execution& found, const PublishedRun& r, bool& exact) {
  const Parallelism& p = found.parallelism;
  const Parallelism& q = r.published;
  const bool same =
      p.tp == q.tp && p.pp == q.pp && p.cp == q.cp && p.ep == q.ep && p.etp() == q.etp() &&
      p.zero3 == q.zero3 && p.sequenceParallel == q.sequenceParallel &&
      found.virtualStages == r.virtualStages &&
      // Without a pipeline a replica's samples are one pass whatever the
      // micro-batch (planBatch): the search writes micro-batch 1.
      (found.microBatch == r.microBatch || q.pp == 1) && recomputation(p) <= recomputation(q);
  exact = same && recomputation(p) == recomputation(q);
  return same;
}

Preset modelOfRun(const PublishedRun& r) {
  const std::string model = r.model;
  if (model.size() > 5 && model.ends_with(".json")) {
    // A model card gives no batch: the run's, as --sequence-length and
    // --global-batch give it.
    Preset p = readModelFile(
        (std::filesystem::path(LIBRA_SOURCE_DIR) / "tests" / "data" / "models" / model).string());
    if (r.sequenceLength > 0) p.sequenceLength = r.sequenceLength;
    if (p.globalBatch <= 0) p.globalBatch = r.globalBatch;
    return p;
  }
  return findPreset(model);
}

class PublishedExecutions : public ::testing::TestWithParam<PublishedRun> {};

TEST_P(PublishedExecutions, AreEvaluatedAndNotFasterThanTheSearchsBest) {
  const PublishedRun& r = GetParam();
  const Preset preset = modelOfRun(r);
  const Network net = readNetworkFile(std::filesystem::path(LIBRA_SOURCE_DIR) / "tests" / "data" /
                                      "calibration" / r.network);
  ExecutionSearchOptions o;
  o.device = findDevice(r.device);
  o.choices.base = preset.defaults;
  // The run's settings (not searched): attention kernel, precision, dispatch.
  const Parallelism settings = settingsOf(r);
  o.choices.base.attention = settings.attention;
  o.choices.base.precision = settings.precision;
  o.choices.base.moeDispatcher = settings.moeDispatcher;
  o.choices.base.moeRouting = settings.moeRouting;
  o.choices.cp = r.fixedCp;
  o.choices.searchPlacements = false;  // the runs' own layout: TP in the node
  // The enumeration's cap on interleaving, widened to the run's (Megatron-LM's
  // 70B ran 21 chunks per stage).
  o.choices.maxVirtualStages = std::max(o.choices.maxVirtualStages, r.virtualStages);
  o.generator.globalBatch = r.globalBatch;
  o.generator.sequenceLength = r.sequenceLength;
  o.bandwidth = r.bandwidth;
  o.ignoreMemory = r.ignoreMemory;
  o.prune = false;  // every execution: the published one among them
  o.keep = 1;
  double publishedInSearch = std::numeric_limits<double>::quiet_NaN();
  bool exact = false;
  o.found = [&](const ExecutionDesign& d) {
    bool isExact = false;
    if (publishedOrTwin(d.execution, r, isExact) && (isExact || !exact)) {
      publishedInSearch = d.solution.eval.iterationNs;
      exact = isExact;
    }
  };
  const ExecutionSearch found = searchExecutions(preset, net, o);
  ASSERT_FALSE(found.designs.empty())
      << found.firstFailure << " (" << found.enumerated << " enumerated, " << found.overMemory
      << " over memory, " << found.failed << " failed)";

  // The published execution, generated and evaluated on its own.
  Parallelism p = settingsOf(r);
  p.dp = 0;
  ProjectOptions po;
  po.generator.globalBatch = r.globalBatch;
  po.generator.microBatch = r.microBatch;
  po.generator.virtualStages = r.virtualStages > 1 ? r.virtualStages : 0;
  po.generator.sequenceLength = r.sequenceLength;
  const Problem problem = buildProblem(makeProject(preset, p, o.device, net, po));
  const double published = problem.evaluate(r.bandwidth).iterationNs;

  ASSERT_TRUE(std::isfinite(publishedInSearch)) << r.name << ": not evaluated by the search";
  if (exact) {
    EXPECT_NEAR(publishedInSearch, published, 1e-9 * published) << r.name;
  } else {
    // Its twin with less recomputation: as fast or faster.
    EXPECT_LE(publishedInSearch, published * (1 + 1e-12)) << r.name;
  }
  const double best = found.designs.front().solution.eval.iterationNs;
  const double gain = published / best - 1 < 5e-4 ? 0.0 : 100 * (published / best - 1);
  EXPECT_LE(best, published * (1 + 1e-12)) << r.name;
  std::printf(
      "%-26s published %s: %.4f s%s; search's best %s: %.4f s (%.1f %% faster), %lld "
      "executions evaluated\n",
      r.name, (r.published.label() + " (v " + std::to_string(r.virtualStages) + ")").c_str(),
      published / 1e9, exact ? "" : " (evaluated as its twin with less recomputation)",
      found.designs.front().execution.label().c_str(), best / 1e9, gain,
      static_cast<long long>(found.evaluated));
}

INSTANTIATE_TEST_SUITE_P(Calibration, PublishedExecutions, ::testing::ValuesIn(runs()),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           std::replace(name.begin(), name.end(), '-', '_');
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

}  // namespace
}  // namespace libra
