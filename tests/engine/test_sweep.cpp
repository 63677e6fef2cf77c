// Design-space sweep: shape enumeration, skips, ranking, threads, cancellation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "libra/error.hpp"
#include "libra/memory_usage.hpp"
#include "libra/presets.hpp"
#include "libra/sweep.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

SweepOptions smallSweep() {
  SweepOptions o;
  o.preset = tinyTransformer();
  o.parallelism.tp = 2;
  o.device = teraflopDevice();
  o.npus = 16;
  o.generator = batchOf(2, 8);  // 2 sequences on each of the DP 8 replicas
  o.minDims = 2;
  o.maxDims = 3;
  o.blocks = {BuildingBlock::Ring, BuildingBlock::Switch};
  o.jobs = 2;
  return o;
}

// Solves every enumerated shape on its own through makeProject and returns the
// least iteration time and the least time x cost of the perf-per-cost optima.
std::pair<double, double> bestAlone(const SweepOptions& o) {
  double bestTime = std::numeric_limits<double>::infinity();
  double bestTimeCost = bestTime;
  ProjectOptions po;
  po.trainingLoop = o.loop;
  po.constraints = o.constraints.empty() ? std::vector<std::string>{"total == 500"} : o.constraints;
  po.generator = o.generator;
  for (const Network& n : enumerateShapes(o)) {
    Problem problem;
    try {
      problem = buildProblem(makeProject(o.preset, o.parallelism, o.device, n, po));
    } catch (const InputError&) {
      continue;
    }
    const Solution perf = solve(problem, Objective::Performance);
    const Solution ppc = solve(problem, Objective::PerfPerCost);
    if (perf.ok()) bestTime = std::min(bestTime, perf.eval.iterationNs);
    if (ppc.ok()) bestTimeCost = std::min(bestTimeCost, ppc.eval.iterationNs * ppc.eval.costUsd);
  }
  return {bestTime, bestTimeCost};
}

// Bytes malloc handed out and not freed (all arenas: the sweep's threads too).
long heapInUse() {
  return static_cast<long>(heapInUseBytes());
}

}  // namespace

TEST(Sweep, OrderedFactorizations) {
  EXPECT_EQ(orderedFactorizations(16, 2), (std::vector<std::vector<int>>{{2, 8}, {4, 4}, {8, 2}}));
  EXPECT_EQ(orderedFactorizations(16, 3),
            (std::vector<std::vector<int>>{{2, 2, 4}, {2, 4, 2}, {4, 2, 2}}));
  EXPECT_EQ(orderedFactorizations(12, 2).size(), 4u);  // 2x6 3x4 4x3 6x2
  EXPECT_TRUE(orderedFactorizations(7, 2).empty());
  // 4096 = 2^12: compositions of 12 into k parts, C(11, k - 1).
  EXPECT_EQ(orderedFactorizations(4096, 2).size(), 11u);
  EXPECT_EQ(orderedFactorizations(4096, 3).size(), 55u);
  EXPECT_EQ(orderedFactorizations(4096, 4).size(), 165u);
}

// N = 16, 2..3 dimensions, blocks {Ring, Switch}:
//   2 dims: 3 factorizations x 2^2 = 12 shapes; levels InterNode, InterPod. InterNode
//           has no Nic price, so a Switch on dimension 0 is skipped: 3 x 2 = 6 skipped.
//   3 dims: 3 x 2^3 = 24 shapes; levels InterPackage, InterNode, InterPod: only
//           Ring-Ring-* is priced: 3 x 2 = 6 solved, 18 skipped.
// 36 enumerated, 24 skipped, 12 solved.
TEST(Sweep, CountsShapesAndSkipsByHand) {
  const SweepOptions o = smallSweep();
  EXPECT_EQ(enumerateShapes(o).size(), 36u);
  const SweepResult r = runSweep(o);
  EXPECT_EQ(r.enumerated, 36);
  EXPECT_EQ(r.skipped, 24);
  EXPECT_EQ(r.shapes.size(), 12u);
  ASSERT_EQ(r.skipReasons.size(), 1u);
  EXPECT_EQ(r.skipReasons.begin()->second, 24);
  EXPECT_NE(r.skipExample.begin()->second.find("Nic"), std::string::npos);
  EXPECT_FALSE(r.cancelled);
  for (const SweepShape& s : r.shapes) {
    EXPECT_EQ(s.network.dims.back().costLevel, "InterPod");
    EXPECT_NEAR(s.performance.bandwidth[0] + s.performance.bandwidth[1] +
                    (s.network.size() > 2 ? s.performance.bandwidth[2] : 0),
                500, 1e-6);
  }
}

