// Bad usage and bad input give exit 2 and one line on stderr that says what and
// where; problems without a solution give exit 1 and say what to add or relax.
#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

struct BadInput {
  std::string name;
  std::vector<std::string> args;
  std::vector<std::string> mentions;  // each must appear in the error line
};

std::string project() {
  return dataFile("one_collective.json");
}

std::vector<BadInput> badInputs() {
  const std::string p = project();
  const std::string net = dataFile("libra/tiny_network.yml");
  const std::string wl = dataFile("libra/tiny_workload.txt");
  return {
      // Files.
      {"MissingFile",
       {"solve", dataFile("no_such_project.json")},
       {"no_such_project.json", "no such file"}},
      {"DirectoryInsteadOfFile", {"solve", dataFile("libra")}, {"libra", "directory"}},
      {"EmptyFile", {"solve", dataFile("empty.json")}, {"empty.json", "empty"}},
      {"TruncatedJson",
       {"evaluate", dataFile("truncated.json"), "--bandwidth", "1,2,3"},
       {"truncated.json"}},
      {"UnknownKey", {"pareto", dataFile("unknown_key.json")}, {"unknown_key.json", "npu"}},
      {"NewerSchema", {"solve", dataFile("newer_version.json")}, {"newer_version.json", "99"}},
      {"BadConstraintInFile",
       {"solve", dataFile("bad_constraint.json")},
       {"bad_constraint.json", "constraints[1]", "rack"}},
      // Commands and flags.
      {"NoCommand", {}, {"command"}},
      {"UnknownCommand", {"frobnicate", p}, {"frobnicate"}},
      {"UnknownFlag", {"solve", p, "--frobnicate"}, {"--frobnicate"}},
      {"UnknownTopLevelFlag", {"--frobnicate"}, {"--frobnicate"}},
      {"ExtraArgument", {"solve", p, "second.json"}, {"second.json"}},
      {"MissingProject", {"solve"}, {"PROJECT"}},
      {"UnknownSolver", {"solve", p, "--solver", "cplex"}, {"--solver", "cplex"}},
      {"UnknownObjective", {"solve", p, "--objective", "speed"}, {"--objective", "speed"}},
      {"JsonAndCsv", {"pareto", p, "--json", "--csv"}, {"--json", "--csv"}},
      {"PointsZero", {"pareto", p, "--points", "0"}, {"--points", "0"}},
      {"PointsNegative", {"pareto", p, "--points", "-3"}, {"--points", "-3"}},
      {"PointsNotANumber", {"pareto", p, "--points", "many"}, {"--points", "many"}},
      {"PointsTooMany", {"pareto", p, "--points", "99999999999"}, {"--points"}},
      {"TimeLimitZero", {"solve", p, "--time-limit", "0"}, {"--time-limit", "0", "> 0"}},
      {"TimeLimitNotANumber", {"pareto", p, "--time-limit", "1min"}, {"--time-limit", "'1min'"}},
      {"MaxIterationsZero", {"solve", p, "--max-iterations", "0"}, {"--max-iterations", "0"}},
      {"MaxIterationsFraction",
       {"pareto", p, "--max-iterations", "2.5"},
       {"--max-iterations", "'2.5'", "whole number"}},
      // Bandwidth lists.
      {"BandwidthMissing", {"evaluate", p}, {"--bandwidth"}},
      {"BandwidthNotANumber",
       {"evaluate", p, "--bandwidth", "1,abc,3"},
       {"bandwidth", "'abc'", "position 2"}},
      {"BandwidthTrailingText", {"evaluate", p, "--bandwidth", "1,2GB,3"}, {"bandwidth", "'2GB'"}},
      {"BandwidthEmptyItem", {"evaluate", p, "--bandwidth", "1,,3"}, {"bandwidth", "position 2"}},
      {"BandwidthWrongCount",
       {"evaluate", p, "--bandwidth", "1,2"},
       {"bandwidth", "2 values", "3 dimensions"}},
      {"BandwidthNaN", {"evaluate", p, "--bandwidth", "1,nan,3"}, {"bandwidth", "nan", "node"}},
      {"BandwidthInfinite", {"evaluate", p, "--bandwidth", "1,2,inf"}, {"bandwidth", "pod"}},
      {"BandwidthNegative", {"evaluate", p, "--bandwidth=1,-2,3"}, {"bandwidth", "-2"}},
      // Constraint expressions.
      {"ConstraintSyntax",
       {"solve", p, "--constraint", "bw[0] >= 6x"},
       {"--constraint", "column 11", "x"}},
      {"ConstraintWithoutRelation",
       {"solve", p, "--constraint", "total 500"},
       {"--constraint", "column"}},
      {"ConstraintUnknownName",
       {"solve", p, "--constraint", "bw[rack] <= 5"},
       {"--constraint", "rack", "chip, node, pod"}},
      {"ConstraintIndexOutOfRange",
       {"pareto", p, "--constraint", "bw[7] <= 5"},
       {"--constraint", "7"}},
      {"ConstraintNotLinear",
       {"solve", p, "--constraint", "bw[0]*bw[1] <= 5"},
       {"--constraint", "column", "linear"}},
      // import-libra.
      {"ImportMissingNetwork",
       {"import-libra", "--network", dataFile("nope.yml"), "--workload", wl, "-o", "/tmp/x.json"},
       {"--network", "nope.yml"}},
      {"ImportMissingWorkloadFlag",
       {"import-libra", "--network", net, "-o", "/tmp/x.json"},
       {"--workload"}},
      {"ImportBadNetwork",
       {"import-libra", "--network", dataFile("libra/bad_network.yml"), "--workload", wl, "-o",
        "/tmp/x.json"},
       {"bad_network.yml", "Torus"}},
      {"ImportNetworkIsAWorkload",
       {"import-libra", "--network", wl, "--workload", wl, "-o", "/tmp/x.json"},
       {"tiny_workload.txt"}},
      {"ImportOutputDirectoryMissing",
       {"import-libra", "--network", net, "--workload", wl, "-o", "/nonexistent-dir/x.json"},
       {"/nonexistent-dir"}},
      {"ImportOutputIsADirectory",
       {"import-libra", "--network", net, "--workload", wl, "-o", "/tmp"},
       {"-o", "/tmp", "directory"}},
      {"ImportUnknownTrainingLoop",
       {"import-libra", "--network", net, "--workload", wl, "--training-loop", "async", "-o",
        "/tmp/x.json"},
       {"--training-loop", "async"}},
  };
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ExitsWithCode2AndOneLineThatSaysWhere) {
  expectUsageError(GetParam().args, GetParam().mentions);
}

