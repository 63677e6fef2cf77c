// Golden checks of `libra` on small hand-written projects: the numbers printed
// must match the closed forms of spec/model.md, computed here independently.
#include <algorithm>
#include <numeric>
#include <utility>

#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

class SolveClosedForm : public CliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(SolveClosedForm, JsonMatchesTheClosedFormOfOneCollective) {
  const OneCollective m;
  const std::vector<std::string> args{"solve", dataFile("one_collective.json"), "--json",
                                      "--solver", GetParam()};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());

  // The fixed keys of spec/cli.md.
  for (const char* key : {"status", "objective", "bandwidth_gbps", "iteration_time_ns",
                          "compute_time_ns", "communication_time_ns", "network_cost_usd"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["status"], "optimal");
  EXPECT_EQ(j["objective"], "performance");
  EXPECT_FALSE(j.contains("message"));
  EXPECT_EQ(j["solver"], GetParam());

  const std::vector<double> expected = m.optimalBandwidth();
  const auto bw = j["bandwidth_gbps"].get<std::vector<double>>();
  ASSERT_EQ(bw.size(), 3u);
  for (int d = 0; d < 3; ++d) EXPECT_REL_NEAR(bw[d], expected[d], kSolverTolerance) << "dim " << d;

  const double comm = m.sumV() / OneCollective::kBudget;
  EXPECT_REL_NEAR(j["communication_time_ns"].get<double>(), comm, kSolverTolerance);
  EXPECT_REL_NEAR(j["compute_time_ns"].get<double>(), OneCollective::kComputeNs, 1e-12);
  EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>(), OneCollective::kComputeNs + comm,
                  kSolverTolerance);
  EXPECT_REL_NEAR(j["network_cost_usd"].get<double>(),
                  networkCost(OneCollective::kNpus, m.price, expected), kSolverTolerance);

  // Extras: names and per-dimension busy time (every dimension takes sum V / B).
  EXPECT_EQ(j["dimensions"], json({"chip", "node", "pod"}));
  const auto busy = j["busy_time_ns"].get<std::vector<double>>();
  ASSERT_EQ(busy.size(), 3u);
  for (double b : busy) EXPECT_REL_NEAR(b, comm, kSolverTolerance);

  // The equal split of the same total: 500 / 3 on each dimension.
  ASSERT_TRUE(j.contains("equal_split"));
  const double third = OneCollective::kBudget / 3;
  const double equalTime = OneCollective::kComputeNs + collectiveTime(m.v, {third, third, third});
  EXPECT_REL_NEAR(j["equal_split"]["iteration_time_ns"].get<double>(), equalTime, 1e-12);
  EXPECT_REL_NEAR(j["equal_split"]["speedup"].get<double>(),
                  equalTime / (OneCollective::kComputeNs + comm), kSolverTolerance);
}

