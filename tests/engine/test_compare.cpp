// Comparing designs (compare.hpp): the optima against closed forms, the ratios
// as quotients of the per-design numbers, throughput as the performance when
// every design knows it, one design's failure kept to itself, and the JSON and
// CSV writers (stable keys, never NaN or infinity).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <numeric>

#include "engine_test_support.hpp"
#include "libra/compare.hpp"
#include "libra/presets.hpp"

namespace libra {
namespace {

using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using test::relNear;
using test::thrownMessage;
using ::testing::HasSubstr;
using Json = nlohmann::json;

// The one-collective network of tests/cli/data/one_collective.json: chip Ring(4)
// at $2, node FullyConnected(2) at $4, pod Switch(8) at $7.8 + $18 + $31.6 per
// GB/s; one weight-gradient AllReduce of S = 1e9 bytes over all 64 NPUs;
// compute 1000 + 2000 + 3000 ns.
//
// Traffic by hand (spec/model.md section 3, AllReduce inner to outer,
// 2 s (g - 1) / g with s shrinking by g): chip 2e9 * 3/4 = 1.5e9, node
// 2 * 2.5e8 * 1/2 = 2.5e8, pod 2 * 1.25e8 * 7/8 = 2.1875e8 bytes.
// Under total == B alone the optimum gives each dimension B V_d / sum V, every
// dimension is busy sum V / B, so T(B) = 6000 + sum V / B ns and the cost is
// N sum_d price_d V_d B / sum V: linear in B.
const std::vector<double> kTraffic{1.5e9, 2.5e8, 2.1875e8};
const std::vector<double> kPrice{2, 4, 7.8 + 18 + 31.6};
constexpr double kNpus = 64;
constexpr double kComputeNs = 6000;
constexpr double kSolverTolerance = 1e-6;

double sumV() {
  return std::accumulate(kTraffic.begin(), kTraffic.end(), 0.0);
}
double closedFormTime(double budget) {
  return kComputeNs + sumV() / budget;
}
double closedFormCost(double budget) {
  double c = 0;
  for (std::size_t d = 0; d < 3; ++d) c += kNpus * kPrice[d] * budget * kTraffic[d] / sumV();
  return c;
}

Project oneCollective(std::vector<std::string> constraints) {
  Network net;
  net.dims = {makeDim("chip", BuildingBlock::Ring, 4, "Package"),
              makeDim("node", BuildingBlock::FullyConnected, 2, "Node"),
              makeDim("pod", BuildingBlock::Switch, 8, "Pod")};
  Workload w;
  w.name = "single all-reduce";
  w.communicator = makeCommunicator({1, 1, 1}, {1, 1, 1}, {4, 2, 8});
  w.layers = {makeLayer("layer0", makePhase(1000), makePhase(2000),
                        makePhase(3000, CollectiveType::AllReduce, 1e9))};
  Project p = test::makeProject(
      net,
      test::makeCostModel({{"Package", CostLevel{2.0, std::nullopt, std::nullopt}},
                           {"Node", CostLevel{4.0, std::nullopt, std::nullopt}},
                           {"Pod", CostLevel{7.8, 18.0, 31.6}}}),
      {w}, TrainingLoop::NoOverlap, std::move(constraints));
  p.name = "one collective";
  return p;
}

// Two scenarios that differ only in the total bandwidth.
Project twoBudgets() {
  Project p = oneCollective({"total == 500"});
  setScenarios(p,
               {{"500 GB/s", oneCollective({"total == 500"})},
                {"1000 GB/s", oneCollective({"total == 1000"})}},
               0);
  return p;
}

const DesignComparison& byName(const Comparison& c, const std::string& name) {
  for (const DesignComparison& d : c.designs) {
    if (d.input.name == name) return d;
  }
  throw std::runtime_error("no design " + name);
}

// Each design of a project's scenarios holds its own scenario only: each used
// to hold the whole project, so comparing n scenarios took n^2 memory (1,000
// scenarios of a 0.9 MB file: 14 s and 2.9 GB; now 0.75 s and 21 MB).
TEST(Compare, EachScenarioDesignHoldsItsScenarioOnly) {
  std::vector<NamedScenario> list;
  for (int i = 0; i < 50; ++i) {
    list.push_back(
        {"s" + std::to_string(i), oneCollective({"total == " + std::to_string(400 + i)})});
  }
  Project p = oneCollective({"total == 400"});
  setScenarios(p, list, 7);
  const std::vector<DesignInput> designs = scenarioDesigns(p, "many.json");
  ASSERT_EQ(designs.size(), 50u);
  for (std::size_t i = 0; i < designs.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(designs[i].project.otherScenarios.empty());
    EXPECT_EQ(designs[i].project.scenarioName, "s" + std::to_string(i));
    EXPECT_EQ(designs[i].project.constraints,
              std::vector<std::string>{"total == " + std::to_string(400 + i)});
    EXPECT_EQ(designs[i].name, "s" + std::to_string(i));
  }
}

TEST(Compare, TwoBudgetsMatchTheClosedForm) {
  const Comparison c = compareDesigns(scenarioDesigns(twoBudgets(), "budgets.json"));
  ASSERT_EQ(c.designs.size(), 2u);
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(c.baseline, 0u);
  // The workload is not a preset's: no throughput, so iterations per second.
  EXPECT_EQ(c.measure, PerformanceMeasure::IterationsPerSecond);
  for (double budget : {500.0, 1000.0}) {
    const DesignComparison& d = byName(c, budget == 500 ? "500 GB/s" : "1000 GB/s");
    SCOPED_TRACE(d.input.name);
    EXPECT_EQ(d.input.file, "budgets.json");
    EXPECT_EQ(d.input.scenario, d.input.name);
    ASSERT_TRUE(d.ok());
    const DesignResult& r = d.analysis.design;
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_TRUE(relNear(r.bandwidth[k], budget * kTraffic[k] / sumV(), kSolverTolerance)) << k;
    }
    EXPECT_TRUE(relNear(r.eval.iterationNs, closedFormTime(budget), kSolverTolerance));
    EXPECT_TRUE(relNear(r.eval.networkCostUsd, closedFormCost(budget), kSolverTolerance));
    ASSERT_TRUE(d.performance && d.perfPerCost);
    EXPECT_TRUE(relNear(*d.performance, 1e9 / closedFormTime(budget), kSolverTolerance));
    EXPECT_TRUE(relNear(*d.perfPerCost, 1e9 / closedFormTime(budget) / closedFormCost(budget),
                        kSolverTolerance));
  }
  // The ratios against the baseline (500 GB/s), by hand: twice the bandwidth
  // costs twice as much and takes (6000 + V/500) / (6000 + V/1000) less time.
  const DesignComparison& base = c.designs[0];
  const DesignComparison& fast = c.designs[1];
  EXPECT_EQ(base.speedup, 1.0);
  EXPECT_EQ(base.costRatio, 1.0);
  EXPECT_EQ(base.perfPerCostRatio, 1.0);
  ASSERT_TRUE(fast.speedup && fast.costRatio && fast.perfPerCostRatio);
  EXPECT_TRUE(relNear(*fast.speedup, closedFormTime(500) / closedFormTime(1000), kSolverTolerance));
  EXPECT_TRUE(relNear(*fast.costRatio, 2.0, kSolverTolerance));
  EXPECT_TRUE(relNear(
      *fast.perfPerCostRatio,
      closedFormTime(500) * closedFormCost(500) / (closedFormTime(1000) * closedFormCost(1000)),
      kSolverTolerance));
  // ... and they are exactly the quotients of the per-design numbers.
  const Evaluation& e0 = base.analysis.design.eval;
  const Evaluation& e1 = fast.analysis.design.eval;
  EXPECT_DOUBLE_EQ(*fast.speedup, *fast.performance / *base.performance);
  EXPECT_DOUBLE_EQ(*fast.speedup, e0.iterationNs / e1.iterationNs);
  EXPECT_DOUBLE_EQ(*fast.costRatio, e1.costUsd / e0.costUsd);
  EXPECT_DOUBLE_EQ(*fast.perfPerCostRatio, *fast.perfPerCost / *base.perfPerCost);
  EXPECT_DOUBLE_EQ(*fast.perfPerCostRatio,
                   *base.analysis.design.timeCost() / *fast.analysis.design.timeCost());
  // The numbers are the analysis' own: the same as analyzing the scenario alone.
  const Analysis alone = analyze(oneCollective({"total == 1000"}));
  EXPECT_EQ(alone.design.eval.iterationNs, e1.iterationNs);
  EXPECT_EQ(alone.design.bandwidth, fast.analysis.design.bandwidth);
}

TEST(Compare, AnotherBaselineInvertsTheRatios) {
  ComparisonOptions options;
  options.baseline = "1000 GB/s";
  const Comparison c = compareDesigns(scenarioDesigns(twoBudgets()), options);
  EXPECT_EQ(c.baseline, 1u);
  const Comparison first = compareDesigns(scenarioDesigns(twoBudgets()));
  EXPECT_DOUBLE_EQ(*c.designs[0].speedup, 1 / *first.designs[1].speedup);
  EXPECT_DOUBLE_EQ(*c.designs[0].costRatio, 1 / *first.designs[1].costRatio);
  EXPECT_DOUBLE_EQ(*c.designs[0].perfPerCostRatio, 1 / *first.designs[1].perfPerCostRatio);
  EXPECT_EQ(c.designs[1].speedup, 1.0);
}

// compareAnalyzed on analyses made elsewhere (the GUI's shown result) gives
// the comparison compareDesigns makes, and refuses what compareDesigns refuses.
TEST(Compare, ComparingAnalysesMadeElsewhereIsTheSame) {
  ComparisonOptions options;
  options.baseline = "1000 GB/s";
  const Comparison solved = compareDesigns(scenarioDesigns(twoBudgets()), options);
  std::vector<DesignComparison> analyzed;
  for (const DesignInput& input : scenarioDesigns(twoBudgets())) {
    DesignComparison d;
    d.input = input;
    d.analysis = analyze(input.project);
    d.speedup = 42.0;  // whatever was there is replaced
    analyzed.push_back(std::move(d));
  }
  const Comparison c = compareAnalyzed(analyzed, "1000 GB/s");
  ASSERT_EQ(c.designs.size(), 2u);
  EXPECT_EQ(c.baseline, 1u);
  EXPECT_EQ(c.measure, solved.measure);
  EXPECT_EQ(c.notes, solved.notes);
  for (std::size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(c.designs[i].analysis.design.eval.iterationNs,
              solved.designs[i].analysis.design.eval.iterationNs);
    EXPECT_EQ(c.designs[i].performance, solved.designs[i].performance);
    EXPECT_EQ(c.designs[i].perfPerCost, solved.designs[i].perfPerCost);
    EXPECT_EQ(c.designs[i].speedup, solved.designs[i].speedup);
    EXPECT_EQ(c.designs[i].costRatio, solved.designs[i].costRatio);
    EXPECT_EQ(c.designs[i].perfPerCostRatio, solved.designs[i].perfPerCostRatio);
  }
  EXPECT_EQ(thrownMessage<InputError>([] { (void)compareAnalyzed({}); }),
            "nothing to compare: give at least one design");
  std::vector<DesignComparison> same{analyzed[0], analyzed[0]};
  EXPECT_THAT(thrownMessage<InputError>([&] { (void)compareAnalyzed(same); }),
              HasSubstr("are both named '500 GB/s'"));
  EXPECT_THAT(thrownMessage<InputError>([&] { (void)compareAnalyzed(analyzed, "fast"); }),
              HasSubstr("no design is named 'fast'"));
}

// Options apply to every design: a --constraint, --no-project-constraints.
TEST(Compare, AnalysisOptionsApplyToEveryDesign) {
  ComparisonOptions options;
  options.analysis.projectConstraints = false;
  options.analysis.extraConstraints = {"total == 250"};
  const Comparison c = compareDesigns(scenarioDesigns(twoBudgets()), options);
  for (const DesignComparison& d : c.designs) {
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d.analysis.constraints, std::vector<std::string>{"total == 250"});
    EXPECT_TRUE(relNear(d.analysis.design.eval.iterationNs, closedFormTime(250), kSolverTolerance));
  }
  EXPECT_TRUE(relNear(*c.designs[1].speedup, 1.0, kSolverTolerance));
}