// The sweep's best shapes are the best of solving every shape alone, for each
// training loop (recompute goes through the generator in both paths).
TEST(Sweep, FindsTheSameOptimumAsSolvingEachShapeAlone) {
  for (TrainingLoop loop :
       {TrainingLoop::NoOverlap, TrainingLoop::Recompute, TrainingLoop::Overlap}) {
    SweepOptions o = smallSweep();
    o.loop = loop;
    o.parallelism.sequenceParallel = loop == TrainingLoop::Overlap;
    const SweepResult r = runSweep(o);
    ASSERT_FALSE(r.byTime.empty());
    const auto [time, timeCost] = bestAlone(o);
    const SweepShape& best = r.shapes[r.byTime.front()];
    EXPECT_NEAR(best.performance.eval.iterationNs, time, 1e-9 * time) << toString(loop);
    const SweepShape& cheap = r.shapes[r.byTimeCost.front()];
    EXPECT_NEAR(cheap.perfPerCost.eval.iterationNs * cheap.perfPerCost.eval.costUsd, timeCost,
                1e-9 * timeCost)
        << toString(loop);
    // Rankings are sorted by time; times within 1e-9 of each other (rounding) tie,
    // and a tie goes to the cheaper shape.
    for (std::size_t i = 1; i < r.byTime.size(); ++i) {
      const Evaluation& prev = r.shapes[r.byTime[i - 1]].performance.eval;
      const Evaluation& cur = r.shapes[r.byTime[i]].performance.eval;
      EXPECT_LE(prev.iterationNs, cur.iterationNs * (1 + 2e-9));
      if (std::abs(prev.iterationNs - cur.iterationNs) <= 1e-12 * cur.iterationNs) {
        EXPECT_LE(prev.costUsd, cur.costUsd);
      }
    }
  }
}

// N = 12 with TP 3, rings only: 2x6 (3 cannot come from 2), 3x4, 4x3 (3 vs 4), 6x2,
// 2x2x3, 2x3x2 (both start with 2), 3x2x2: 7 shapes, 4 cannot hold TP 3.
TEST(Sweep, SkipsShapesThatCannotHoldTheParallelism) {
  SweepOptions o = smallSweep();
  auto& t = std::get<TransformerConfig>(o.preset.model);
  t.hidden = 48;
  t.heads = 3;
  t.ffn = 96;
  o.parallelism.tp = 3;
  o.npus = 12;
  o.blocks = {BuildingBlock::Ring};
  const SweepResult r = runSweep(o);
  EXPECT_EQ(r.enumerated, 7);
  EXPECT_EQ(r.skipped, 4);
  EXPECT_EQ(r.skipReasons.at("the parallelism cannot be mapped onto the dimensions"), 4);
  std::vector<std::string> labels;
  for (const SweepShape& s : r.shapes) labels.push_back(s.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"Ring 3 x Ring 4", "Ring 6 x Ring 2",
                                              "Ring 3 x Ring 2 x Ring 2"}));
}

TEST(Sweep, ConstraintsThatOnlySomeShapesCanHold) {
  SweepOptions o = smallSweep();
  o.constraints = {"total == 400", "bw[2] == 100"};
  const SweepResult r = runSweep(o);
  // Every 2-dimensional shape lacks bw[2]: its 6 priced shapes are skipped as well.
  EXPECT_EQ(r.skipReasons.at("a constraint does not apply to the shape"), 6);
  EXPECT_EQ(r.shapes.size(), 6u);
  for (const SweepShape& s : r.shapes) EXPECT_NEAR(s.performance.bandwidth[2], 100, 1e-6);
  o.constraints = {"total === 5"};
  EXPECT_THROW(runSweep(o), ConstraintError);
}

