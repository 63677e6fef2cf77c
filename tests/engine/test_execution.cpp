// The execution search (execution.hpp): what it enumerates, the placements of
// the groups onto the dimensions, that its bound is a lower bound, and that the
// pruned search finds the best design exhaustive enumeration finds.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <span>

#include "libra/error.hpp"
#include "libra/execution.hpp"
#include "preset_test_support.hpp"
#include "rc_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

// A 4-block transformer of 8 heads, global batch 16: small enough to search
// exhaustively on 8 or 16 NPUs.
Preset smallTransformer() {
  Preset p = tinyTransformer();
  auto& t = std::get<TransformerConfig>(p.model);
  t.layers = 4;
  t.heads = 8;
  p.globalBatch = 16;
  p.microBatch = 1;
  return p;
}

// Switches on a level with switch and NIC prices (the reference's InterPod).
Network twoDims(BuildingBlock inner, int n0, BuildingBlock outer, int n1) {
  Network n;
  n.dims = {
      dimension("inner", inner, n0, inner == BuildingBlock::Switch ? "InterPod" : "InterNode"),
      dimension("outer", outer, n1, "InterPod")};
  return n;
}

ExecutionSearchOptions optionsFor(const Preset& preset) {
  ExecutionSearchOptions o;
  o.device = teraflopDevice();
  o.device.memoryBytes = 0;  // no memory check
  o.project.constraints = {"total == 100"};
  o.choices.base = preset.defaults;
  o.keep = 1000;
  return o;
}

}  // namespace

// Every degree combination the model allows, nothing it does not: TP divides
// the heads and the hidden size, DP x EP the global batch, PP <= the blocks.
TEST(Executions, EnumerationRespectsTheModel) {
  const Preset p = smallTransformer();
  const std::vector<Execution> all = enumerateExecutions(p, 16, {}, ExecutionChoices{});
  ASSERT_FALSE(all.empty());
  std::set<std::tuple<int, int, std::int64_t>> degrees;
  for (const Execution& e : all) {
    const Parallelism& q = e.parallelism;
    EXPECT_EQ(std::int64_t{q.tp} * q.pp * q.dp, 16);
    EXPECT_EQ(8 % q.tp, 0);
    EXPECT_LE(q.pp, 4);
    EXPECT_EQ(16 % q.dp, 0);
    if (q.pp == 1) {
      EXPECT_EQ(e.virtualStages, 1);
    }
    degrees.insert({q.tp, q.pp, q.dp});
  }
  // tp in {1, 2, 4, 8, 16} that divides 8 heads: {1, 2, 4, 8}; pp <= 4 and a divisor.
  EXPECT_TRUE(degrees.count({8, 2, 1}));
  EXPECT_TRUE(degrees.count({1, 1, 16}));
  EXPECT_FALSE(degrees.count({16, 1, 1}));
  // A fixed degree fixes it, the rest is still enumerated.
  ExecutionChoices fixed;
  fixed.tp = 2;
  fixed.zeroStage = 1;
  for (const Execution& e : enumerateExecutions(p, 16, {}, fixed)) {
    EXPECT_EQ(e.parallelism.tp, 2);
    EXPECT_EQ(e.parallelism.zero(), 1);
  }
}

// The placements of TP 2 x PP 2 x DP 4 on Ring 4 x Switch 4: every way to split
// each dimension among the axes, the automatic mapping first, none twice.
TEST(Executions, PlacementsCoverEveryWayToLayTheGroups) {
  Execution e;
  e.parallelism.tp = 2;
  e.parallelism.pp = 2;
  e.parallelism.dp = 4;
  const Network net = twoDims(BuildingBlock::Ring, 4, BuildingBlock::Switch, 4);
  const std::vector<Parallelism> all = placements(e, net);
  ASSERT_FALSE(all.empty());
  const ParallelismMapping automatic = mapParallelism(net, e.parallelism);
  EXPECT_EQ(all[0].tpGroups, automatic.tensor());
  std::set<std::vector<int>> seen;
  for (const Parallelism& q : all) {
    std::vector<int> key = q.tpGroups;
    key.insert(key.end(), q.ppGroups.begin(), q.ppGroups.end());
    key.insert(key.end(), q.dpGroups.begin(), q.dpGroups.end());
    EXPECT_TRUE(seen.insert(key).second);
    EXPECT_NO_THROW(mapParallelism(net, q));
  }
  // The inner dimension takes (TP, PP, DP) = (2, 2, 1), (2, 1, 2), (1, 2, 2) or
  // (1, 1, 4); the outer one completes each: four placements.
  EXPECT_EQ(all.size(), 4u);
}

