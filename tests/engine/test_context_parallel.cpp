// Context parallelism (docs/workloads.md section 2.15): each rank of a CP group
// holds 1 / CP of every sequence's tokens and exchanges keys and values with the
// others in every attention layer. What the generator writes (the KV exchange,
// its groups and sizes), what the compute and memory divide by, where the
// mapping puts the groups and what the execution search tries, against hand
// computations.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "libra/error.hpp"
#include "libra/execution.hpp"
#include "libra/presets.hpp"
#include "libra/training.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

// 8 NPUs per node on a FullyConnected fabric, 16 nodes on a switch.
Network nodes() {
  Network net;
  net.dims = {dimension("node", BuildingBlock::FullyConnected, 8, "InterNode"),
              dimension("pod", BuildingBlock::Switch, 16, "InterPod")};
  return net;
}

Parallelism run(int tp, int cp) {
  Parallelism p;
  p.tp = tp;
  p.cp = cp;
  p.sequenceParallel = tp > 1;
  p.zeroStage = 1;
  p.attention = AttentionKernel::Fused;
  return p;
}

GeneratorOptions batch(std::int64_t global) {
  GeneratorOptions g;
  g.globalBatch = global;
  return g;
}

using Key = std::tuple<PhaseKind, CollectiveType, std::vector<int>, std::vector<int>>;

// Bytes per (phase, type, groups, strides) of the collectives over `groups`.
std::map<Key, double> trafficOver(const Workload& w, const std::vector<int>& groups) {
  std::map<Key, double> out;
  for (const Layer& l : w.layers) {
    for (PhaseKind kind : kPhaseKinds) {
      const Phase& ph = l.phase(kind);
      if (ph.collective == CollectiveType::None) continue;
      const std::vector<int>& g = ph.groups.empty() ? w.communicator.of(kind) : ph.groups;
      if (g != groups) continue;
      out[{kind, ph.collective, g,
           ph.groups.empty() ? w.communicator.stridesOf(kind) : ph.strides}] += ph.sizeBytes;
    }
  }
  return out;
}

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// TP 4 takes 4 NPUs of the node, CP 2 the other 2 (4 apart), DP 16 the pod. The
// dense gradients are reduced over CP x DP (Megatron-LM's data-parallel group
// with CP), which starts at CP's stride.
TEST(ContextParallel, TheGroupSitsBetweenTensorAndDataParallel) {
  const ParallelismMapping m = mapParallelism(nodes(), run(4, 2));
  EXPECT_EQ(m.tensor(), (std::vector<int>{4, 1}));
  EXPECT_EQ(m.context(), (std::vector<int>{2, 1}));
  EXPECT_EQ(m.strides(ParallelAxis::Context), (std::vector<int>{4, 1}));
  EXPECT_EQ(m.data(), (std::vector<int>{1, 16}));
  EXPECT_EQ(m.denseData(), (std::vector<int>{2, 16}));
  EXPECT_EQ(m.expertData(), (std::vector<int>{2, 16}));
  EXPECT_EQ(m.denseDataStrides(), (std::vector<int>{4, 1}));
  // TP 8 fills the node: CP goes to the pod.
  EXPECT_EQ(mapParallelism(nodes(), run(8, 2)).context(), (std::vector<int>{1, 2}));
  EXPECT_EQ(resolveDegrees(run(4, 2), 128).dp, 16);
  EXPECT_EQ(run(4, 2).label(), "TP 4 x CP 2 x DP auto, sequence parallel, ZeRO-1");
}

// Llama 3 70B (8 KV heads of 128: 2048 key and value values per token), sequence
// 8192, one sequence per replica: each CP rank holds 4096 tokens, and each of the
// 80 attention layers gathers its 4096 x 2048 / TP 4 x 2 bytes of keys and values
// over the CP group forward, gathers them again backward and reduce-scatters their
// gradients (the whole 2 x that).
TEST(ContextParallel, EveryAttentionLayerExchangesItsKeysAndValues) {
  const Preset& llama = findPreset("llama3-70b");
  const Workload w = generateWorkload(llama, run(4, 2), findDevice("h100"), nodes(), batch(16));
  const auto traffic = trafficOver(w, {2, 1});
  const double kv = 4096.0 * 2048 / 4 * 2;
  const std::vector<int> cpGroups{2, 1}, cpStrides{4, 1};
  EXPECT_DOUBLE_EQ(traffic.at({PhaseKind::Forward, CollectiveType::AllGather, cpGroups, cpStrides}),
                   80 * kv);
  EXPECT_DOUBLE_EQ(
      traffic.at({PhaseKind::InputGrad, CollectiveType::AllGather, cpGroups, cpStrides}), 80 * kv);
  EXPECT_DOUBLE_EQ(
      traffic.at({PhaseKind::InputGrad, CollectiveType::ReduceScatter, cpGroups, cpStrides}),
      80 * 2 * kv);
  EXPECT_EQ(traffic.size(), 3u);
  // Without CP nothing runs over that group.
  const Workload none = generateWorkload(llama, run(4, 1), findDevice("h100"), nodes(), batch(32));
  EXPECT_TRUE(trafficOver(none, {2, 1}).empty());
}