TEST(Sweep, ThreadsDoNotChangeTheResult) {
  SweepOptions o = smallSweep();
  o.jobs = 1;
  const SweepResult one = runSweep(o);
  o.jobs = 4;
  const SweepResult four = runSweep(o);
  ASSERT_EQ(one.shapes.size(), four.shapes.size());
  for (std::size_t i = 0; i < one.shapes.size(); ++i) {
    EXPECT_EQ(one.shapes[i].label, four.shapes[i].label);
    EXPECT_EQ(one.shapes[i].performance.eval.iterationNs,
              four.shapes[i].performance.eval.iterationNs);
  }
  EXPECT_EQ(one.byTime, four.byTime);
  EXPECT_EQ(one.byTimeCost, four.byTimeCost);
}

TEST(Sweep, ProgressAndCancellation) {
  SweepOptions o = smallSweep();
  std::vector<std::pair<int, int>> calls;
  runSweep(o, [&](int done, int total) { calls.emplace_back(done, total); });
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), std::make_pair(36, 36));
  for (std::size_t i = 1; i < calls.size(); ++i) EXPECT_LE(calls[i - 1].first, calls[i].first);

  std::atomic<bool> cancel{true};
  const SweepResult r = runSweep(o, {}, &cancel);
  EXPECT_TRUE(r.cancelled);
  EXPECT_TRUE(r.shapes.empty());
  EXPECT_EQ(r.skipped, 0);
}

TEST(Sweep, InvalidOptionsThrow) {
  SweepOptions o = smallSweep();
  o.maxDims = 5;  // only 4 cost levels
  EXPECT_THROW(runSweep(o), InputError);
  o = smallSweep();
  o.blocks.clear();
  EXPECT_THROW(runSweep(o), InputError);
  o = smallSweep();
  o.parallelism.tp = 3;  // 64 is not a multiple of 3, on any shape
  o.npus = 12;
  EXPECT_THROW(runSweep(o), InputError);
  o = smallSweep();
  o.parallelism.tpGroups = {2, 1};
  EXPECT_THROW(runSweep(o), InputError);
}

// A sweep's memory grows with the shapes it keeps for the ranking and the
// output (under 3 kB each: the design, both solutions and their throughputs),
// not with the solves: all of it goes with the result. (Each solution of an
// "auto" chunk model used to keep the model it was solved at, 6.3 kB a shape.)
TEST(Sweep, MemoryGrowsOnlyWithTheShapesKept) {
  SweepOptions o;
  o.preset = findPreset("gpt3-175b");
  o.parallelism = o.preset.defaults;
  o.parallelism.tp = 8;
  o.parallelism.pp = 8;
  o.parallelism.dp = 0;
  o.device = findDevice("h100");
  o.ignoreMemory = true;
  o.npus = 16384;
  o.blocks = {BuildingBlock::Ring, BuildingBlock::FullyConnected};
  o.minDims = 2;
  o.maxDims = 2;
  ASSERT_FALSE(runSweep(o).shapes.empty());  // one-time tables (presets, caches) are made
  const long before = heapInUse();
  o.maxDims = 3;
  {
    const SweepResult r = runSweep(o);
    ASSERT_GE(r.shapes.size(), 200u);
    const long kept = heapInUse() - before;
    // The measure sees what the result holds (it read 0 under AddressSanitizer
    // when it asked glibc, which then does not allocate).
    EXPECT_GT(kept, static_cast<long>(r.shapes.size()) * 100);
    EXPECT_LT(kept, static_cast<long>(r.shapes.size()) * 3000)
        << kept / static_cast<long>(r.shapes.size()) << " bytes per shape";
  }
  EXPECT_LT(heapInUse() - before, 64 * 1024);
}