// The bound never exceeds the time of any placement of the execution (it is
// the compute time, which communication only adds to), on random executions.
RC_GTEST_PROP(ExecutionsProperties, TheBoundIsALowerBound, ()) {
  const Preset p = smallTransformer();
  const Network net = twoDims(
      *rc::gen::element(BuildingBlock::Ring, BuildingBlock::FullyConnected, BuildingBlock::Switch),
      4, *rc::gen::element(BuildingBlock::Ring, BuildingBlock::Switch), 4);
  const std::vector<Execution> all = enumerateExecutions(p, 16, {}, ExecutionChoices{});
  const Execution e = *rc::gen::elementOf(all);
  const ExecutionSearchOptions o = optionsFor(p);
  const double bound = executionBound(p, e, o.device, net, {});
  for (const Parallelism& placed : placements(e, net)) {
    ProjectOptions po = o.project;
    po.generator = generatorOf(e, {});
    const Problem problem = buildProblem(makeProject(p, placed, o.device, net, po));
    const Solution s = solve(problem, Objective::Performance);
    RC_ASSERT(s.ok());
    RC_ASSERT(bound <= s.eval.iterationNs * (1 + 1e-12));
  }
}

// On small instances the pruned search returns the best design exhaustive
// enumeration returns, and prunes something.
TEST(Executions, PrunedSearchFindsTheExhaustiveBest) {
  const Preset p = smallTransformer();
  for (const auto& [inner, outer] : {std::pair{BuildingBlock::Ring, BuildingBlock::Switch},
                                     std::pair{BuildingBlock::FullyConnected, BuildingBlock::Ring},
                                     std::pair{BuildingBlock::Switch, BuildingBlock::Switch}}) {
    const Network net = twoDims(inner, 4, outer, 4);
    SCOPED_TRACE(shapeLabel(net));
    ExecutionSearchOptions o = optionsFor(p);
    o.prune = false;
    const ExecutionSearch all = searchExecutions(p, net, o);
    o.prune = true;
    const ExecutionSearch pruned = searchExecutions(p, net, o);
    ASSERT_FALSE(all.designs.empty());
    ASSERT_FALSE(pruned.designs.empty());
    EXPECT_EQ(pruned.designs[0].solution.eval.iterationNs,
              all.designs[0].solution.eval.iterationNs);
    EXPECT_EQ(pruned.designs[0].execution, all.designs[0].execution);
    EXPECT_EQ(all.pruned, 0);
    EXPECT_GT(pruned.pruned, 0);
    EXPECT_EQ(pruned.evaluated + pruned.pruned, all.evaluated);
  }
}

// Memory first: an execution that does not fit is never evaluated, and when
// none fits the search says what the least need was.
TEST(Executions, OnlyWhatFitsIsEvaluated) {
  const Preset p = smallTransformer();
  const Network net = twoDims(BuildingBlock::Ring, 4, BuildingBlock::Switch, 4);
  ExecutionSearchOptions o = optionsFor(p);
  o.device.memoryBytes = 1e3;  // nothing fits
  const ExecutionSearch none = searchExecutions(p, net, o);
  EXPECT_TRUE(none.designs.empty());
  EXPECT_GT(none.overMemory, 0);
  ASSERT_TRUE(none.leastMemory && none.leastMemory->use);
  o.device.memoryBytes = 1.05 * none.leastMemory->use->total();
  const ExecutionSearch some = searchExecutions(p, net, o);
  ASSERT_FALSE(some.designs.empty());
  for (const ExecutionDesign& d : some.designs) EXPECT_TRUE(d.memory.fits());
}

// The tally of a workload (one slot of each kind, the others counted) gives the
// time model of the whole generated workload: the same compute and the same
// iteration time at any bandwidths, for presets with pipelines, interleaving,
// experts and ZeRO-3, on a network whose groups take parts of dimensions.
TEST(Executions, TheTallyTimesEqualTheGeneratedWorkloads) {
  Network net;
  net.dims = {dimension("node", BuildingBlock::FullyConnected, 8, "InterNode"),
              dimension("pod", BuildingBlock::Switch, 64, "InterPod")};
  struct Case {
    const char* preset;
    Parallelism p;
    GeneratorOptions g;
  };
  Parallelism gpt;
  gpt.tp = 4, gpt.pp = 8, gpt.zeroStage = 1, gpt.sequenceParallel = true;
  GeneratorOptions interleaved;
  interleaved.virtualStages = 3;
  Parallelism moe;
  moe.tp = 2, moe.ep = 8, moe.pp = 4, moe.zero3 = true, moe.sequenceParallel = true;
  Parallelism recompute = gpt;
  recompute.recompute = true;
  recompute.sequenceParallel = false;
  // DeepSeek-V3's first three blocks are dense: one pipeline stage holds both kinds.
  Parallelism deepseek;
  deepseek.tp = 2, deepseek.ep = 64, deepseek.pp = 1, deepseek.sequenceParallel = true;
  GeneratorOptions small;
  small.globalBatch = 256;
  for (const Case& c : {Case{"gpt3-175b", gpt, interleaved}, Case{"mixtral-8x22b", moe, {}},
                        Case{"llama3-70b", recompute, {}}, Case{"deepseek-v3", deepseek, small}}) {
    SCOPED_TRACE(c.preset);
    const Preset& preset = findPreset(c.preset);
    const Device& device = findDevice("h100");
    ProjectOptions po;
    po.generator = c.g;
    const Project whole = makeProject(preset, c.p, device, net, po);
    const Problem full = buildProblem(whole);
    Scenario scenario = whole;
    const WorkloadTally tally = tallyWorkload(preset, c.p, device, whole.network, c.g);
    const Problem tallied =
        buildProblem(scenario, buildTimeModel(whole.network, tally, whole.model.collectives));
    double compute = 0;
    for (const Layer& l : whole.workloads[0].layers) {
      for (const Phase& ph : l.phases) compute += ph.computeNs;
    }
    EXPECT_NEAR(tally.computeNs, compute, 1e-9 * compute);
    for (const std::vector<double>& bw :
         {std::vector<double>{400, 50}, std::vector<double>{100, 200}}) {
      const double a = full.evaluate(bw).iterationNs, b = tallied.evaluate(bw).iterationNs;
      EXPECT_NEAR(a, b, 1e-9 * a);
    }
  }
}