// GPT-3 175B on LIBRA's 3D network, generated from its preset: the throughput
// is known, so it is the performance; with one workload the throughput ratio is
// the iteration time ratio.
Project gpt3(const std::string& total) {
  Network net;
  net.dims = {makeDim("package", BuildingBlock::Ring, 16, "InterPackage"),
              makeDim("node", BuildingBlock::FullyConnected, 8, "InterNode"),
              makeDim("pod", BuildingBlock::Switch, 32, "InterPod")};
  ProjectOptions options;
  options.constraints = {total};
  options.collectives = CollectiveModel{};  // LIBRA's ideal model
  options.defaultLatencies = false;
  Parallelism parallelism;
  parallelism.tp = 16;
  return makeProject(findPreset("gpt3-175b"), parallelism, findDevice("h100"), net, options);
}

TEST(Compare, ThroughputIsThePerformanceWhenEveryDesignKnowsIt) {
  const std::vector<DesignInput> designs{{"500", "", "", gpt3("total == 500")},
                                         {"1000", "", "", gpt3("total == 1000")}};
  const Comparison c = compareDesigns(designs);
  ASSERT_TRUE(c.complete());
  EXPECT_EQ(c.measure, PerformanceMeasure::TokensPerSecond);
  EXPECT_TRUE(c.notes.empty()) << c.notes.front();
  const DesignComparison& a = c.designs[0];
  const DesignComparison& b = c.designs[1];
  for (const DesignComparison* d : {&a, &b}) {
    const Throughput& t = d->analysis.design.throughput;
    ASSERT_TRUE(t.tokensPerSecond && t.mfu);
    EXPECT_EQ(d->performance, t.tokensPerSecond);
    // 1536 x 2048 tokens per iteration.
    EXPECT_TRUE(relNear(*t.tokensPerSecond,
                        3145728.0 / (d->analysis.design.eval.iterationNs * 1e-9), 1e-12));
  }
  EXPECT_DOUBLE_EQ(*b.speedup, *b.performance / *a.performance);
  EXPECT_TRUE(relNear(
      *b.speedup, a.analysis.design.eval.iterationNs / b.analysis.design.eval.iterationNs, 1e-12));
  EXPECT_GT(*b.speedup, 1.0);

  // With a design whose throughput is unknown, every design is measured in
  // iterations per second, and a note says why.
  const std::vector<DesignInput> mixed{designs[0],
                                       {"imported", "", "", oneCollective({"total == 500"})}};
  const Comparison m = compareDesigns(mixed);
  EXPECT_EQ(m.measure, PerformanceMeasure::IterationsPerSecond);
  ASSERT_EQ(m.notes.size(), 3u);
  EXPECT_THAT(m.notes[0], HasSubstr("iterations per second"));
  EXPECT_THAT(m.notes[0], HasSubstr("'imported'"));
  // And that they are of different sizes and work (issue 28 item 11: a
  // 128-NPU design was '2.601x better' than 4096-NPU ones without a word).
  EXPECT_THAT(m.notes[1], HasSubstr("differ in NPU count"));
  EXPECT_THAT(m.notes[1], HasSubstr("4096 NPUs: '500'"));
  EXPECT_THAT(m.notes[2], HasSubstr("different workloads"));
  EXPECT_THAT(m.notes[2], HasSubstr("GPT-3 175B (3145728 tokens per iteration): '500'"));
  EXPECT_TRUE(relNear(*m.designs[0].performance,
                      1e9 / m.designs[0].analysis.design.eval.iterationNs, 1e-15));
}