// `sensitivity` (spec/cli.md): under `total == B` alone, T = c + sum V / B, so
// one more GB/s of the total is worth -sum V / B^2 ns; a cap above the
// optimum's bandwidth does not bind. The table says the same.
TEST_P(SolveClosedForm, SensitivityIsTheDerivativeOfTheTimeInEachConstraint) {
  const OneCollective m;
  const std::vector<std::string> args{"solve",         dataFile("one_collective.json"),
                                      "--json",        "--solver",
                                      GetParam(),      "--constraint",
                                      "bw[pod] <= 400"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.contains("sensitivity"));
  const json& list = j["sensitivity"];
  ASSERT_TRUE(list.is_array());
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["constraint"], "total == 500");
  EXPECT_EQ(list[0]["unit"], "GB/s");
  EXPECT_EQ(list[0]["binding"], true);
  // Each rate is a difference of re-solves over the step the JSON gives: the
  // exact difference of v(B) = c + sum V / B up and down.
  const double B = OneCollective::kBudget;
  auto v = [&](double b) { return m.sumV() / b; };
  auto up = [&](double h) { return (v(B + h) - v(B)) / h; };
  auto down = [&](double h) { return (v(B) - v(B - h)) / h; };
  const double h = list[0]["step"].get<double>();
  EXPECT_REL_NEAR(h, 1e-4 * B, 1e-12);
  EXPECT_REL_NEAR(list[0]["ns_per_unit"].get<double>(), up(h), 1e-5);
  EXPECT_REL_NEAR(list[0]["ns_per_unit_down"].get<double>(), down(h), 1e-5);
  EXPECT_EQ(list[1]["constraint"], "bw[pod] <= 400");
  EXPECT_EQ(list[1]["binding"], false);
  EXPECT_EQ(list[1]["ns_per_unit"].get<double>(), 0.0);
  EXPECT_EQ(list[1]["ns_per_unit_down"].get<double>(), 0.0);
  // Balanced: a GB/s is worth the same on each dimension.
  EXPECT_EQ(j["bottlenecks"], json({"chip", "node", "pod"}));
  for (const json& d : j["dimension_sensitivity"]) {
    const double step = d["step_gbps"].get<double>();
    EXPECT_REL_NEAR(d["ns_per_gbps"].get<double>(), up(step), 1e-5);
    EXPECT_REL_NEAR(d["ns_per_gbps_down"].get<double>(), down(step), 1e-5);
  }

  const ProcessResult table = runLibra({"solve", dataFile("one_collective.json"), "--solver",
                                        GetParam(), "--constraint", "bw[pod] <= 400"});
  ASSERT_EQ(table.exitCode, 0);
  EXPECT_NE(table.out.find("Sensitivity: iteration time per unit of each constraint"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("total == 500"), std::string::npos);
  EXPECT_NE(table.out.find(" per GB/s"), std::string::npos);
  EXPECT_NE(table.out.find("balanced"), std::string::npos);

  // An evaluated design is not an optimum: nothing is re-solved.
  const ProcessResult e = runLibra(
      {"evaluate", dataFile("one_collective.json"), "--bandwidth", "200,200,100", "--json"});
  ASSERT_EQ(e.exitCode, 0);
  EXPECT_FALSE(parseJson(e.out).contains("sensitivity"));
}

// --no-sensitivity: the same answer without the re-solves; the JSON's list is
// empty and its note says why, and the table says the same. (Not IPOPT with
// perf per cost: the rates it would compare against take a minute under
// AddressSanitizer, and the flag does not depend on the backend.)
TEST_F(CliTest, NoSensitivityGivesTheSameAnswerWithoutRates) {
  for (const auto& [solver, objective] :
       {std::pair{"native", "performance"}, std::pair{"native", "perf-per-cost"},
        std::pair{"ipopt", "performance"}}) {
    SCOPED_TRACE(std::string(solver) + ", " + objective);
    const std::vector<std::string> base{
        "solve",  dataFile("one_collective.json"), "--solver", solver, "--json", "--objective",
        objective};
    std::vector<std::string> skip = base;
    skip.emplace_back("--no-sensitivity");
    const ProcessResult with = runLibra(base);
    const ProcessResult without = runLibra(skip);
    ASSERT_EQ(with.exitCode, 0) << describe(base, with);
    ASSERT_EQ(without.exitCode, 0) << describe(skip, without);
    EXPECT_EQ(without.err, "");
    json a = parseJson(with.out), b = parseJson(without.out);
    ASSERT_FALSE(a["sensitivity"].empty());
    EXPECT_TRUE(b["sensitivity"].empty());
    EXPECT_TRUE(b["dimension_sensitivity"].empty());
    EXPECT_EQ(b["sensitivity_note"], "not requested");
    for (const char* key : {"bandwidth_gbps", "iteration_time_ns", "network_cost_usd"}) {
      EXPECT_EQ(a[key], b[key]) << key;
    }
  }
  const ProcessResult table =
      runLibra({"solve", dataFile("one_collective.json"), "--no-sensitivity"});
  ASSERT_EQ(table.exitCode, 0);
  EXPECT_TRUE(contains(table.out, "not computed: not requested")) << table.out;
}

INSTANTIATE_TEST_SUITE_P(Backends, SolveClosedForm, ::testing::Values("native", "ipopt"));

