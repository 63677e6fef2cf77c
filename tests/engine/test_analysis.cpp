// The analysis of a design (analysis.hpp): the per-dimension breakdown against a
// hand computation, the one definition of the baseline, the front with and
// without the cost budget, progressive delivery and the JSON writer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine_test_support.hpp"
#include "libra/analysis.hpp"
#include "libra/edits.hpp"
#include "libra/error.hpp"

namespace libra {
namespace {

using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using test::relNear;

// pkg Ring(4, A $2), node FC(2, B $3), pod Switch(2, C $5+7+11): N = 16,
// costPerBandwidth = 16 * [2, 3, 23] = [32, 48, 368].
Project threeDimProject(std::vector<std::string> constraints) {
  Network net;
  net.dims = {makeDim("pkg", BuildingBlock::Ring, 4, "A"),
              makeDim("node", BuildingBlock::FullyConnected, 2, "B"),
              makeDim("pod", BuildingBlock::Switch, 2, "C")};
  const CostModel costs = test::makeCostModel({{"A", CostLevel{2.0, std::nullopt, std::nullopt}},
                                               {"B", CostLevel{3.0, std::nullopt, std::nullopt}},
                                               {"C", CostLevel{5.0, 7.0, 11.0}}});
  // Two collectives, no overlap:
  //   F : AllReduce 4000 B over [4,1,1]:   V = (6000, 0, 0)          (2 * 4000 * 3/4)
  //   WG: AllToAll 8000 B over [4,2,2]:    V = (6000, 4000, 4000)    (8000 * (g-1)/g)
  // compute 100 + 200 + 300 = 600 ns.
  Workload w;
  w.name = "w";
  w.communicator = makeCommunicator({4, 1, 1}, {1, 1, 1}, {4, 2, 2});
  w.layers = {makeLayer("L", makePhase(100, CollectiveType::AllReduce, 4000), makePhase(200),
                        makePhase(300, CollectiveType::AllToAll, 8000))};
  return test::makeProject(net, costs, {w}, TrainingLoop::NoOverlap, std::move(constraints));
}

// The breakdown at bw = (120, 40, 100), by hand:
//   F  takes 6000/120 = 50 ns, all on pkg.
//   WG takes max(6000/120, 4000/40, 4000/100) = max(50, 100, 40) = 100 ns, paced by node.
//   busy:    pkg 50 + 50 = 100, node 100, pod 40.
//   exposed: pkg 50 (F), node 100 (WG), pod 0; they add up to 150 = T - compute.
//   cost:    32*120 + 48*40 + 368*100 = 3840 + 1920 + 36800 = 42560.
TEST(Analysis, BreakdownMatchesAHandComputation) {
  AnalysisOptions options;
  options.design = std::vector<double>{120, 40, 100};
  const Analysis a = analyze(threeDimProject({"total == 260"}), options);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a.evaluated);
  const DesignResult& d = a.design;
  EXPECT_DOUBLE_EQ(d.eval.iterationNs, 750);
  EXPECT_DOUBLE_EQ(d.eval.communicationNs, 150);
  ASSERT_EQ(d.dims.size(), 3u);
  const double busy[] = {100, 100, 40}, exposed[] = {50, 100, 0}, cost[] = {3840, 1920, 36800};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(d.dims[i].name);
    EXPECT_DOUBLE_EQ(d.dims[i].busyNs, busy[i]);
    EXPECT_DOUBLE_EQ(d.dims[i].exposedNs, exposed[i]);
    EXPECT_DOUBLE_EQ(d.dims[i].costUsd, cost[i]);
    EXPECT_DOUBLE_EQ(d.dims[i].costShare, cost[i] / 42560);
  }
  EXPECT_EQ(d.dims[2].block, BuildingBlock::Switch);
  EXPECT_EQ(d.dims[0].npus, 4);
  EXPECT_TRUE(a.violated.empty());
}

