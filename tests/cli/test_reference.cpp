// `libra` on the LIBRA authors' reference inputs (built only when they are
// present): import, then solve with both backends and both objectives; the two
// backends must agree.
#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

constexpr double kBackendAgreement = 1e-6;

fs::path reference(const std::string& relative) {
  return fs::path(LIBRA_REFERENCE_DIR) / relative;
}

struct ReferenceCase {
  std::string name;
  std::vector<std::string> importArgs;  // without -o
  std::vector<std::string> extraConstraints;
  double total;  // the budget the solution must spend
};

std::vector<ReferenceCase> referenceCases() {
  const auto libra = [](const std::string& p) { return reference("libra-inputs/" + p).string(); };
  const auto sc22 = [](const std::string& p) { return reference("sc22-inputs/" + p).string(); };
  return {
      {"Gpt3On3d",
       {"--network", libra("network/3d_network.yml"), "--workload", libra("workload/GPT_3.txt"),
        "--communicator", libra("communicator/GPT_3_3d.yml"), "--cost-model",
        libra("cost_model/3d_cost_model.yml")},
       {},
       500},
      {"Gpt3On4d",
       {"--network", libra("network/4d_network.yml"), "--workload", libra("workload/GPT_3.txt"),
        "--communicator", libra("communicator/GPT_3_4d.yml"), "--cost-model",
        libra("cost_model/4d_cost_model.yml")},
       {},
       500},
      // The reference's multiple_constraints set (4D).
      {"Gpt3On4dMultipleConstraints",
       {"--network", libra("network/4d_network.yml"), "--workload", libra("workload/GPT_3.txt"),
        "--communicator", libra("communicator/GPT_3_4d.yml"), "--cost-model",
        libra("cost_model/4d_cost_model.yml"), "--constraint", "total == 1000", "--constraint",
        "bw[0] == 500", "--constraint", "bw[0] >= bw[1]", "--constraint", "bw[1] >= bw[2]",
        "--constraint", "bw[2] + bw[3] == 200"},
       {},
       1000},
      // SC22: json network with its own total bandwidth, json cost model, a
      // workload with the ASTRA-sim 1.0 header and no communicator.
      {"Sc22Transformer175bOn3d",
       {"--network", sc22("network/3d.json"), "--cost-model", sc22("cost/cost.json"), "--workload",
        sc22("workload/transformer_175B.txt")},
       {},
       100},
  };
}

class ReferenceTest : public CliTest, public ::testing::WithParamInterface<ReferenceCase> {};

TEST_P(ReferenceTest, ImportsAndSolvesAlikeWithBothBackends) {
  const ReferenceCase& c = GetParam();
  const std::string project = tmp("project.json");
  std::vector<std::string> args{"import-libra"};
  args.insert(args.end(), c.importArgs.begin(), c.importArgs.end());
  args.insert(args.end(), {"-o", project});
  const ProcessResult imported = runLibra(args);
  {
    SCOPED_TRACE(describe(args, imported));
    ASSERT_EQ(imported.exitCode, 0);
    for (const std::string& line : imported.errLines()) {
      EXPECT_EQ(line.rfind("note: ", 0), 0u) << line;
    }
    ASSERT_TRUE(fs::exists(project));
  }

  for (const std::string objective : {"performance", "perf-per-cost"}) {
    double time[2] = {0, 0};
    double cost[2] = {0, 0};
    int i = 0;
    for (const std::string backend : {"native", "ipopt"}) {
      std::vector<std::string> solveArgs{"solve",    project, "--objective", objective,
                                         "--solver", backend, "--json"};
      // The rates of a perf-per-cost optimum by IPOPT are dozens of IPOPT
      // searches, most of this test's time under AddressSanitizer. The other
      // three solves compute theirs; test_sensitivity checks IPOPT's
      // perf-per-cost rates against a closed form.
      if (backend == "ipopt" && objective == "perf-per-cost") {
        solveArgs.emplace_back("--no-sensitivity");
      }
      const ProcessResult r = runLibra(solveArgs);
      SCOPED_TRACE(describe(solveArgs, r));
      ASSERT_EQ(r.exitCode, 0);
      EXPECT_EQ(r.err, "");
      const json j = parseJson(r.out);
      ASSERT_TRUE(j.is_object());
      EXPECT_EQ(j["status"], "optimal");
      EXPECT_EQ(j["objective"], objective);
      const auto bw = j["bandwidth_gbps"].get<std::vector<double>>();
      double sum = 0;
      for (double b : bw) {
        EXPECT_GE(b, -1e-9);
        sum += b;
      }
      EXPECT_REL_NEAR(sum, c.total, 1e-6);
      time[i] = j["iteration_time_ns"].get<double>();
      cost[i] = j["network_cost_usd"].get<double>();
      EXPECT_GT(time[i], 0);
      EXPECT_GT(cost[i], 0);
      ++i;
    }
    SCOPED_TRACE(objective);
    EXPECT_REL_NEAR(time[0], time[1], kBackendAgreement);
    if (objective == "perf-per-cost") {
      EXPECT_REL_NEAR(time[0] * cost[0], time[1] * cost[1], kBackendAgreement);
    }
  }

  // The table form works too, and pareto --csv gives N + 1 lines.
  const ProcessResult table = runLibra({"solve", project});
  EXPECT_EQ(table.exitCode, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "Iteration time"));
  const ProcessResult csv = runLibra({"pareto", project, "--points", "10", "--csv"});
  EXPECT_EQ(csv.exitCode, 0) << csv.err;
  EXPECT_EQ(csv.outLines().size(), 11u);
}

INSTANTIATE_TEST_SUITE_P(Reference, ReferenceTest, ::testing::ValuesIn(referenceCases()),
                         [](const ::testing::TestParamInfo<ReferenceCase>& info) {
                           return info.param.name;
                         });

TEST_F(CliTest, Sc22ImportExplainsTheDerivedCommunicator) {
  const std::string project = tmp("t175.json");
  const ProcessResult r =
      runLibra({"import-libra", "--network", reference("sc22-inputs/network/3d.json").string(),
                "--cost-model", reference("sc22-inputs/cost/cost.json").string(), "--workload",
                reference("sc22-inputs/workload/transformer_175B.txt").string(), "-o", project});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "note: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "communicator")) << r.err;
  const json doc = json::parse(readText(project));
  EXPECT_EQ(doc["constraints"], json({"total == 100"}));
}

}  // namespace
}  // namespace libra::testing
