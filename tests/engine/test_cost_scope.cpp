// The cost scope (issue 9 item 7): "network" counts the network alone (LIBRA's
// model), "system" adds N times the NPU price to every cost. Checked against the
// closed form of the perf-per-cost optimum with a fixed cost, and for what a
// cost budget means, the JSON and CSV outputs and the project file.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine_test_support.hpp"
#include "libra/analysis.hpp"
#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "libra/project.hpp"
#include "libra/project_io.hpp"
#include "libra/solver.hpp"

namespace libra {
namespace {

using test::kBackends;
using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using test::relNear;
using test::withBackend;

// pkg Ring(4, A $2), node FC(8, B $3), rack Ring(2, A), pod Switch(16, C $23):
// N = 1024, costPerBandwidth = 1024 * [2, 3, 2, 23].
Project fourDimProject(std::vector<std::string> constraints) {
  Network n;
  n.dims = {makeDim("pkg", BuildingBlock::Ring, 4, "A"),
            makeDim("node", BuildingBlock::FullyConnected, 8, "B"),
            makeDim("rack", BuildingBlock::Ring, 2, "A"),
            makeDim("pod", BuildingBlock::Switch, 16, "C")};
  const CostModel costs = test::makeCostModel({{"A", CostLevel{2.0, std::nullopt, std::nullopt}},
                                               {"B", CostLevel{3.0, std::nullopt, std::nullopt}},
                                               {"C", CostLevel{5.0, 7.0, 11.0}}});
  // One AllReduce of 1e6 bytes over every dimension in the weight-gradient
  // phase; compute 1000 + 2000 + 3000 = 6000 ns, not overlapped.
  Workload w;
  w.name = "single";
  w.communicator = makeCommunicator({1, 1, 1, 1}, {1, 1, 1, 1}, {4, 8, 2, 16});
  w.layers = {makeLayer("L", makePhase(1000), makePhase(2000),
                        makePhase(3000, CollectiveType::AllReduce, 1e6))};
  return test::makeProject(n, costs, {w}, TrainingLoop::NoOverlap, std::move(constraints));
}

// Traffic per NPU of that AllReduce (model.md section 4) and the prices.
const std::vector<double> kV{1.5e6, 4.375e5, 31250, 29296.875};
const std::vector<double> kPrice{2048, 3072, 2048, 23552};
constexpr double kComputeNs = 6000;

TEST(CostScope, SystemPerfPerCostOptimumMatchesTheClosedForm) {
  // With b_d = V_d / tau every dimension finishes together (the least network
  // cost for a communication time tau): T = C + tau, cost = F + P / tau with
  // P = sum_d price_d V_d. d/dtau (C + tau)(F + P / tau) = F - C P / tau^2 = 0
  // gives tau* = sqrt(C P / F).
  double P = 0;
  for (std::size_t d = 0; d < kV.size(); ++d) P += kPrice[d] * kV[d];
  Project project = fourDimProject({"total <= 100000"});
  project.costScope = CostScope::System;
  project.npuPriceUsd = 1000;  // F = 1024 * $1000
  const double F = 1024 * 1000.0;
  const double tau = std::sqrt(kComputeNs * P / F);
  const Problem problem = buildProblem(project);
  EXPECT_EQ(problem.fixedCostUsd, F);
  for (Backend b : kBackends) {
    SCOPED_TRACE(toString(b));
    const Solution s = solve(problem, Objective::PerfPerCost, withBackend(b));
    ASSERT_EQ(s.status, SolveStatus::Optimal) << s.message;
    // The objective is flat at its minimum: the time and the cost within 1e-3,
    // time x cost within 1e-6 of the closed form's.
    EXPECT_TRUE(relNear(s.eval.iterationNs, kComputeNs + tau, 1e-3)) << s.eval.iterationNs;
    EXPECT_TRUE(relNear(s.eval.networkCostUsd, P / tau, 1e-3)) << s.eval.networkCostUsd;
    EXPECT_DOUBLE_EQ(s.eval.costUsd, F + s.eval.networkCostUsd);
    EXPECT_TRUE(
        relNear(s.eval.iterationNs * s.eval.costUsd, (kComputeNs + tau) * (F + P / tau), 1e-6));
  }
}

TEST(CostScope, DearerNpusBuyMoreNetwork) {
  // tau* = sqrt(C P / F) falls as F grows: the perf-per-cost optimum of the
  // system buys more bandwidth when the NPUs cost more.
  double lastCost = 0;
  for (double price : {100.0, 1000.0, 10000.0, 100000.0}) {
    Project project = fourDimProject({"total <= 100000"});
    project.costScope = CostScope::System;
    project.npuPriceUsd = price;
    const Solution s = solve(buildProblem(project), Objective::PerfPerCost);
    ASSERT_EQ(s.status, SolveStatus::Optimal) << s.message;
    EXPECT_GT(s.eval.networkCostUsd, lastCost) << "price " << price;
    lastCost = s.eval.networkCostUsd;
  }
}

TEST(CostScope, ABudgetBoundsTheWholeCost) {
  // cost <= F + X in the system scope leaves the network X: the same optimum
  // as cost <= X in the network scope.
  const double X = 2e6;
  const double F = 1024 * 5000.0;
  Project network = fourDimProject({"cost <= 2000000"});
  Project system = fourDimProject({"cost <= " + test::exactNumber(F + X)});
  system.costScope = CostScope::System;
  system.npuPriceUsd = 5000;
  for (Backend b : kBackends) {
    SCOPED_TRACE(toString(b));
    const Solution a = solve(buildProblem(network), Objective::Performance, withBackend(b));
    const Solution s = solve(buildProblem(system), Objective::Performance, withBackend(b));
    ASSERT_EQ(a.status, SolveStatus::Optimal) << a.message;
    ASSERT_EQ(s.status, SolveStatus::Optimal) << s.message;
    EXPECT_TRUE(test::vecRelNear(s.bandwidth, a.bandwidth, 1e-6));
    EXPECT_TRUE(relNear(s.eval.costUsd, F + X, 1e-9));
    EXPECT_TRUE(relNear(s.eval.networkCostUsd, X, 1e-6));
  }
  // A budget below the NPUs' cost leaves the network nothing: no solution,
  // and the message says what the NPUs cost.
  Project poor = fourDimProject({"total <= 1000"});
  poor.costScope = CostScope::System;
  poor.npuPriceUsd = 5000;
  const Solution s = solveWithCostBudget(buildProblem(poor), F / 2);
  EXPECT_EQ(s.status, SolveStatus::Infeasible);
  EXPECT_TRUE(test::contains(s.message, "NPUs alone cost")) << s.message;
}

TEST(CostScope, TheNetworkScopeIgnoresTheNpuPrice) {
  Project project = fourDimProject({"total == 500"});
  project.npuPriceUsd = 30000;
  const Problem p = buildProblem(project);
  EXPECT_EQ(p.fixedCostUsd, 0);
  const Solution s = solve(p, Objective::Performance);
  ASSERT_EQ(s.status, SolveStatus::Optimal);
  EXPECT_EQ(s.eval.costUsd, s.eval.networkCostUsd);
}

TEST(CostScope, TheNpuPriceComesFromTheDevice) {
  Project project = fourDimProject({"total == 500"});
  project.costScope = CostScope::System;
  // No device and no price: a clear error naming both ways out.
  const std::string message = test::thrownMessage<InputError>([&] { (void)buildProblem(project); });
  EXPECT_TRUE(test::contains(message, "npu_price_usd")) << message;
  EXPECT_TRUE(test::contains(message, "--npu-price")) << message;
  // A workload generated for the H100 takes its list price.
  project.workloads[0].origin = WorkloadOrigin{"gpt3-175b", "h100", {}, {}};
  const Device& h100 = findDevice("h100");
  ASSERT_GT(h100.listPriceUsd, 0);
  EXPECT_FALSE(h100.priceSource.empty());
  EXPECT_EQ(buildProblem(project).fixedCostUsd, 1024 * h100.listPriceUsd);
  const auto price = npuPrice(project);
  ASSERT_TRUE(price.has_value());
  EXPECT_TRUE(test::contains(price->source, "H100")) << price->source;
  // The project's own price wins over the list price.
  project.npuPriceUsd = 12345;
  EXPECT_EQ(buildProblem(project).fixedCostUsd, 1024 * 12345.0);
  // Workloads on devices of different prices need one price.
  project.npuPriceUsd.reset();
  Workload other = project.workloads[0];
  other.name = "other";
  other.origin->device = "a100";
  project.workloads.push_back(other);
  const std::string mixed = test::thrownMessage<InputError>([&] { (void)buildProblem(project); });
  EXPECT_TRUE(test::contains(mixed, "different prices")) << mixed;
}

TEST(CostScope, OverridesCheckTheirValues) {
  Project project = fourDimProject({"total == 500"});
  ModelOverrides o;
  o.costScope = CostScope::System;
  o.npuPriceUsd = -1;
  const std::string message =
      test::thrownMessage<InputError>([&] { applyModelOverrides(project, o); });
  EXPECT_TRUE(test::contains(message, "--npu-price")) << message;
  o.npuPriceUsd = 2500;
  applyModelOverrides(project, o);
  EXPECT_EQ(project.costScope, CostScope::System);
  EXPECT_EQ(project.npuPriceUsd, 2500);
  EXPECT_EQ(parseCostScope(" System "), CostScope::System);
  EXPECT_FALSE(parseCostScope("npus").has_value());
}

TEST(CostScope, ResultsSayWhichCostTheyCount) {
  Project project = fourDimProject({"total == 500"});
  project.costScope = CostScope::System;
  project.npuPriceUsd = 1000;
  AnalysisOptions options;
  options.paretoPoints = 5;
  const Analysis a = analyze(project, options);
  ASSERT_TRUE(a.ok()) << a.message;
  EXPECT_EQ(a.npuCostUsd, 1024 * 1000.0);
  const nlohmann::json j = nlohmann::json::parse(analysisJson(a, true));
  EXPECT_EQ(j["cost_scope"], "system");
  EXPECT_EQ(j["npu_cost_usd"].get<double>(), 1024 * 1000.0);
  EXPECT_DOUBLE_EQ(j["system_cost_usd"].get<double>(),
                   j["network_cost_usd"].get<double>() + 1024 * 1000.0);
  EXPECT_DOUBLE_EQ(j["equal_split"]["system_cost_usd"].get<double>(),
                   j["equal_split"]["network_cost_usd"].get<double>() + 1024 * 1000.0);
  // The front's cost axis is the system cost: it starts above the NPUs' cost.
  EXPECT_GE(j["pareto"]["min_cost_usd"].get<double>(), 1024 * 1000.0);
  for (const auto& point : j["pareto"]["points"]) {
    EXPECT_DOUBLE_EQ(point["system_cost_usd"].get<double>(),
                     point["network_cost_usd"].get<double>() + 1024 * 1000.0);
  }
  EXPECT_EQ(paretoCsv(a).rfind("system_cost_usd,iteration_time_ns", 0), 0u);
  EXPECT_EQ(designsCsv(a).rfind("kind,system_cost_usd,", 0), 0u);

  project.costScope = CostScope::Network;
  const Analysis n = analyze(project, options);
  const nlohmann::json k = nlohmann::json::parse(analysisJson(n, true));
  EXPECT_EQ(k["cost_scope"], "network");
  EXPECT_FALSE(k.contains("system_cost_usd"));
  EXPECT_FALSE(k.contains("npu_cost_usd"));
  EXPECT_EQ(paretoCsv(n).rfind("network_cost_usd,", 0), 0u);
}

TEST(CostScope, TheProjectFileKeepsTheScopeAndThePrice) {
  Project project = fourDimProject({"total == 500"});
  const std::string plain = projectToJson(project);
  EXPECT_EQ(plain.find("cost_scope"), std::string::npos) << "written only when set";
  project.costScope = CostScope::System;
  project.npuPriceUsd = 31250.5;
  const Project back = projectFromJson(projectToJson(project), "test.json");
  EXPECT_EQ(back.costScope, CostScope::System);
  EXPECT_EQ(back.npuPriceUsd, 31250.5);
  std::string bad = projectToJson(project);
  bad.replace(bad.find("\"system\""), 8, "\"npus\"");
  const std::string message =
      test::thrownMessage<InputError>([&] { (void)projectFromJson(bad, "bad.json"); });
  EXPECT_TRUE(test::contains(message, "cost_scope")) << message;
  EXPECT_TRUE(test::contains(message, "network or system")) << message;
}

TEST(CostScope, DevicePricesAreSourced) {
  for (const Device& d : devices()) {
    SCOPED_TRACE(d.id);
    EXPECT_GE(d.listPriceUsd, 0);
    EXPECT_FALSE(d.priceSource.empty());
  }
}

}  // namespace
}  // namespace libra