TEST_F(CliTest, ExtraConstraintByNameIsAddedToTheProjects) {
  // With bw[pod] == 100 the pod takes V_pod / 100 and the other two share 400 in
  // proportion to their traffic; the slower of the two sets the time.
  const OneCollective m;
  const std::vector<std::string> args{"solve", dataFile("one_collective.json"), "--constraint",
                                      "bw[pod] == 100", "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  const auto bw = j["bandwidth_gbps"].get<std::vector<double>>();
  ASSERT_EQ(bw.size(), 3u);
  const double rest = m.v[0] + m.v[1];
  EXPECT_REL_NEAR(bw[2], 100.0, kSolverTolerance);
  EXPECT_REL_NEAR(bw[0], 400 * m.v[0] / rest, kSolverTolerance);
  EXPECT_REL_NEAR(bw[1], 400 * m.v[1] / rest, kSolverTolerance);
  EXPECT_REL_NEAR(j["communication_time_ns"].get<double>(), std::max(m.v[2] / 100, rest / 400),
                  kSolverTolerance);
}

// evaluate compares a design with the equal split of the SAME total (not the
// project's budget), says it was not optimized, and flags the constraints both
// break. At 400/300/200 (900 GB/s, the project says total == 500) the equal
// split is 300 on each dimension; times by hand from the traffic vector.
TEST_F(CliTest, EvaluateComparesWithTheEqualSplitOfTheSameTotal) {
  const OneCollective m;
  const std::vector<std::string> args{"evaluate", dataFile("one_collective.json"), "--bandwidth",
                                      "400,300,200", "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  EXPECT_EQ(j["status"], "evaluated");
  const double designTime = OneCollective::kComputeNs + collectiveTime(m.v, {400, 300, 200});
  const double equalTime = OneCollective::kComputeNs + collectiveTime(m.v, {300, 300, 300});
  EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>(), designTime, 1e-12);
  EXPECT_EQ(j["equal_split"]["bandwidth_gbps"], json({300.0, 300.0, 300.0}));
  EXPECT_REL_NEAR(j["equal_split"]["iteration_time_ns"].get<double>(), equalTime, 1e-12);
  EXPECT_REL_NEAR(j["equal_split"]["speedup"].get<double>(), equalTime / designTime, 1e-12);
  EXPECT_EQ(j["violated_constraints"], json({"total == 500"}));
  EXPECT_EQ(j["equal_split"]["satisfies_constraints"], false);
  EXPECT_EQ(j["equal_split"]["violated_constraints"], json({"total == 500"}));

  const ProcessResult text =
      runLibra({"evaluate", dataFile("one_collective.json"), "--bandwidth", "400,300,200"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "evaluated (not optimized)")) << text.out;
  EXPECT_FALSE(contains(text.out, "Objective")) << "nothing was optimized:\n" << text.out;
  EXPECT_TRUE(contains(text.out, "300.000 GB/s on each dimension (same total)")) << text.out;
}

// Ratios read the right way round (issue 10: "communication 0.81x faster than
// the equal split" meant slower). At 100/400/400 the chip dimension paces the
// collective: 1.5e9 / 100 ns against 1.5e9 / 300 for the equal split of the
// same 900 GB/s, so the design is slower, and dearer per unit of time x cost.
TEST_F(CliTest, EvaluateSaysSlowerWhenTheEqualSplitIsFaster) {
  const OneCollective m;
  const std::vector<double> design{100, 400, 400}, equal{300, 300, 300};
  const double designTime = OneCollective::kComputeNs + collectiveTime(m.v, design);
  const double equalTime = OneCollective::kComputeNs + collectiveTime(m.v, equal);
  const double designCost = networkCost(OneCollective::kNpus, m.price, design);
  const double equalCost = networkCost(OneCollective::kNpus, m.price, equal);
  ASSERT_GT(designTime, equalTime);
  char perIteration[48], communication[48], timeCost[48];
  std::snprintf(perIteration, sizeof perIteration, "%.3fx slower per iteration",
                designTime / equalTime);
  std::snprintf(communication, sizeof communication, "%.3fx slower",
                collectiveTime(m.v, design) / collectiveTime(m.v, equal));
  std::snprintf(timeCost, sizeof timeCost, "%.3fx worse",
                designTime * designCost / (equalTime * equalCost));
  const std::vector<std::string> args{"evaluate",    dataFile("one_collective.json"),
                                      "--bandwidth", "100,400,400",
                                      "--objective", "perf-per-cost"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  auto line = [&](const std::string& label) {
    for (const std::string& l : r.outLines()) {
      if (l.rfind(label, 0) == 0) return l;
    }
    ADD_FAILURE() << "no line '" << label << "'";
    return std::string();
  };
  EXPECT_TRUE(contains(line("  this design is"), perIteration)) << r.out;
  EXPECT_TRUE(contains(line("  communication"), communication)) << r.out;
  EXPECT_TRUE(contains(line("  time x cost"), timeCost)) << r.out;
  EXPECT_FALSE(contains(r.out, "faster")) << r.out;
  EXPECT_FALSE(contains(r.out, "better")) << r.out;
}

// evaluate --no-project-constraints checks the design against the given
// constraints only (here none): nothing is violated, not even total == 500.
TEST_F(CliTest, EvaluateWithoutProjectConstraints) {
  const std::vector<std::string> args{"evaluate",    dataFile("one_collective.json"), "--bandwidth",
                                      "400,300,200", "--no-project-constraints",      "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  EXPECT_EQ(j["constraints"], json::array());
  EXPECT_EQ(j["violated_constraints"], json::array());
  EXPECT_EQ(j["equal_split"]["satisfies_constraints"], true);
  const ProcessResult other =
      runLibra({"evaluate", dataFile("one_collective.json"), "--bandwidth", "400,300,200",
                "--no-project-constraints", "--constraint", "total == 900", "--json"});
  ASSERT_EQ(other.exitCode, 0) << other.err;
  EXPECT_EQ(parseJson(other.out)["violated_constraints"], json::array());
}

// The equal split is always reported; when it breaks a constraint it says which.
TEST_F(CliTest, EqualSplitThatBreaksAConstraintIsFlagged) {
  const std::vector<std::string> args{"solve", dataFile("one_collective.json"), "--constraint",
                                      "bw[pod] == 100", "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  EXPECT_EQ(j["equal_split"]["satisfies_constraints"], false);
  EXPECT_EQ(j["equal_split"]["violated_constraints"], json({"bw[pod] == 100"}));
  const ProcessResult text =
      runLibra({"solve", dataFile("one_collective.json"), "--constraint", "bw[pod] == 100"});
  EXPECT_TRUE(contains(text.out, "breaks bw[pod] == 100")) << text.out;
}

// --no-project-constraints: only the --constraint expressions apply, so a study
// can try another budget without editing the file. Under total == 300 alone a
// single collective takes sum V / 300.
TEST_F(CliTest, NoProjectConstraintsUsesOnlyTheGivenOnes) {
  const OneCollective m;
  const std::vector<std::string> args{"solve",
                                      dataFile("one_collective.json"),
                                      "--no-project-constraints",
                                      "--constraint",
                                      "total == 300",
                                      "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  EXPECT_EQ(j["constraints"], json({"total == 300"}));
  EXPECT_REL_NEAR(j["communication_time_ns"].get<double>(), m.sumV() / 300, kSolverTolerance);
  // Without any constraint nothing limits the bandwidth.
  const ProcessResult none =
      runLibra({"solve", dataFile("one_collective.json"), "--no-project-constraints"});
  EXPECT_EQ(none.exitCode, 1);
  EXPECT_TRUE(contains(none.err, "unbounded")) << none.err;
}

TEST_F(CliTest, ObjectiveFlagOverridesTheProjects) {
  // Under "total <= 300" time x cost favours less, and cheaper, bandwidth.
  const std::string project = dataFile("mixed_collectives.json");
  const ProcessResult perf = runLibra({"solve", project, "--json"});
  const ProcessResult ppc = runLibra({"solve", project, "--json", "--objective", "perf-per-cost"});
  ASSERT_EQ(perf.exitCode, 0) << perf.err;
  ASSERT_EQ(ppc.exitCode, 0) << ppc.err;
  const json a = parseJson(perf.out), b = parseJson(ppc.out);
  EXPECT_EQ(a["objective"], "performance");
  EXPECT_EQ(b["objective"], "perf-per-cost");
  const double timeA = a["iteration_time_ns"], costA = a["network_cost_usd"];
  const double timeB = b["iteration_time_ns"], costB = b["network_cost_usd"];
  // Each optimum is the best at its own objective.
  EXPECT_LE(timeA, timeB * (1 + 1e-9));
  EXPECT_LE(timeB * costB, timeA * costA * (1 + 1e-9));
  EXPECT_LT(costB, costA);
}

TEST_F(CliTest, TableShowsTheColumnsDimensionsAndTotals) {
  const std::vector<std::string> args{"solve", dataFile("one_collective.json")};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_FALSE(contains(r.out, "\x1b[")) << "no colours when stdout is not a terminal";
  const std::vector<std::string> parts{"one collective",
                                       "performance",
                                       "optimal",
                                       "#",
                                       "name",
                                       "block",
                                       "NPUs",
                                       "bandwidth (GB/s)",
                                       "busy time (ms)",
                                       "cost share",
                                       "chip",
                                       "node",
                                       "pod",
                                       "Ring",
                                       "FullyConnected",
                                       "Switch",
                                       "Iteration time",
                                       "compute",
                                       "exposed communication",
                                       "Network cost",
                                       "$",
                                       "Equal split",
                                       "same total",
                                       "this design is"};
  for (const std::string& part : parts) {
    EXPECT_TRUE(contains(r.out, part)) << "missing: " << part;
  }
  // Rows of the table: the dimension's values in the order of the columns.
  const OneCollective m;
  const auto bw = m.optimalBandwidth();
  char expectedBw[32];
  std::snprintf(expectedBw, sizeof expectedBw, "%.3f", bw[0]);
  bool found = false;
  for (const std::string& line : r.outLines()) {
    if (contains(line, " chip ") && contains(line, "Ring") && contains(line, expectedBw)) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "no table row for chip with " << expectedBw << " GB/s";
  // Columns line up: the header's "NPUs" ends where each row's NPU count ends.
  const auto lines = r.outLines();
  const auto header = std::find_if(lines.begin(), lines.end(),
                                   [](const std::string& l) { return contains(l, "NPUs"); });
  ASSERT_NE(header, lines.end());
  const std::size_t npusEnd = header->find("NPUs") + 4;
  for (auto it = header + 1; it != header + 4 && it != lines.end(); ++it) {
    ASSERT_GE(it->size(), npusEnd);
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>((*it)[npusEnd - 1]))) << *it;
    EXPECT_EQ((*it)[npusEnd], ' ') << *it;
  }
}

TEST_F(CliTest, PerfPerCostTableShowsTimeTimesCost) {
  const ProcessResult r =
      runLibra({"solve", dataFile("one_collective.json"), "--objective", "perf-per-cost"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "perf-per-cost"));
  EXPECT_TRUE(contains(r.out, "Time x cost"));
}

// data/mixed_collectives.json: inner Ring(4) at $2, outer Switch(4) at $57.4 per
// GB/s; communicator forward/input gradient [4, 1], weight gradient [1, 4].
struct Mixed {
  static constexpr double kNpus = 16;
  const std::vector<double> price{2, 7.8 + 18 + 31.6};
  struct Phase {
    double computeNs;
    std::vector<double> v;  // empty: no collective
    bool forward;
  };
  std::vector<Phase> phases{
      {100, traffic(Coll::AllGather, 4e6, {4, 1}), true},
      {200, traffic(Coll::ReduceScatter, 8e6, {4, 1}), false},
      {300, traffic(Coll::AllReduce, 1.6e7, {1, 4}), false},
      {400, traffic(Coll::AllToAll, 2e6, {4, 1}), true},
      {600, {}, false},
      {500, traffic(Coll::AllReduce, 8e6, {1, 4}), false},
  };
  // no-overlap: every phase once; recompute: the forward pass once more.
  double iterationNs(const std::vector<double>& bw, bool recompute) const {
    double t = 0;
    for (const Phase& p : phases) {
      const double once = p.computeNs + (p.v.empty() ? 0 : collectiveTime(p.v, bw));
      t += (recompute && p.forward) ? 2 * once : once;
    }
    return t;
  }
  double computeNs() const {
    double t = 0;
    for (const Phase& p : phases) t += p.computeNs;
    return t;
  }
  std::vector<double> busyNs(const std::vector<double>& bw) const {
    std::vector<double> busy(2, 0.0);
    for (const Phase& p : phases) {
      for (std::size_t d = 0; d < p.v.size(); ++d) busy[d] += p.v[d] / bw[d];
    }
    return busy;
  }
};

TEST_F(CliTest, EvaluateMatchesHandComputedTimeAndCost) {
  const Mixed m;
  const std::vector<double> bw{100, 50};
  const std::vector<std::string> args{"evaluate", dataFile("mixed_collectives.json"), "--bandwidth",
                                      "100,50", "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  const json j = parseJson(r.out);
  EXPECT_EQ(j["status"], "evaluated");
  EXPECT_EQ(j["objective"], "performance");
  EXPECT_EQ(j["bandwidth_gbps"], json({100.0, 50.0}));
  EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>(), m.iterationNs(bw, false), 1e-12);
  EXPECT_REL_NEAR(j["compute_time_ns"].get<double>(), m.computeNs(), 1e-12);
  EXPECT_REL_NEAR(j["communication_time_ns"].get<double>(),
                  m.iterationNs(bw, false) - m.computeNs(), 1e-12);
  EXPECT_REL_NEAR(j["network_cost_usd"].get<double>(), networkCost(Mixed::kNpus, m.price, bw),
                  1e-12);
  const auto busy = j["busy_time_ns"].get<std::vector<double>>();
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_REL_NEAR(busy[0], m.busyNs(bw)[0], 1e-12);
  EXPECT_REL_NEAR(busy[1], m.busyNs(bw)[1], 1e-12);
  EXPECT_EQ(j["violated_constraints"], json::array());
}

TEST_F(CliTest, EvaluateCountsTheForwardPassTwiceWithRecompute) {
  const Mixed m;
  const std::string project = variant("mixed_collectives.json", "recompute.json",
                                      [](json& doc) { doc["training_loop"] = "recompute"; });
  const ProcessResult r = runLibra({"evaluate", project, "--bandwidth", "120, 80", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = parseJson(r.out);
  EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>(), m.iterationNs({120, 80}, true), 1e-12);
}

TEST_F(CliTest, EvaluateReportsBrokenConstraintsButSucceeds) {
  const ProcessResult r =
      runLibra({"evaluate", dataFile("mixed_collectives.json"), "--bandwidth", "10,50", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = parseJson(r.out);
  EXPECT_EQ(j["violated_constraints"], json({"bw[inner] >= 20"}));

  const ProcessResult table =
      runLibra({"evaluate", dataFile("mixed_collectives.json"), "--bandwidth", "10,50"});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "evaluated"));
  EXPECT_TRUE(contains(table.out, "violated"));
  EXPECT_TRUE(contains(table.out, "bw[inner] >= 20"));
}

TEST_F(CliTest, EvaluateWithoutBandwidthOnAUsedDimensionIsInfinite) {
  const ProcessResult r =
      runLibra({"evaluate", dataFile("mixed_collectives.json"), "--bandwidth", "0,50"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "has no bandwidth, so the time is infinite")) << r.out;
  // No "inf" or "nan" token in any cell: every "inf" is the word "infinite".
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = r.out.find(what); at != std::string::npos; at = r.out.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("inf"), count("infinite")) << r.out;
  EXPECT_FALSE(contains(r.out, "nan")) << r.out;
}

class ParetoTest : public CliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(ParetoTest, JsonHasNPointsInIncreasingCostAndTheOptimum) {
  constexpr int kPoints = 7;
  const std::vector<std::string> args{"pareto",   dataFile("one_collective.json"),
                                      "--points", std::to_string(kPoints),
                                      "--json",   "--solver",
                                      GetParam()};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.contains("points"));
  ASSERT_TRUE(j.contains("perf_per_cost_optimum"));
  const json& points = j["points"];
  ASSERT_EQ(points.size(), static_cast<std::size_t>(kPoints));
  double bestTimeCost = INFINITY;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    for (const char* key : {"network_cost_usd", "iteration_time_ns", "bandwidth_gbps"}) {
      ASSERT_TRUE(p.contains(key)) << key << " in point " << i;
    }
    const auto bw = p["bandwidth_gbps"].get<std::vector<double>>();
    ASSERT_EQ(bw.size(), 3u);
    // Every point keeps the project's total == 500.
    EXPECT_REL_NEAR(bw[0] + bw[1] + bw[2], 500.0, 1e-6);
    if (i > 0) {
      EXPECT_GT(p["network_cost_usd"].get<double>(),
                points[i - 1]["network_cost_usd"].get<double>());
      EXPECT_LE(p["iteration_time_ns"].get<double>(),
                points[i - 1]["iteration_time_ns"].get<double>() * (1 + 1e-9));
    }
    bestTimeCost = std::min(
        bestTimeCost, p["iteration_time_ns"].get<double>() * p["network_cost_usd"].get<double>());
  }
  // The last point is the performance optimum (the closed form).
  const OneCollective m;
  EXPECT_REL_NEAR(points.back()["iteration_time_ns"].get<double>(),
                  OneCollective::kComputeNs + m.sumV() / OneCollective::kBudget, 1e-6);
  const json& best = j["perf_per_cost_optimum"];
  for (const char* key : {"network_cost_usd", "iteration_time_ns", "bandwidth_gbps"}) {
    ASSERT_TRUE(best.contains(key)) << key;
  }
  EXPECT_LE(best["iteration_time_ns"].get<double>() * best["network_cost_usd"].get<double>(),
            bestTimeCost * (1 + 1e-9));
}

INSTANTIATE_TEST_SUITE_P(Backends, ParetoTest, ::testing::Values("native", "ipopt"));

TEST_F(CliTest, ParetoCsvHasAHeaderAndOneRowPerPoint) {
  constexpr int kPoints = 9;
  const ProcessResult r = runLibra(
      {"pareto", dataFile("one_collective.json"), "--points", std::to_string(kPoints), "--csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto lines = r.outLines();
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kPoints + 1));
  EXPECT_EQ(lines[0],
            "network_cost_usd,iteration_time_ns,bw_chip_gbps,bw_node_gbps,bw_pod_gbps,"
            "perf_per_cost_optimum,tokens_per_second,model_tflops_per_npu,mfu,time_to_train_s");
  int marked = 0;
  std::size_t markedRow = 0;
  double bestTimeCost = INFINITY;
  std::size_t bestRow = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells;
    std::stringstream row(lines[i]);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    // The four throughput columns are empty: the project's workload has no
    // preset, so its tokens are unknown (getline yields no field after the last
    // comma: 6 + 4 - 1 cells).
    ASSERT_EQ(cells.size(), 9u) << lines[i];
    EXPECT_EQ(lines[i].substr(lines[i].size() - 4), ",,,,") << lines[i];
    const double cost = std::stod(cells[0]), time = std::stod(cells[1]);
    if (cost * time < bestTimeCost) {
      bestTimeCost = cost * time;
      bestRow = i;
    }
    ASSERT_TRUE(cells[5] == "0" || cells[5] == "1") << lines[i];
    if (cells[5] == "1") {
      ++marked;
      markedRow = i;
    }
  }
  EXPECT_EQ(marked, 1);
  EXPECT_EQ(markedRow, bestRow) << "the mark sits on the least time x cost";
}

TEST_F(CliTest, ParetoTableMarksTheOptimum) {
  const ProcessResult r = runLibra({"pareto", dataFile("one_collective.json"), "--points", "4"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* part : {"network cost", "iteration time (ms)", "chip (GB/s)", "pod (GB/s)", "*",
                           "Perf-per-cost optimum"}) {
    EXPECT_TRUE(contains(r.out, part)) << "missing: " << part;
  }
}

TEST_F(CliTest, HelpDescribesUnitsAndExamples) {
  const ProcessResult top = runLibra({"--help"});
  ASSERT_EQ(top.exitCode, 0);
  EXPECT_EQ(top.err, "");
  for (const char* part :
       {"import-libra", "solve", "evaluate", "pareto", "GB/s", "ns", "dollars", "Examples"}) {
    EXPECT_TRUE(contains(top.out, part)) << "libra --help lacks " << part;
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands{
      {"import-libra",
       {"--network", "--workload", "--communicator", "--cost-model", "--training-loop", "--name",
        "-o", "--constraint", "Examples"}},
      {"solve",
       {"PROJECT", "--objective", "--constraint", "--solver", "--json", "GB/s", "Examples",
        "total == 500"}},
      {"evaluate", {"PROJECT", "--bandwidth", "--json", "GB/s", "Examples"}},
      {"pareto",
       {"PROJECT", "--points", "--constraint", "--json", "--csv", "--solver", "Examples"}},
  };
  for (const auto& [command, parts] : commands) {
    const ProcessResult r = runLibra({command, "--help"});
    EXPECT_EQ(r.exitCode, 0) << command;
    EXPECT_EQ(r.err, "") << command;
    for (const std::string& part : parts) {
      EXPECT_TRUE(contains(r.out, part)) << "libra " << command << " --help lacks " << part;
    }
  }
}

TEST_F(CliTest, VersionPrintsTheVersion) {
  const ProcessResult r = runLibra({"--version"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out.rfind("libra ", 0), 0u) << r.out;
  EXPECT_EQ(r.outLines().size(), 1u);
}

// --- import-libra on small reference-format inputs (data/libra) --------------

TEST_F(CliTest, ImportLibraWritesAProjectThatSolvesToTheClosedForm) {
  const std::string out = tmp("tiny.json");
  const std::vector<std::string> args{"import-libra",
                                      "--network",
                                      dataFile("libra/tiny_network.yml"),
                                      "--workload",
                                      dataFile("libra/tiny_workload.txt"),
                                      "--communicator",
                                      dataFile("libra/tiny_communicator.yml"),
                                      "--cost-model",
                                      dataFile("libra/tiny_cost_model.yml"),
                                      "--name",
                                      "tiny",
                                      "-o",
                                      out};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_TRUE(contains(r.out, out));
  // The default budget is announced as a note.
  for (const std::string& line : r.errLines()) EXPECT_EQ(line.rfind("note: ", 0), 0u) << line;
  EXPECT_TRUE(contains(r.err, "total == 500"));

  const json project = json::parse(readText(out));
  EXPECT_EQ(project["format"], "libra-project");
  EXPECT_EQ(project["name"], "tiny");
  EXPECT_EQ(project["constraints"], json({"total == 500"}));

  // Same network, prices and collective as data/one_collective.json.
  const OneCollective m;
  const ProcessResult solved = runLibra({"solve", out, "--json"});
  ASSERT_EQ(solved.exitCode, 0) << solved.err;
  const json j = parseJson(solved.out);
  const auto bw = j["bandwidth_gbps"].get<std::vector<double>>();
  const auto expected = m.optimalBandwidth();
  ASSERT_EQ(bw.size(), 3u);
  for (int d = 0; d < 3; ++d) EXPECT_REL_NEAR(bw[d], expected[d], kSolverTolerance);
  EXPECT_REL_NEAR(j["network_cost_usd"].get<double>(),
                  networkCost(OneCollective::kNpus, m.price, expected), kSolverTolerance);
}

TEST_F(CliTest, ImportLibraConstraintsReplaceTheDefaultBudget) {
  const std::string out = tmp("tiny.json");
  const ProcessResult r =
      runLibra({"import-libra", "--network", dataFile("libra/tiny_network.yml"), "--workload",
                dataFile("libra/tiny_workload.txt"), "--constraint", "total == 1000", "--objective",
                "perf-per-cost", "-o", out, "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "total == 500")) << "no note about a budget that is not there";
  for (const std::string& line : r.errLines()) EXPECT_EQ(line.rfind("note: ", 0), 0u) << line;
  const json summary = parseJson(r.out);
  EXPECT_EQ(summary["status"], "written");
  const json project = json::parse(readText(out));
  EXPECT_EQ(project["constraints"], json({"total == 1000"}));
  EXPECT_EQ(project["objective"], "perf-per-cost");

  // Without a communicator: data parallel over every NPU, the same AllReduce.
  const ProcessResult solved = runLibra({"solve", out, "--json", "--objective", "performance"});
  ASSERT_EQ(solved.exitCode, 0) << solved.err;
  const OneCollective m;
  const auto bw = parseJson(solved.out)["bandwidth_gbps"].get<std::vector<double>>();
  const auto expected = m.optimalBandwidth(1000);
  ASSERT_EQ(bw.size(), 3u);
  for (int d = 0; d < 3; ++d) EXPECT_REL_NEAR(bw[d], expected[d], kSolverTolerance);
}

TEST_F(CliTest, ImportLibraWithABadConstraintWritesNothing) {
  const std::string out = tmp("never.json");
  expectUsageError(
      {"import-libra", "--network", dataFile("libra/tiny_network.yml"), "--workload",
       dataFile("libra/tiny_workload.txt"), "--constraint", "bw[rack] <= 5", "-o", out},
      {"--constraint", "rack"});
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace libra::testing