// A CP rank of 2 sequences holds 2 x 8192 / 2 tokens, which attend to 8192 keys each:
// the same GEMMs, scores and norms as one whole sequence without CP, so the same
// compute time. (Both at 32 sequences per iteration on 128 NPUs.)
TEST(ContextParallel, ComputeIsThatOfTheRanksTokens) {
  const Preset& llama = findPreset("llama3-70b");
  const Device& h100 = findDevice("h100");
  const double withCp = tallyWorkload(llama, run(4, 2), h100, nodes(), batch(32)).computeNs;
  const double without = tallyWorkload(llama, run(4, 1), h100, nodes(), batch(32)).computeNs;
  EXPECT_GT(without, 0);
  EXPECT_NEAR(withCp / without, 1.0, 1e-12);
}

// Activations are those of the rank's tokens (half with CP 2 at the same
// micro-batch), and ZeRO shards the optimizer over DP x CP: TP 4 x CP 2 x DP 16
// keeps the optimizer states of TP 4 x DP 32.
TEST(ContextParallel, MemoryHoldsTheRanksTokensAndShardsOverDataAndContext) {
  const Preset& llama = findPreset("llama3-70b");
  const auto& m = std::get<TransformerConfig>(llama.model);
  for (bool recompute : {false, true}) {
    Parallelism two = run(4, 2), one = run(4, 1);
    two.recompute = one.recompute = recompute;
    EXPECT_NEAR(
        activationBytesPerLayer(m, 8192, 1, two, 5) / activationBytesPerLayer(m, 8192, 1, one, 5),
        0.5, 1e-12);
  }
  const Device& h100 = findDevice("h100");
  auto use = [&](const Parallelism& p, std::int64_t global) {
    const Parallelism r = resolveDegrees(p, 128);
    return *estimateMemory(llama, r, planBatch(llama, r, batch(global)), h100).use;
  };
  const MemoryUse cp = use(run(4, 2), 16), dp = use(run(4, 1), 32);
  EXPECT_DOUBLE_EQ(cp.optimizer, dp.optimizer);
  EXPECT_DOUBLE_EQ(cp.weights, dp.weights);
  EXPECT_NEAR(cp.activations / dp.activations, 0.5, 1e-12);
}

TEST(ContextParallel, WhatCannotRunIsRefusedWithTheReason) {
  const Preset& llama = findPreset("llama3-70b");
  const Device& h100 = findDevice("h100");
  GeneratorOptions odd = batch(16);
  odd.sequenceLength = 8190;
  const std::string split =
      messageOf([&] { generateWorkload(llama, run(4, 2), h100, nodes(), odd); });
  EXPECT_NE(split.find("multiple of 2 x CP = 4"), std::string::npos) << split;
  GeneratorOptions libraLayout = batch(16);
  libraLayout.layout = WorkloadLayout::Libra;
  const std::string layout =
      messageOf([&] { generateWorkload(llama, run(4, 2), h100, nodes(), libraLayout); });
  EXPECT_NE(layout.find("Megatron layout"), std::string::npos) << layout;
  Parallelism cnn;
  cnn.cp = 2;
  const std::string resnet =
      messageOf([&] { generateWorkload(findPreset("resnet50"), cnn, h100, nodes()); });
  EXPECT_NE(resnet.find("transformers"), std::string::npos) << resnet;
  Parallelism zero = run(4, 0);
  const std::string degree = messageOf([&] { resolveDegrees(zero, 128); });
  EXPECT_NE(degree.find("CP 0"), std::string::npos) << degree;
  // Stored with the workload and read back.
  const auto choice = presetChoiceOf(generateWorkload(llama, run(4, 2), h100, nodes(), batch(16)));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->parallelism.cp, 2);
}

// The search tries CP from 16K tokens per sequence on (or a fixed --cp), and every
// placement it lists gives each axis its degree.
TEST(ContextParallel, TheExecutionSearchTriesItForLongSequences) {
  const Preset& llama = findPreset("llama3-70b");
  auto degrees = [&](std::int64_t sequence, std::optional<int> fixed) {
    GeneratorOptions g = batch(64);
    g.sequenceLength = sequence;
    ExecutionChoices c;
    c.cp = fixed;
    std::set<int> out;
    for (const Execution& e : enumerateExecutions(llama, 128, g, c)) out.insert(e.parallelism.cp);
    return out;
  };
  EXPECT_EQ(degrees(16384, std::nullopt), (std::set<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(degrees(8192, std::nullopt), (std::set<int>{1}));
  EXPECT_EQ(degrees(8192, 2), (std::set<int>{2}));

  Execution e;
  e.parallelism = resolveDegrees(run(4, 2), 128);
  const std::vector<Parallelism> all = placements(e, nodes());
  ASSERT_GT(all.size(), 1u);
  for (const Parallelism& p : all) {
    for (ParallelAxis axis : kParallelAxes) {
      std::int64_t product = 1;
      for (int g : p.groupsOf(axis)) product *= g;
      EXPECT_EQ(product, p.degree(axis)) << toString(axis);
    }
  }
  EXPECT_EQ(all.front().cpGroups, (std::vector<int>{2, 1}));
}