INSTANTIATE_TEST_SUITE_P(Table, BadInputTest, ::testing::ValuesIn(badInputs()),
                         [](const ::testing::TestParamInfo<BadInput>& info) {
                           return info.param.name;
                         });

TEST_F(CliTest, ABadFileIsReportedBeforeAnythingIsWritten) {
  // A malformed project written by hand: wrong type deep inside.
  const std::string path = variant("one_collective.json", "bad_type.json", [](json& doc) {
    doc["workloads"][0]["layers"][0]["weight_grad"]["size_bytes"] = "a lot";
  });
  expectUsageError({"solve", path}, {"bad_type.json", "size_bytes"});
}

// A project file that cannot be opened (here: a path through a regular file,
// which fails for root as for anyone) is reported with its name and the reason.
TEST_F(CliTest, AnUnreadableFileIsReported) {
  const std::string file = tmp("plain.txt");
  writeText(file, "not a directory\n");
  expectUsageError({"solve", file + "/locked.json"}, {"plain.txt/locked.json"});
  const ProcessResult r = runLibra({"solve", file + "/locked.json"});
  EXPECT_NE(r.err.find("Not a directory"), std::string::npos) << r.err;
}

// --- exit 1: no solution -----------------------------------------------------

class NoSolutionTest : public CliTest, public ::testing::WithParamInterface<std::string> {
 protected:
  // Runs `args` twice, without and with --json, and checks the common contract.
  void check(std::vector<std::string> args, const std::string& status, const std::string& advice) {
    args.push_back("--solver");
    args.push_back(GetParam());
    const ProcessResult human = runLibra(args);
    {
      SCOPED_TRACE(describe(args, human));
      EXPECT_EQ(human.exitCode, 1);
      EXPECT_EQ(human.out, "");
      const auto lines = human.errLines();
      ASSERT_EQ(lines.size(), 1u);
      EXPECT_EQ(lines[0].rfind("libra: " + status + ": ", 0), 0u);
      EXPECT_TRUE(contains(lines[0], advice)) << "no advice '" << advice << "'";
    }
    args.push_back("--json");
    const ProcessResult withJson = runLibra(args);
    SCOPED_TRACE(describe(args, withJson));
    EXPECT_EQ(withJson.exitCode, 1);
    const json j = parseJson(withJson.out);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j["status"], status);
    ASSERT_TRUE(j.contains("message"));
    EXPECT_TRUE(contains(j["message"].get<std::string>(), advice));
    EXPECT_EQ(withJson.errLines().size(), 1u);
  }
};

