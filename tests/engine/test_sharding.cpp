// Hybrid sharding (docs/workloads.md section 2.14): ZeRO within shard groups of
// the data-parallel group, replicated across them. What the generator writes
// (which collectives, over which groups, of what size) and what the memory
// estimate divides by, against hand computations.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "libra/training.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

// 8 NPUs per node on a FullyConnected fabric, 16 nodes on a switch: TP 8 takes
// the node, DP 16 the switch.
Network nodes() {
  Network net;
  net.dims = {dimension("node", BuildingBlock::FullyConnected, 8, "InterNode"),
              dimension("pod", BuildingBlock::Switch, 16, "InterPod")};
  return net;
}

Parallelism run(int zero, int shard) {
  Parallelism p;
  p.tp = 8;
  p.zeroStage = zero == 3 ? 0 : zero;
  p.zero3 = zero == 3;
  p.shardGroup = shard;
  return p;
}

using Key = std::tuple<CollectiveType, std::vector<int>, std::vector<int>>;

// Bytes of the weight-gradient and ZeRO-3 gather collectives of one workload, by
// (type, groups, strides): everything not over the TP group.
std::map<Key, double> dataParallelTraffic(const Workload& w) {
  std::map<Key, double> out;
  for (const Layer& l : w.layers) {
    for (PhaseKind kind : {PhaseKind::Forward, PhaseKind::InputGrad, PhaseKind::WeightGrad}) {
      const Phase& ph = l.phase(kind);
      if (ph.collective == CollectiveType::None) continue;
      // A phase without groups of its own runs over the communicator's.
      const std::vector<int>& groups = ph.groups.empty() ? w.communicator.of(kind) : ph.groups;
      const std::vector<int>& strides =
          ph.groups.empty() ? w.communicator.stridesOf(kind) : ph.strides;
      if (groups == std::vector<int>{8, 1}) continue;  // tensor parallel
      out[{ph.collective, groups, strides}] += ph.sizeBytes;
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

// ZeRO-3 over shard groups of 4 of the 16 data-parallel NPUs: the gradient
// ReduceScatter and the parameter AllGathers run in the shard group (4
// consecutive NPUs of the switch), and each shard's gradient is all-reduced
// across the 4 replicas (NPUs 4 apart). Without hybrid sharding every one of them
// spans all 16.
TEST(HybridSharding, Zero3CollectivesRunInTheShardGroupAndAcrossReplicas) {
  const Preset& llama = findPreset("llama3-70b");
  const Device& h100 = findDevice("h100");
  const auto full = dataParallelTraffic(generateWorkload(llama, run(3, 0), h100, nodes()));
  const auto hybrid = dataParallelTraffic(generateWorkload(llama, run(3, 4), h100, nodes()));
  const std::vector<int> all{1, 16}, shard{1, 4}, none{};
  const double rs = full.at({CollectiveType::ReduceScatter, all, none});
  const double ag = full.at({CollectiveType::AllGather, all, none});
  EXPECT_GT(rs, 0);
  // The same gradient bytes, reduce-scattered over 4 instead of 16.
  EXPECT_DOUBLE_EQ(hybrid.at({CollectiveType::ReduceScatter, shard, std::vector<int>{1, 1}}), rs);
  // Each NPU's shard is 1/4 of its weights (it was 1/16): the gathers are 4x larger
  // per NPU ...
  EXPECT_DOUBLE_EQ(hybrid.at({CollectiveType::AllGather, shard, std::vector<int>{1, 1}}), 4 * ag);
  // ... and the shard's gradient is all-reduced across the 4 replicas, 4 apart.
  EXPECT_DOUBLE_EQ(hybrid.at({CollectiveType::AllReduce, shard, std::vector<int>{1, 4}}), rs / 4);
  EXPECT_EQ(hybrid.count({CollectiveType::ReduceScatter, all, none}), 0u);
  EXPECT_EQ(hybrid.size(), 3u);
}

// ZeRO-1 (Megatron's distributed optimizer with several instances): the gradient
// ReduceScatter in the shard group, the AllReduce of the shard across replicas,
// and the updated shard gathered back in the group, the traffic of an AllReduce
// over the group plus that of the replicas.
TEST(HybridSharding, Zero1ReduceScattersAllReducesAndGathers) {
  const Preset& llama = findPreset("llama3-70b");
  const Device& h100 = findDevice("h100");
  const auto full = dataParallelTraffic(generateWorkload(llama, run(1, 0), h100, nodes()));
  const auto hybrid = dataParallelTraffic(generateWorkload(llama, run(1, 4), h100, nodes()));
  const std::vector<int> all{1, 16}, shard{1, 4}, none{};
  const double ar = full.at({CollectiveType::AllReduce, all, none});
  EXPECT_DOUBLE_EQ(hybrid.at({CollectiveType::ReduceScatter, shard, std::vector<int>{1, 1}}), ar);
  EXPECT_DOUBLE_EQ(hybrid.at({CollectiveType::AllReduce, shard, std::vector<int>{1, 4}}), ar / 4);
  EXPECT_DOUBLE_EQ(hybrid.at({CollectiveType::AllGather, shard, std::vector<int>{1, 1}}), ar / 4);
}

// The model states shard over the shard group: Llama 3 70B at TP 8, ZeRO-3 over 16
// keeps 16 bytes per weight / (8 x 16); over shard groups of 4, / (8 x 4).
TEST(HybridSharding, MemoryShardsOverTheShardGroup) {
  const Preset& llama = findPreset("llama3-70b");
  const Device& h100 = findDevice("h100");
  auto states = [&](int shard) {
    const Parallelism p = resolveDegrees(run(3, shard), 128);
    const MemoryEstimate e = estimateMemory(llama, p, planBatch(llama, p, {}), h100);
    return e.use->weights + e.use->gradients + e.use->optimizer;
  };
  EXPECT_NEAR(states(4) / states(0), 4.0, 1e-9);
  // A shard group of the whole data-parallel group is plain ZeRO.
  EXPECT_EQ(resolveDegrees(run(3, 16), 128).shardGroup, 0);
}

TEST(HybridSharding, WhatCannotRunIsRefusedWithTheReason) {
  const Preset& llama = findPreset("llama3-70b");
  const Device& h100 = findDevice("h100");
  const std::string noZero = messageOf([&] { generateWorkload(llama, run(0, 4), h100, nodes()); });
  EXPECT_NE(noZero.find("ZeRO stage"), std::string::npos) << noZero;
  const std::string notDividing =
      messageOf([&] { generateWorkload(llama, run(3, 5), h100, nodes()); });
  EXPECT_NE(notDividing.find("does not divide"), std::string::npos) << notDividing;
  Parallelism moe = run(3, 4);
  moe.tp = 1;
  moe.ep = 8;
  const std::string experts =
      messageOf([&] { generateWorkload(findPreset("mixtral-8x22b"), moe, h100, nodes()); });
  EXPECT_NE(experts.find("EP 1"), std::string::npos) << experts;
  Parallelism cnn;
  cnn.zeroStage = 1;
  cnn.shardGroup = 4;
  const std::string resnet =
      messageOf([&] { generateWorkload(findPreset("resnet50"), cnn, h100, nodes()); });
  EXPECT_NE(resnet.find("transformers"), std::string::npos) << resnet;
  // Stored with the workload and read back.
  const auto choice = presetChoiceOf(generateWorkload(llama, run(3, 4), h100, nodes()));
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->parallelism.shardGroup, 4);
}
