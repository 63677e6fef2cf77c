// `libra compare` on data/scenarios.json (the one-collective project of
// test_golden.cpp in three scenarios: total == 500, total == 1000 and an
// infeasible one) and on single-scenario files: the numbers against the closed
// form, the ratios as quotients of the numbers printed, the names, and the
// errors.
#include <numeric>
#include <sstream>

#include "cli_test_support.hpp"
#include "libra/report/units.hpp"

namespace libra::testing {
namespace {
const std::string kBoth = "500 GB/s,1,000 GB/s";  // a name with a comma in it

std::string scenarios() {
  return dataFile("scenarios.json");
}

const json& design(const json& j, const std::string& name) {
  for (const json& d : j["designs"]) {
    if (d["name"] == name) return d;
  }
  throw std::runtime_error("no design " + name + " in " + j.dump());
}

TEST_F(CliTest, CompareJsonMatchesTheClosedForm) {
  const OneCollective m;
  const std::vector<std::string> args{"compare", scenarios(), "--scenarios", kBoth, "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "compared");
  EXPECT_EQ(j["baseline"], "500 GB/s");
  EXPECT_EQ(j["performance_measure"], "iterations_per_second");
  ASSERT_EQ(j["designs"].size(), 2u);
  EXPECT_EQ(j["designs"][0]["name"], "500 GB/s");
  EXPECT_EQ(j["designs"][1]["name"], "1,000 GB/s");
  for (double budget : {500.0, 1000.0}) {
    const json& d = design(j, budget == 500 ? "500 GB/s" : "1,000 GB/s");
    SCOPED_TRACE(d.dump());
    EXPECT_EQ(d["status"], "optimal");
    EXPECT_EQ(d["file"], scenarios());
    EXPECT_EQ(d["scenario"], d["name"]);
    const auto bw = d["bandwidth_gbps"].get<std::vector<double>>();
    ASSERT_EQ(bw.size(), 3u);
    for (int k = 0; k < 3; ++k)
      EXPECT_REL_NEAR(bw[k], budget * m.v[k] / m.sumV(), kSolverTolerance);
    EXPECT_REL_NEAR(d["iteration_time_ns"].get<double>(), m.time(budget), kSolverTolerance);
    EXPECT_REL_NEAR(d["network_cost_usd"].get<double>(), m.cost(budget), kSolverTolerance);
    EXPECT_REL_NEAR(d["performance"].get<double>(), 1e9 / m.time(budget), kSolverTolerance);
  }
  const json& base = j["designs"][0];
  const json& fast = j["designs"][1];
  EXPECT_EQ(base["speedup"], 1.0);
  EXPECT_EQ(base["baseline"], true);
  EXPECT_EQ(fast["baseline"], false);
  // Against the hand computation ...
  EXPECT_REL_NEAR(fast["speedup"].get<double>(), m.time(500) / m.time(1000), kSolverTolerance);
  EXPECT_REL_NEAR(fast["cost_ratio"].get<double>(), 2.0, kSolverTolerance);
  EXPECT_REL_NEAR(fast["perf_per_cost_ratio"].get<double>(),
                  m.time(500) * m.cost(500) / (m.time(1000) * m.cost(1000)), kSolverTolerance);
  // ... and exactly the quotients of the numbers printed beside them.
  auto num = [](const json& d, const char* key) { return d[key].get<double>(); };
  EXPECT_REL_NEAR(num(fast, "speedup"), num(fast, "performance") / num(base, "performance"), 1e-15);
  EXPECT_REL_NEAR(num(fast, "cost_ratio"), num(fast, "cost_usd") / num(base, "cost_usd"), 1e-15);
  EXPECT_REL_NEAR(num(fast, "perf_per_cost_ratio"),
                  num(fast, "perf_per_cost") / num(base, "perf_per_cost"), 1e-15);
  EXPECT_REL_NEAR(num(fast, "perf_per_cost"), num(fast, "performance") / num(fast, "cost_usd"),
                  1e-15);
}

// The table: one column per design, in the order chosen; ratios in words,
// "slower" and "more expensive" where the design is worse than the baseline.
TEST_F(CliTest, CompareTablePutsTheDesignsSideBySide) {
  const OneCollective m;
  const std::vector<std::string> args{"compare", scenarios(), "--scenarios", kBoth};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const std::vector<std::string> lines = r.outLines();
  auto line = [&](const std::string& label) {
    for (const std::string& l : lines) {
      if (l.rfind(label, 0) == 0) return l;
    }
    ADD_FAILURE() << "no line '" << label << "' in\n" << r.out;
    return std::string();
  };
  EXPECT_TRUE(contains(line("Baseline"), "500 GB/s"));
  const std::string header = lines.at(4);
  EXPECT_LT(header.find("500 GB/s"), header.find("1,000 GB/s")) << header;
  char faster[32];
  std::snprintf(faster, sizeof faster, "%.3fx faster", m.time(500) / m.time(1000));
  EXPECT_TRUE(contains(line("  speed"), "baseline")) << r.out;
  EXPECT_TRUE(contains(line("  speed"), faster)) << r.out;
  EXPECT_TRUE(contains(line("  cost"), "2.000x more expensive")) << r.out;
  EXPECT_TRUE(contains(line("  perf per cost"), "x worse")) << r.out;
  EXPECT_TRUE(contains(line("  total"), "1,000.0")) << r.out;
  // Times in one unit, named in the group's heading (report/comparison_table.hpp).
  EXPECT_TRUE(contains(line("Time per iteration"),
                       "(" + report::timeUnitFor(std::max(m.time(500), m.time(1000))).name + ")"))
      << r.out;
  // ... the first design's (500 GB/s) within the two decimals shown.
  std::istringstream iteration(line("  iteration").substr(std::string("  iteration").size()));
  std::string first;
  iteration >> first;
  first.erase(std::remove(first.begin(), first.end(), ','), first.end());
  const report::Unit timeUnit = report::timeUnitFor(std::max(m.time(500), m.time(1000)));
  EXPECT_NEAR(std::stod(first), timeUnit.of(m.time(500)), 0.0051) << r.out;

  // The other way round: the 500 GB/s design is slower and cheaper.
  const ProcessResult back =
      runLibra({"compare", scenarios(), "--scenarios", kBoth, "--baseline", "1,000 GB/s"});
  ASSERT_EQ(back.exitCode, 0) << back.err;
  char slower[32];
  std::snprintf(slower, sizeof slower, "%.3fx slower", m.time(500) / m.time(1000));
  EXPECT_TRUE(contains(back.out, slower)) << back.out;
  EXPECT_TRUE(contains(back.out, "2.000x cheaper")) << back.out;
  EXPECT_FALSE(contains(back.out, "x faster")) << back.out;
}

// Without --scenarios every scenario is a design: the infeasible one is shown
// with its reason, the others are compared, and the exit code is 1.
TEST_F(CliTest, CompareReportsADesignWithoutSolutionAndGoesOn) {
  const ProcessResult r = runLibra({"compare", scenarios()});
  ASSERT_EQ(r.exitCode, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "infeasible")) << r.out;
  EXPECT_TRUE(contains(r.out, "1.997x faster")) << r.out;
  const auto errors = r.errLines();
  ASSERT_EQ(errors.size(), 1u) << r.err;
  EXPECT_EQ(errors[0].rfind("libra: infeasible: design 'infeasible': ", 0), 0u) << errors[0];
  EXPECT_TRUE(contains(errors[0], "bw[chip] >= 600"));

  const ProcessResult j = runLibra({"compare", scenarios(), "--json"});
  EXPECT_EQ(j.exitCode, 1);
  const json doc = parseJson(j.out);
  EXPECT_EQ(doc["status"], "incomplete");
  EXPECT_EQ(design(doc, "infeasible")["status"], "infeasible");
  EXPECT_TRUE(design(doc, "infeasible")["iteration_time_ns"].is_null());
  EXPECT_TRUE(contains(design(doc, "infeasible")["message"].get<std::string>(), "relax"));
}

TEST_F(CliTest, CompareCsvHasOneRowPerDesign) {
  const ProcessResult r = runLibra({"compare", scenarios(), "--scenarios", kBoth, "--csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto lines = r.outLines();
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0].rfind("name,file,scenario,status,objective,baseline,", 0), 0u);
  EXPECT_TRUE(contains(lines[0], ",bw_0_gbps,bw_1_gbps,bw_2_gbps,message"));
  EXPECT_EQ(lines[1].rfind("500 GB/s,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("\"1,000 GB/s\",", 0), 0u) << lines[2];
  EXPECT_FALSE(contains(r.out, "nan"));
}

// Files of one unnamed scenario are one design each, named after the file;
// files with scenarios add theirs. --scenarios picks from both.
TEST_F(CliTest, CompareFilesAndScenarios) {
  const std::vector<std::string> args{"compare",
                                      dataFile("one_collective.json"),
                                      dataFile("mixed_collectives.json"),
                                      scenarios(),
                                      "--scenarios",
                                      "mixed_collectives,1,000 GB/s,one_collective",
                                      "--json"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  ASSERT_EQ(j["designs"].size(), 3u);
  EXPECT_EQ(j["designs"][0]["name"], "mixed_collectives");
  EXPECT_EQ(j["designs"][0]["scenario"], "");
  EXPECT_EQ(j["designs"][0]["file"], dataFile("mixed_collectives.json"));
  EXPECT_EQ(j["designs"][1]["name"], "1,000 GB/s");
  EXPECT_EQ(j["designs"][2]["name"], "one_collective");
  EXPECT_EQ(j["baseline"], "mixed_collectives");
  // one_collective.json is the 500 GB/s scenario: the same optimum.
  const ProcessResult same = runLibra({"compare", dataFile("one_collective.json"), scenarios(),
                                       "--scenarios", "one_collective,500 GB/s", "--json"});
  ASSERT_EQ(same.exitCode, 0) << same.err;
  const json s = parseJson(same.out);
  EXPECT_REL_NEAR(s["designs"][1]["speedup"].get<double>(), 1.0, 1e-9);
  // The table has a row naming the files when there are several.
  const ProcessResult table =
      runLibra({"compare", dataFile("one_collective.json"), dataFile("mixed_collectives.json")});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "\nFile ")) << table.out;
  EXPECT_TRUE(contains(table.out, "dimension 0")) << "different dimensions:\n" << table.out;
}

// A name two files share is ambiguous until qualified with the file.
TEST_F(CliTest, CompareAmbiguousAndUnknownNamesAreUsageErrors) {
  const std::string text = readText(scenarios());
  writeText(tmp("a.json"), text);
  writeText(tmp("b.json"), text);
  expectUsageError({"compare", tmp("a.json"), tmp("b.json"), "--scenarios", "500 GB/s"},
                   {"--scenarios", "'500 GB/s' is ambiguous", "a:500 GB/s or b:500 GB/s"});
  expectUsageError({"compare", tmp("a.json"), tmp("b.json"), "--baseline", "500 GB/s"},
                   {"--baseline", "ambiguous"});
  const ProcessResult r = runLibra(
      {"compare", tmp("a.json"), tmp("b.json"), "--scenarios", "a:500 GB/s,b:500 GB/s", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = parseJson(r.out);
  EXPECT_EQ(j["designs"][0]["name"], "a:500 GB/s");
  EXPECT_EQ(j["designs"][1]["name"], "b:500 GB/s");

  expectUsageError(
      {"compare", scenarios(), "--scenarios", "500 GB/s,fast"},
      {"--scenarios", "no scenario is named 'fast'", "500 GB/s, 1,000 GB/s, infeasible"});
  expectUsageError({"compare", scenarios(), "--scenarios", "500 GB/s, 500 GB/s"},
                   {"--scenarios", "'500 GB/s' is chosen twice"});
  expectUsageError({"compare", scenarios(), "--scenarios", kBoth, "--baseline", "infeasible"},
                   {"--baseline", "'infeasible' is not among the designs compared"});
  expectUsageError({"compare", scenarios(), scenarios()}, {"is given twice"});
  expectUsageError({"compare", scenarios(), "--json", "--csv"}, {"--json", "--csv"});
  expectUsageError({"compare"}, {"PROJECT"});
  // With --json the error is also a JSON object on stdout.
  const ProcessResult asJson = runLibra({"compare", scenarios(), "--scenarios", "x", "--json"});
  EXPECT_EQ(asJson.exitCode, 2);
  const json e = parseJson(asJson.out);
  EXPECT_EQ(e["status"], "error");
  EXPECT_TRUE(contains(e["message"].get<std::string>(), "no scenario is named 'x'"));
}

// A --constraint applies to every design; one whose network lacks the
// dimension it names is refused (exit 2), the others are still compared.
TEST_F(CliTest, CompareConstraintThatOneDesignCannotTake) {
  const ProcessResult r =
      runLibra({"compare", dataFile("one_collective.json"), dataFile("mixed_collectives.json"),
                "--constraint", "bw[pod] <= 1000", "--json"});
  EXPECT_EQ(r.exitCode, 2);
  const json j = parseJson(r.out);
  EXPECT_EQ(design(j, "one_collective")["status"], "optimal");
  EXPECT_EQ(design(j, "mixed_collectives")["status"], "error");
  EXPECT_TRUE(contains(design(j, "mixed_collectives")["message"].get<std::string>(),
                       "added to every design: constraint 'bw[pod] <= 1000'"));
  const auto errors = r.errLines();
  ASSERT_EQ(errors.size(), 1u) << r.err;
  EXPECT_EQ(errors[0].rfind("libra: error: design 'mixed_collectives': ", 0), 0u) << errors[0];
}

// The other commands read a project with scenarios through its active one.
TEST_F(CliTest, SolveUsesTheActiveScenario) {
  const OneCollective m;
  const ProcessResult r = runLibra({"solve", scenarios(), "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = parseJson(r.out);
  EXPECT_EQ(j["constraints"], json({"total == 1000"}));
  EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>(), m.time(1000), kSolverTolerance);
  EXPECT_EQ(j["scenario"], "1,000 GB/s");
}

// --scenario picks another one for solve, evaluate, pareto and export-astra-sim.
TEST_F(CliTest, ScenarioFlagChoosesTheScenario) {
  const OneCollective m;
  const ProcessResult r = runLibra({"solve", scenarios(), "--scenario", "500 GB/s", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = parseJson(r.out);
  EXPECT_EQ(j["scenario"], "500 GB/s");
  EXPECT_EQ(j["constraints"], json({"total == 500"}));
  EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>(), m.time(500), kSolverTolerance);
  const ProcessResult table = runLibra({"solve", scenarios(), "--scenario", "500 GB/s"});
  EXPECT_TRUE(contains(table.out, "\nScenario          500 GB/s\n")) << table.out;
  const ProcessResult pareto =
      runLibra({"pareto", scenarios(), "--scenario", "500 GB/s", "--points", "3", "--json"});
  ASSERT_EQ(pareto.exitCode, 0) << pareto.err;
  EXPECT_EQ(parseJson(pareto.out)["scenario"], "500 GB/s");
  const ProcessResult evaluate = runLibra(
      {"evaluate", scenarios(), "--scenario", "infeasible", "--bandwidth", "600,10,10", "--json"});
  ASSERT_EQ(evaluate.exitCode, 0) << evaluate.err;
  EXPECT_EQ(parseJson(evaluate.out)["violated_constraints"], json({"total == 500"}));

  expectUsageError({"solve", scenarios(), "--scenario", "fast"},
                   {"--scenario", "has no scenario named 'fast'",
                    "(its scenarios are '500 GB/s', '1,000 GB/s', 'infeasible')"});
  expectUsageError({"solve", dataFile("one_collective.json"), "--scenario", "fast"},
                   {"--scenario", "(it has one unnamed scenario)"});
}

}  // namespace
}  // namespace libra::testing