// An execution's axis tally placed on a placement (what the search evaluates)
// is the tally of that placement generated directly: the same time model at
// random bandwidths, for random executions (dense and mixture of experts,
// context parallel, ZeRO, recomputation) and every placement on random 2- and
// 3-dimension networks.
RC_GTEST_PROP(ExecutionsProperties, APlacedAxisTallyIsThePlacementsTally, ()) {
  Preset p = smallTransformer();
  auto& t = std::get<TransformerConfig>(p.model);
  if (*rc::gen::arbitrary<bool>()) {
    t.experts = 4;
    t.topK = 2;
    t.denseLayers = *rc::gen::inRange(0, 2);
  }
  ExecutionChoices choices;
  choices.cp = *rc::gen::element(1, 2);
  const auto block = [] {
    return *rc::gen::element(BuildingBlock::Ring, BuildingBlock::FullyConnected,
                             BuildingBlock::Switch);
  };
  Network net;
  if (*rc::gen::arbitrary<bool>()) {
    net = twoDims(block(), 4, block(), 4);
  } else {
    net.dims = {dimension("a", block(), 2, "InterNode"), dimension("b", block(), 4, "InterNode"),
                dimension("c", BuildingBlock::Switch, 2, "InterPod")};
  }
  const std::vector<Execution> all = enumerateExecutions(p, 16, {}, choices);
  RC_PRE(!all.empty());
  const Execution e = *rc::gen::elementOf(all);
  const Device device = teraflopDevice();
  const GeneratorOptions g = generatorOf(e, {});
  Parallelism degrees = e.parallelism;
  degrees.clearGroups();
  const std::optional<AxisTally> axes = tallyByAxes(p, degrees, device, g);
  if (!axes) {
    // Only an expert-TP group inside the TP group spans part of an axis; such
    // executions keep a tally per placement.
    RC_ASSERT(e.parallelism.etp() > 1 && e.parallelism.etp() < e.parallelism.tp);
    return;
  }
  RC_TAG(e.parallelism.etp() < e.parallelism.tp ? "expert TP < TP" : "expert TP = TP");
  const CollectiveModel model = defaultCollectiveModel();
  const std::vector<double> bw{*rc::gen::inRange(1, 400) * 1.0, *rc::gen::inRange(1, 400) * 1.0,
                               *rc::gen::inRange(1, 400) * 1.0};
  const std::span<const double> at(bw.data(), net.dims.size());
  for (const Parallelism& placed : placements(e, net)) {
    const TimeModel direct = buildTimeModel(net, tallyWorkload(p, placed, device, net, g), model);
    const TimeModel viaAxes =
        buildTimeModel(net, placeTally(*axes, mapParallelism(net, placed)), model);
    const double a = direct.evaluate(at).iterationNs, b = viaAxes.evaluate(at).iterationNs;
    RC_ASSERT(std::abs(a - b) <= 1e-9 * a);
  }
}

// Defaults that work (issue 25): every preset has an execution that fits the
// device's memory on the bundled 4D network (Ring 4 x FC 8 x Ring 4 x Switch
// 32), where several presets' published parallelism does not (GPT-3 175B at TP
// 16 without ZeRO needs 214.5 GB per GPU). The CLI's `libra new` without
// parallelism flags writes the first design.
TEST(Executions, EveryPresetHasADesignThatFitsTheBundledNetwork) {
  Network net;
  net.dims = {dimension("chiplet", BuildingBlock::Ring, 4, "InterChiplet"),
              dimension("package", BuildingBlock::FullyConnected, 8, "InterPackage"),
              dimension("node", BuildingBlock::Ring, 4, "InterNode"),
              dimension("pod", BuildingBlock::Switch, 32, "InterPod")};
  for (const Preset& preset : presets()) {
    SCOPED_TRACE(preset.id);
    ExecutionSearchOptions o;
    o.device = findDevice("h100");
    o.choices.base = preset.defaults;
    o.keep = 1;
    o.choices.searchPlacements = false;                // as `libra new` without --placements all
    if (preset.id == "deepseek-v3") o.choices.ep = 8;  // keeps the test short; the CLI searches EP
    const ExecutionSearch found = searchExecutions(preset, net, o);
    ASSERT_FALSE(found.designs.empty()) << found.firstFailure;
    EXPECT_TRUE(found.designs[0].memory.fits());
    EXPECT_TRUE(found.designs[0].solution.ok());
  }
}