// An infeasible design and one the engine refuses (an extra constraint names a
// dimension it does not have) are reported in their rows; the rest is compared.
TEST(Compare, OneDesignsFailureIsItsOwn) {
  Project twoDims = oneCollective({"total == 500"});
  twoDims.network.dims.pop_back();
  twoDims.workloads[0].communicator = makeCommunicator({1, 1}, {1, 1}, {4, 2});
  const std::vector<DesignInput> designs{
      {"good", "a.json", "", oneCollective({"total == 500"})},
      {"no pod", "b.json", "", twoDims},
      {"infeasible", "c.json", "x", oneCollective({"total == 500", "bw[chip] >= 600"})}};
  ComparisonOptions options;
  options.analysis.extraConstraints = {"bw[pod] <= 1000"};
  std::vector<std::size_t> reported;
  options.onAnalysis = [&](std::size_t i, const Analysis&) { reported.push_back(i); };
  const Comparison c = compareDesigns(designs, options);
  EXPECT_EQ(reported, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_FALSE(c.complete());
  ASSERT_TRUE(c.designs[0].ok());
  EXPECT_EQ(c.designs[0].speedup, 1.0);

  const DesignComparison& refused = c.designs[1];
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(refused.refused);
  EXPECT_EQ(refused.analysis.status, SolveStatus::Error);
  EXPECT_EQ(refused.analysis.message,
            "added to every design: constraint 'bw[pod] <= 1000': column 4: no dimension named "
            "'pod' (known: chip, node)");
  const DesignComparison& infeasible = c.designs[2];
  EXPECT_FALSE(infeasible.ok());
  EXPECT_FALSE(infeasible.refused);
  EXPECT_EQ(infeasible.analysis.status, SolveStatus::Infeasible);
  for (const DesignComparison* d : {&refused, &infeasible}) {
    EXPECT_FALSE(d->performance || d->perfPerCost || d->speedup || d->costRatio ||
                 d->perfPerCostRatio);
  }

  // JSON: the same keys for every design, in the same order; null where unknown.
  const Json j = Json::parse(comparisonJson(c));  // NaN would not parse
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_EQ(j["baseline"], "good");
  EXPECT_EQ(j["performance_measure"], "iterations_per_second");
  ASSERT_EQ(j["designs"].size(), 3u);
  std::vector<std::string> keys;
  for (const auto& item : j["designs"][0].items()) keys.push_back(item.key());
  for (const Json& d : j["designs"]) {
    std::vector<std::string> k;
    for (const auto& item : d.items()) k.push_back(item.key());
    EXPECT_EQ(k, keys);
  }
  EXPECT_EQ(j["designs"][0]["status"], "optimal");
  EXPECT_TRUE(j["designs"][0]["message"].is_null());
  EXPECT_EQ(j["designs"][0]["baseline"], true);
  EXPECT_EQ(j["designs"][0]["dimensions"], Json({"chip", "node", "pod"}));
  EXPECT_EQ(j["designs"][1]["status"], "error");
  EXPECT_THAT(j["designs"][1]["message"].get<std::string>(), HasSubstr("'pod'"));
  EXPECT_TRUE(j["designs"][1]["iteration_time_ns"].is_null());
  EXPECT_TRUE(j["designs"][1]["speedup"].is_null());
  EXPECT_EQ(j["designs"][1]["bandwidth_gbps"], Json::array());
  EXPECT_EQ(j["designs"][2]["status"], "infeasible");
  EXPECT_EQ(j["designs"][2]["file"], "c.json");
  EXPECT_EQ(j["designs"][2]["scenario"], "x");

  // CSV: a header and one row per design, each with the header's columns.
  const std::string csv = comparisonCsv(c);
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < csv.size();) {
    const std::size_t end = csv.find('\n', start);
    lines.push_back(csv.substr(start, end - start));
    start = end + 1;
  }
  ASSERT_EQ(lines.size(), 4u);
  auto cells = [](const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      if (ch == ',' && !quoted) {
        out.emplace_back();
      } else {
        out.back() += ch;
      }
    }
    return out;
  };
  EXPECT_THAT(lines[0], HasSubstr("name,file,scenario,status,"));
  EXPECT_THAT(lines[0], HasSubstr(",bw_0_gbps,bw_1_gbps,bw_2_gbps,message"));
  for (std::size_t i = 1; i < 4; ++i) {
    const std::vector<std::string> row = cells(lines[i]);
    EXPECT_EQ(row.size(), cells(lines[0]).size()) << lines[i];
    for (const std::string& cell : row) {
      EXPECT_THAT(cell, ::testing::Not(::testing::AnyOf("inf", "-inf", "nan", "-nan")));
    }
  }
  EXPECT_EQ(lines[2].rfind("no pod,b.json,,error,", 0), 0u) << lines[2];
  EXPECT_THAT(lines[3], HasSubstr("infeasible,c.json,x,infeasible,"));
}