// The baseline is the equal split of the design's own total (260 / 3 each), for
// an evaluated design and an optimum alike; it is flagged when it breaks a
// constraint, and the ratios are baseline / design.
TEST(Analysis, BaselineIsTheEqualSplitOfTheDesignsTotal) {
  AnalysisOptions options;
  options.design = std::vector<double>{120, 40, 100};
  const Analysis a = analyze(threeDimProject({"total == 260", "bw[pod] <= 80"}), options);
  ASSERT_TRUE(a.baseline);
  const Baseline& b = *a.baseline;
  const double third = 260.0 / 3;
  EXPECT_EQ(b.design.bandwidth, std::vector<double>(3, third));
  // F 6000/third, WG max(6000, 4000, 4000)/third: 12000 / third of communication.
  const double comm = 12000 / third;
  EXPECT_TRUE(relNear(b.design.eval.iterationNs, 600 + comm, 1e-15));
  EXPECT_TRUE(relNear(*b.speedup, (600 + comm) / 750, 1e-15));
  EXPECT_TRUE(relNear(*b.communicationSpeedup, comm / 150, 1e-15));
  const double baseCost = 448 * third;  // (32 + 48 + 368) per GB/s
  EXPECT_TRUE(relNear(*b.timeCostGain, (600 + comm) * baseCost / (750 * 42560.0), 1e-15));
  // The design breaks bw[pod] <= 80, the equal split (86.7 on pod) too.
  EXPECT_EQ(a.violated, std::vector<std::string>{"bw[pod] <= 80"});
  EXPECT_EQ(b.violated, std::vector<std::string>{"bw[pod] <= 80"});
  EXPECT_FALSE(b.satisfiesConstraints());

  const Analysis opt = analyze(threeDimProject({"total == 260"}));
  ASSERT_TRUE(opt.ok());
  ASSERT_TRUE(opt.baseline);
  EXPECT_TRUE(relNear(opt.baseline->design.totalBandwidth(), 260, 1e-12));
  EXPECT_TRUE(opt.baseline->satisfiesConstraints());
  EXPECT_GE(*opt.baseline->speedup, 1.0);  // the optimum is never slower than a feasible split
}

// With a cost budget the front spans the whole cost range by default (the
// budget is marked on it), or stays within the budget when asked; the optimum
// respects the budget either way.
TEST(Analysis, FrontWithAndWithoutTheCostBudget) {
  const Project p = threeDimProject({"total == 260", "cost <= 20000"});
  AnalysisOptions options;
  options.paretoPoints = 10;
  const Analysis whole = analyze(p, options);
  ASSERT_TRUE(whole.ok()) << whole.message;
  ASSERT_TRUE(whole.hasFront()) << whole.front.message;
  ASSERT_TRUE(whole.costBudgetUsd);
  EXPECT_DOUBLE_EQ(*whole.costBudgetUsd, 20000);
  EXPECT_LE(whole.design.eval.costUsd, 20000 * (1 + 1e-9));
  EXPECT_GT(whole.front.points.back().eval.costUsd, 30000);  // the perf optimum: 32,843

  options.frontWithinCostBudget = true;
  const Analysis within = analyze(p, options);
  ASSERT_TRUE(within.hasFront());
  for (const Solution& s : within.front.points) EXPECT_LE(s.eval.costUsd, 20000 * (1 + 1e-9));
  // The least time at the budget is the optimum under the budget.
  EXPECT_TRUE(
      relNear(within.front.points.back().eval.iterationNs, whole.design.eval.iterationNs, 1e-8));
}