TEST_P(NoSolutionTest, InfeasibleConstraintsSayWhatToRelax) {
  check({"solve", project(), "--constraint", "bw[0] >= 600"}, "infeasible", "relax");
  check({"solve", project(), "--constraint", "bw[chip] >= 600", "--objective", "perf-per-cost"},
        "infeasible", "relax");
}

TEST_P(NoSolutionTest, UnboundedProblemsSayWhatToAdd) {
  const std::string unbounded = variant("one_collective.json", "unbounded.json",
                                        [](json& doc) { doc["constraints"] = json::array(); });
  check({"solve", unbounded}, "unbounded", "add");
  check({"pareto", unbounded}, "unbounded", "add");
}

// A solver run stopped by --max-iterations or --time-limit: the line names the
// limit and says what the other solver does with the same problem.
TEST_P(NoSolutionTest, ALimitIsNamedWithWhatTheOtherSolverDoes) {
  const bool native = GetParam() == "native";
  const std::string stopped = native ? "the native solver stopped after" : "IPOPT stopped after";
  const std::string other = native ? "IPOPT answers this in" : "the native solver answers this in";
  for (const std::string command : {"solve", "pareto"}) {
    check({command, project(), "--max-iterations", "1"}, "error", "1 iteration (iteration limit)");
    check({command, project(), "--max-iterations", "1"}, "error", stopped);
    check({command, project(), "--max-iterations", "1"}, "error", other);
    // The limit counts the presolve's LPs too: 1e-9 s ends the run there, before
    // either backend starts.
    check({command, project(), "--time-limit", "1e-9"}, "error", "(time limit)");
    check({command, project(), "--time-limit", "1e-9"}, "error", "the presolve stopped at 1e-09 s");
  }
  // Generous limits change nothing.
  const ProcessResult r = runLibra({"solve", project(), "--solver", GetParam(), "--time-limit",
                                    "600", "--max-iterations", "500"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Backends, NoSolutionTest, ::testing::Values("native", "ipopt"));

TEST_F(CliTest, ParetoCsvWithoutSolutionPrintsNothingOnStdout) {
  const ProcessResult r = runLibra({"pareto", project(), "--csv", "--constraint", "bw[0] >= 600"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.errLines().size(), 1u);
}

}  // namespace
}  // namespace libra::testing

namespace libra::testing {
namespace {

// With --json a script gets every error as a JSON object on stdout (status and
// message), as well as the line on stderr: bad input (exit 2) and no solution
// (exit 1) alike.
TEST_F(CliTest, JsonErrorsArePrintedAsJson) {
  struct Case {
    std::vector<std::string> args;
    int exitCode;
    std::string status;
    std::string mention;
  };
  const std::vector<Case> cases{
      {{"solve", dataFile("no_such_project.json"), "--json"}, 2, "error", "no such file"},
      {{"solve", dataFile("one_collective.json"), "--constraint", "bw[9] <= 3", "--json"},
       2,
       "error",
       "no dimension 9"},
      {{"evaluate", dataFile("one_collective.json"), "--bandwidth", "1,x,3", "--json"},
       2,
       "error",
       "'x'"},
      {{"solve", dataFile("one_collective.json"), "--constraint", "bw[0] >= 600", "--json"},
       1,
       "infeasible",
       "bw[0] >= 600"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = runLibra(c.args);
    SCOPED_TRACE(describe(c.args, r));
    EXPECT_EQ(r.exitCode, c.exitCode);
    const json j = parseJson(r.out);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j["status"], c.status);
    EXPECT_TRUE(contains(j["message"].get<std::string>(), c.mention)) << j.dump();
    EXPECT_TRUE(contains(r.err, c.mention));
  }
}

}  // namespace
}  // namespace libra::testing