TEST(Compare, ABaselineWithoutResultGivesNoRatios) {
  const std::vector<DesignInput> designs{
      {"good", "", "", oneCollective({"total == 500"})},
      {"infeasible", "", "", oneCollective({"total == 500", "bw[chip] >= 600"})}};
  ComparisonOptions options;
  options.baseline = "infeasible";
  const Comparison c = compareDesigns(designs, options);
  ASSERT_TRUE(c.designs[0].ok());
  EXPECT_TRUE(c.designs[0].performance);
  EXPECT_FALSE(c.designs[0].speedup || c.designs[0].costRatio || c.designs[0].perfPerCostRatio);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "the baseline 'infeasible' has no result (infeasible): no ratios");
}

// Designs that count cost differently are compared, with a note.
TEST(Compare, DifferentCostScopesAreNoted) {
  Project system = oneCollective({"total == 500"});
  system.costScope = CostScope::System;
  system.npuPriceUsd = 1000;
  const std::vector<DesignInput> designs{{"network", "", "", oneCollective({"total == 500"})},
                                         {"system", "", "", system}};
  const Comparison c = compareDesigns(designs);
  ASSERT_TRUE(c.complete());
  // Same optimum; the system cost adds 64 NPUs x $1000.
  EXPECT_TRUE(relNear(*c.designs[1].costRatio, (closedFormCost(500) + 64000) / closedFormCost(500),
                      kSolverTolerance));
  ASSERT_EQ(c.notes.size(), 2u);  // and the measure
  EXPECT_THAT(c.notes[1], HasSubstr("the designs count cost differently (network only: "
                                    "'network'; NPUs and network: 'system')"));
}