// Without the sensitivity (`libra pareto`, `compare`, `export-astra-sim`) the
// analysis is the same design and front, and says the rates were not asked for.
TEST(Analysis, TheSensitivityIsComputedOnlyWhenAsked) {
  const Project p = threeDimProject({"total == 260", "cost <= 20000"});
  for (const Objective objective : {Objective::Performance, Objective::PerfPerCost}) {
    AnalysisOptions options;
    options.objective = objective;
    options.paretoPoints = 5;
    const Analysis with = analyze(p, options);
    options.sensitivity = false;
    const Analysis without = analyze(p, options);
    ASSERT_TRUE(with.ok()) << with.message;
    ASSERT_TRUE(without.ok()) << without.message;
    EXPECT_TRUE(with.sensitivity.computed) << with.sensitivity.note;
    EXPECT_FALSE(with.sensitivity.constraints.empty());
    EXPECT_FALSE(without.sensitivity.computed);
    EXPECT_TRUE(without.sensitivity.constraints.empty());
    EXPECT_EQ(without.sensitivity.note, "not requested");
    EXPECT_EQ(without.design.bandwidth, with.design.bandwidth);
    ASSERT_EQ(without.front.points.size(), with.front.points.size());
    for (std::size_t i = 0; i < with.front.points.size(); ++i) {
      EXPECT_EQ(without.front.points[i].bandwidth, with.front.points[i].bandwidth) << i;
    }
  }
}

// Without a cost budget the least-time design is the front's last point, and
// the analysis hands it to the scan instead of solving it again: the front is
// the one solved alone, point for point, with the chunk counts chosen per
// design ("auto", where the solve is a local search from its start) and in
// LIBRA's ideal model.
TEST(Analysis, FrontIsTheFrontOfTheProblemSolvedAlone) {
  for (const ChunkSetting chunks : {ChunkSetting::automatic(), ChunkSetting::ideal()}) {
    AnalysisOptions options;
    options.paretoPoints = 12;
    options.model.chunks = chunks;
    options.model.latencyNs = {500, 800, 1200};
    const Analysis a = analyze(threeDimProject({"total == 260"}), options);
    ASSERT_TRUE(a.ok()) << a.message;
    ASSERT_TRUE(a.hasFront()) << a.front.message;
    const ParetoFront alone = paretoFront(*a.problem, 12);
    ASSERT_EQ(alone.status, SolveStatus::Optimal) << alone.message;
    ASSERT_EQ(a.front.points.size(), alone.points.size());
    for (std::size_t i = 0; i < alone.points.size(); ++i) {
      EXPECT_EQ(a.front.points[i].bandwidth, alone.points[i].bandwidth) << "point " << i;
      EXPECT_EQ(a.front.points[i].eval.iterationNs, alone.points[i].eval.iterationNs);
    }
    EXPECT_EQ(a.front.perfPerCostOptimum.bandwidth, alone.perfPerCostOptimum.bandwidth);
    EXPECT_EQ(a.front.points.back().bandwidth, a.design.bandwidth);
  }
}