TEST(Compare, BadRequestsAreInputErrors) {
  const std::vector<DesignInput> none;
  EXPECT_EQ(thrownMessage<InputError>([&] { (void)compareDesigns(none); }),
            "nothing to compare: give at least one design");
  const std::vector<DesignInput> same{{"a", "", "", oneCollective({"total == 1"})},
                                      {"b", "", "", oneCollective({"total == 2"})},
                                      {"a", "", "", oneCollective({"total == 3"})}};
  EXPECT_EQ(thrownMessage<InputError>([&] { (void)compareDesigns(same); }),
            "designs 1 and 3 are both named 'a'; each design needs its own name");
  const std::vector<DesignInput> two(same.begin(), same.begin() + 2);
  ComparisonOptions options;
  options.baseline = "c";
  EXPECT_EQ(thrownMessage<InputError>([&] { (void)compareDesigns(two, options); }),
            "no design is named 'c' to be the baseline (the designs are 'a', 'b')");
}

TEST(Compare, ScenarioDesignsAreTheScenariosInOrder) {
  Project p = twoBudgets();
  activateScenario(p, 1);
  const std::vector<DesignInput> designs = scenarioDesigns(p, "f.json");
  ASSERT_EQ(designs.size(), 2u);
  EXPECT_EQ(designs[0].name, "500 GB/s");
  EXPECT_EQ(designs[0].project.constraints, std::vector<std::string>{"total == 500"});
  EXPECT_EQ(designs[1].name, "1000 GB/s");
  EXPECT_EQ(designs[1].project.constraints, std::vector<std::string>{"total == 1000"});
  // A project of one unnamed scenario is one design, named after the project.
  const std::vector<DesignInput> one = scenarioDesigns(oneCollective({"total == 1"}));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "one collective");
  EXPECT_EQ(one[0].scenario, "");
}

}  // namespace
}  // namespace libra