// A point of the front as a design of its own is the optimum under a cost
// budget at its cost: checked against an independent solve of that problem, the
// breakdown adding up, the equal split of its total, and the cost budget's rate
// between the front's secants on either side (the front is convex: the
// one-sided derivative at a point lies between its neighbouring chords).
TEST(Analysis, AFrontPointIsTheOptimumUnderABudgetAtItsCost) {
  const Project p = threeDimProject({"total == 260", "cost <= 20000"});
  AnalysisOptions options;
  options.paretoPoints = 10;
  const Analysis whole = analyze(p, options);
  ASSERT_TRUE(whole.hasFront()) << whole.front.message;
  ASSERT_EQ(whole.front.points.size(), 10u);
  for (std::size_t i : {std::size_t{2}, std::size_t{5}, std::size_t{8}}) {
    SCOPED_TRACE(i);
    const Solution& point = whole.front.points[i];
    const Analysis a = analyzeFrontPoint(p, options, whole, i);
    ASSERT_TRUE(a.ok()) << a.message;
    EXPECT_FALSE(a.evaluated);
    EXPECT_EQ(a.objective, Objective::Performance);
    ASSERT_TRUE(a.costBudgetUsd);
    EXPECT_DOUBLE_EQ(*a.costBudgetUsd, point.eval.costUsd);
    EXPECT_EQ(splitConstraints(a.constraints).extra, std::vector<std::string>{});
    EXPECT_EQ(a.design.bandwidth, point.bandwidth);
    EXPECT_DOUBLE_EQ(a.design.eval.iterationNs, point.eval.iterationNs);
    EXPECT_EQ(a.front.points.size(), whole.front.points.size());

    // An independent solve of the project with that budget.
    Project budgeted = p;
    setCostBudget(budgeted, point.eval.costUsd);
    budgeted.objective = Objective::Performance;
    const Analysis solved = analyze(budgeted);
    ASSERT_TRUE(solved.ok()) << solved.message;
    EXPECT_TRUE(relNear(a.design.eval.iterationNs, solved.design.eval.iterationNs, 1e-6));

    double exposed = 0;
    for (const DimensionResult& d : a.design.dims) exposed += d.exposedNs;
    EXPECT_TRUE(relNear(exposed, a.design.eval.communicationNs, 1e-12));
    ASSERT_TRUE(a.baseline);
    EXPECT_EQ(a.baseline->design.bandwidth, std::vector<double>(3, a.design.totalBandwidth() / 3));
    EXPECT_TRUE(relNear(*a.baseline->speedup,
                        a.baseline->design.eval.iterationNs / a.design.eval.iterationNs, 1e-15));

    ASSERT_TRUE(a.sensitivity.computed) << a.sensitivity.note;
    const ConstraintSensitivity* cost = nullptr;
    for (const ConstraintSensitivity& c : a.sensitivity.constraints) {
      if (costBudgetOf(c.constraint)) cost = &c;
    }
    ASSERT_NE(cost, nullptr);
    ASSERT_TRUE(cost->nsPerUnit);
    const auto& pts = whole.front.points;
    auto chord = [&](std::size_t from, std::size_t to) {
      return (pts[to].eval.iterationNs - pts[from].eval.iterationNs) /
             (pts[to].eval.costUsd - pts[from].eval.costUsd);
    };
    const double left = chord(i - 1, i), right = chord(i, i + 1);
    const double slack = 1e-6 * std::fabs(left);
    EXPECT_LE(left - slack, *cost->nsPerUnit);
    EXPECT_LE(*cost->nsPerUnit, right + slack);
    EXPECT_LT(*cost->nsPerUnit, 0);  // more money helps below the unconstrained optimum
  }
  EXPECT_THROW(analyzeFrontPoint(p, options, whole, 10), InputError);
}

// The design is delivered before the front is computed (progressive display).
TEST(Analysis, DesignIsDeliveredBeforeTheFront) {
  AnalysisOptions options;
  options.paretoPoints = 8;
  int calls = 0;
  bool frontWasThere = true;
  options.onDesign = [&](const Analysis& partial) {
    ++calls;
    frontWasThere = partial.hasFront();
    EXPECT_TRUE(partial.ok());
    EXPECT_EQ(partial.design.bandwidth.size(), 3u);
  };
  const Analysis a = analyze(threeDimProject({"total == 260"}), options);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(frontWasThere);
  EXPECT_TRUE(a.hasFront());
}

// No result holds NaN or infinity: a design that leaves a used dimension without
// bandwidth has an infinite time, written as null with "finite": false.
TEST(Analysis, JsonNeverHoldsNonFiniteNumbers) {
  AnalysisOptions options;
  options.design = std::vector<double>{100, 0, 100};
  const Analysis a = analyze(threeDimProject({"total == 200"}), options);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a.design.eval.finite);
  const std::string text = analysisJson(a);
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(text);
  EXPECT_TRUE(j["iteration_time_ns"].is_null());
  EXPECT_EQ(j["finite"], false);
  EXPECT_EQ(j["status"], "evaluated");
  EXPECT_TRUE(j["equal_split"]["speedup"].is_null());
}

// A problem without solution is an analysis with that status, not an exception;
// its JSON is the failure object.
TEST(Analysis, NoSolutionIsAStatus) {
  const Analysis a = analyze(threeDimProject({"total == 100", "bw[0] >= 200"}));
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.status, SolveStatus::Infeasible);
  const auto j = nlohmann::json::parse(analysisJson(a));
  EXPECT_EQ(j["status"], "infeasible");
  EXPECT_FALSE(j["message"].get<std::string>().empty());
}

}  // namespace
}  // namespace libra
