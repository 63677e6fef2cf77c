// The chunked collective model on the command line: `libra validate` on the
// bundled ASTRA-sim data set and on small made-up ones, the --chunks and
// --latency flags (refused values, what they change, the JSON keys they add).
// Expected numbers are worked out by hand in the comments from the schedule's
// definition (collective_model.hpp), never taken from the program's output.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <regex>

#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

std::string validationData() {
  return (fs::path(LIBRA_SOURCE_DIR) / "tests" / "data" / "astra-sim" / "validation.json").string();
}

// --- libra validate on the bundled data set --------------------------------------

// The recipe in tests/data/astra-sim/README.md reproduces every case; the
// engine's schedule has the endpoint delays but not ASTRA-sim's truncation of
// every message to whole ns, which is well below 1 % for messages of 64 MiB and
// more.
TEST_F(CliTest, ValidateBundledDataSetIsWithinOnePercent) {
  const std::vector<std::string> args{"validate", validationData(), "--summary", "--max-error",
                                      "1"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  for (const char* line :
       {"Data set", "Simulator", "Model vs simulator, >= 64 MiB", "Model vs simulator, < 64 MiB",
        "LIBRA vs simulator, >= 64 MiB", "every case of at least 64 MiB is within 1 %"}) {
    EXPECT_TRUE(contains(r.out, line)) << "missing: " << line;
  }
  // --summary: no per-case table.
  EXPECT_FALSE(contains(r.out, "simulated (ns)"));
  // The two model lines count every case of the data set between them.
  const std::regex model("Model vs simulator, [<>]=? 64 MiB\\s+(\\d+) cases");
  int cases = 0, lines = 0;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), model), end; it != end; ++it) {
    cases += std::stoi((*it)[1]);
    ++lines;
  }
  EXPECT_EQ(lines, 2);
  EXPECT_EQ(cases, 1804);
}

TEST_F(CliTest, ValidateJsonSummaryCountsEveryCase) {
  const std::vector<std::string> args{"validate", validationData(), "--summary",
                                      "--json",   "--max-error",    "1"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["large"]["cases"].get<int>() + j["small"]["cases"].get<int>(), 1804);
  EXPECT_LE(j["large"]["max_error"].get<double>(), 0.01);
  // The worst small case is a zero-latency 1 MiB collective in 64 chunks with
  // ASTRA-sim's least endpoint delay (1 ns), whose messages take 1 to 2 ns each:
  // the simulator truncates each to whole ns, the model does not (see
  // EndpointDelayRunsAreWithinFivePercentAtOneMib).
  EXPECT_LE(j["small"]["max_error"].get<double>(), 0.40);
  EXPECT_GT(j["small"]["max_error"].get<double>(), j["large"]["max_error"].get<double>());
  EXPECT_EQ(j["cases_over"], 0);
  EXPECT_FALSE(j.contains("cases"));
}

// The runs that set an endpoint delay (10 and 100 ns per message bundle, the
// "endpoint-delay-10" and "endpoint-delay-sweep" sets): every case within 5 % at
// 1 MiB and within 1 % from 64 MiB (issue 26 item 6). The model is never faster
// than the simulator (its one difference, the truncation of each message to
// whole ns, only shortens the simulated time). Without the endpoint delay in the
// model (the data set with its delays removed from the model's side only) the
// same 1 MiB runs were up to 38 % optimistic.
TEST_F(CliTest, EndpointDelayRunsAreWithinFivePercentAtOneMib) {
  auto casesOf = [&](const std::string& file) {
    const ProcessResult r = runLibra({"validate", file, "--json", "--max-error", "100"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return parseJson(r.out)["cases"];
  };
  const json cases = casesOf(validationData());
  ASSERT_EQ(cases.size(), 1804u);
  int delayed = 0, oneMib = 0;
  for (const json& c : cases) {
    const double error = c["error"].get<double>();
    EXPECT_GE(error, -1e-3) << c.dump();
    if (c["set"].get<std::string>().rfind("endpoint-delay", 0) != 0) continue;
    ++delayed;
    const double size = c["size_bytes"].get<double>();
    if (size >= 64.0 * 1024 * 1024) {
      EXPECT_LE(error, 0.01) << c.dump();
    } else if (size == 1024.0 * 1024) {
      ++oneMib;
      EXPECT_LE(error, 0.05) << c.dump();
    }
  }
  EXPECT_EQ(delayed, 600);
  EXPECT_EQ(oneMib, 300);

  // The model without endpoint delays: the simulated times stay, the model's
  // delays go.
  json data = json::parse(readText(validationData()));
  for (json& c : data["cases"]) c["endpoint_delay_ns"] = 0;
  const std::string without = tmp("without-delay.json");
  writeText(without, data.dump());
  double worst = 0;
  for (const json& c : casesOf(without)) {
    if (c["set"].get<std::string>() == "endpoint-delay-sweep")
      worst = std::max(worst, std::abs(c["error"].get<double>()));
  }
  EXPECT_GT(worst, 0.30);
}

// --- libra validate on made-up data sets -----------------------------------------

// Every case has an endpoint delay of 1 ns per message bundle.
// Case 0: All-Reduce of 64 MiB = 67108864 B on one Ring(4) at 100 GB/s, no
// latency, C = 1: one AR stage of 2 S 3/4 = 100663296 B, 1006632.96 ns, and
// 2n - 1 = 7 bundles: 1006639.96 ns.
// Case 1: Reduce-Scatter of 64 MiB on Ring(4) x FullyConnected(2) at (200, 100)
// GB/s, latencies (10, 20) ns, C = 4 (a flow shop):
//   P0 = 3 x 10 + 4 bundles + (S 3/4) / (4 x 200) = 34 + 62914.56 = 62948.56
//   P1 = 1 x 20 + 2 bundles + (S/4 x 1/2) / (4 x 100) = 22 + 20971.52 = 20993.52
//   T = P0 + P1 + 3 max = 4 x 62948.56 + 20993.52 = 272787.76 ns.
constexpr double kCase0Ns = 1006639.96;
constexpr double kCase1Ns = 272787.76;

json validationCase(int which, double simulatedNs) {
  json c;
  c["set"] = which == 0 ? "zero-latency" : "latency";
  c["network_name"] = which == 0 ? "R4" : "R4-FC2";
  if (which == 0) {
    c["network"] =
        json::array({{{"block", "Ring"}, {"npus", 4}, {"bw_gbps", 100.0}, {"latency_ns", 0}}});
    c["collective"] = "AllReduce";
    c["chunks"] = 1;
  } else {
    c["network"] = json::array(
        {{{"block", "Ring"}, {"npus", 4}, {"bw_gbps", 200.0}, {"latency_ns", 10}},
         {{"block", "FullyConnected"}, {"npus", 2}, {"bw_gbps", 100.0}, {"latency_ns", 20}}});
    c["collective"] = "ReduceScatter";
    c["chunks"] = 4;
  }
  c["size_bytes"] = 67108864;
  c["endpoint_delay_ns"] = 1;
  c["sim_time_ns"] = simulatedNs;
  return c;
}

json validationDoc(double case1SimulatedNs) {
  json doc;
  doc["metadata"] = {{"description", "made up for test_collective_cli"},
                     {"astra_sim", "none: hand-computed"}};
  doc["cases"] = json::array({validationCase(0, kCase0Ns), validationCase(1, case1SimulatedNs)});
  return doc;
}

TEST_F(CliTest, ValidateMadeUpDataSetThatMatchesPasses) {
  const std::string path = tmp("good.json");
  writeText(path, validationDoc(kCase1Ns).dump(2));
  const std::vector<std::string> args{"validate", path, "--json", "--max-error", "1e-6"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["cases"].size(), 2u);
  EXPECT_REL_NEAR(j["cases"][0]["model_ns"].get<double>(), kCase0Ns, 1e-12);
  EXPECT_REL_NEAR(j["cases"][1]["model_ns"].get<double>(), kCase1Ns, 1e-12);
  // LIBRA's ideal model for case 1: max(S 3/4 / 200, S/8 / 100) = 251658.24 ns.
  EXPECT_REL_NEAR(j["cases"][1]["ideal_ns"].get<double>(), 251658.24, 1e-12);
}

// Case 1's simulated time set 10 % above the model's (error |T - sim| / sim =
// 0.1): exit 1, and the message names case 1 and not case 0.
TEST_F(CliTest, ValidateReportsTheCaseOverTheLimit) {
  const std::string path = tmp("off.json");
  writeText(path, validationDoc(kCase1Ns / 0.9).dump(2));
  const std::vector<std::string> args{"validate", path, "--summary", "--max-error", "1"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(contains(r.err, "case 1 ")) << r.err;
  EXPECT_TRUE(contains(r.err, "ReduceScatter")) << r.err;
  EXPECT_TRUE(contains(r.err, "10.000 %")) << r.err;
  EXPECT_FALSE(contains(r.err, "case 0 ")) << r.err;
  EXPECT_TRUE(contains(r.err, "1 case(s)")) << r.err;
  // Below --min-size the case no longer counts.
  const std::vector<std::string> small{"validate", path,         "--summary", "--max-error",
                                       "1",        "--min-size", "1e9"};
  const ProcessResult s = runLibra(small);
  SCOPED_TRACE(describe(small, s));
  EXPECT_EQ(s.exitCode, 0);
}

TEST_F(CliTest, ValidateMalformedDataSetsAreUsageErrors) {
  {
    json doc = validationDoc(kCase1Ns);
    doc["cases"][1].erase("sim_time_ns");
    const std::string path = tmp("missing.json");
    writeText(path, doc.dump(2));
    expectUsageError({"validate", path}, {path, "cases[1]", "sim_time_ns"});
  }
  {
    json doc = validationDoc(kCase1Ns);
    doc["cases"][1]["network"][1]["block"] = "Torus";
    const std::string path = tmp("block.json");
    writeText(path, doc.dump(2));
    expectUsageError({"validate", path}, {path, "cases[1].network[1].block", "Torus"});
  }
  {
    json doc = validationDoc(kCase1Ns);
    doc["cases"][0]["chunks"] = 0;
    const std::string path = tmp("chunks.json");
    writeText(path, doc.dump(2));
    expectUsageError({"validate", path}, {path, "cases[0].chunks"});
  }
  // A simulated time of 0 was compared as "error 0.000 %" against a modelled
  // 433,411 ns (exit 0), and an empty list printed "median 0.000 %" (exit 0).
  {
    json doc = validationDoc(kCase1Ns);
    doc["cases"][1]["sim_time_ns"] = 0;
    const std::string path = tmp("zero.json");
    writeText(path, doc.dump(2));
    expectUsageError({"validate", path}, {path, "cases[1].sim_time_ns", "> 0"});
  }
  {
    json doc = validationDoc(kCase1Ns);
    doc["cases"][0]["network"][0]["bw_gbps"] = 0;
    const std::string path = tmp("nobw.json");
    writeText(path, doc.dump(2));
    expectUsageError({"validate", path}, {path, "cases[0].network[0].bw_gbps", "> 0"});
  }
  {
    json doc = validationDoc(kCase1Ns);
    doc["cases"] = json::array();
    const std::string path = tmp("empty.json");
    writeText(path, doc.dump(2));
    expectUsageError({"validate", path}, {path, "cases", "empty"});
  }
  {
    const std::string path = tmp("not.json");
    writeText(path, "{\"metadata\": {}, \"cases\": [");
    expectUsageError({"validate", path}, {path, "JSON"});
  }
  expectUsageError({"validate", tmp("absent.json")}, {"absent.json"});
}

// --- --chunks and --latency ----------------------------------------------------

// data/chunked_4d.json: chip Ring(4), pkg FullyConnected(4), node Ring(2),
// pod Switch(8), latencies 500, 500, 500, 936.25 ns; total == 400; no "chunks"
// key (ideal).
const std::vector<std::string> kCommands[] = {
    {"solve"}, {"evaluate", "--bandwidth", "100,100,100,100"}, {"pareto", "--points", "3"}};

std::vector<std::string> withProject(const std::vector<std::string>& command,
                                     std::vector<std::string> flags) {
  std::vector<std::string> args{command[0], dataFile("chunked_4d.json")};
  args.insert(args.end(), command.begin() + 1, command.end());
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

TEST_F(CliTest, BadChunksAreRefusedNamingTheFlag) {
  for (const auto& command : kCommands) {
    expectUsageError(withProject(command, {"--chunks", "0"}), {"--chunks", "'0'"});
    expectUsageError(withProject(command, {"--chunks", "1025"}), {"--chunks", "1025"});
    expectUsageError(withProject(command, {"--chunks", "many"}), {"--chunks", "many"});
  }
}

TEST_F(CliTest, BadLatenciesAreRefusedNamingTheFlag) {
  for (const auto& command : kCommands) {
    expectUsageError(withProject(command, {"--latency=-5"}), {"--latency"});
    expectUsageError(withProject(command, {"--latency", "-5"}), {"--latency"});
    expectUsageError(withProject(command, {"--latency", "1,2"}), {"--latency", "2"});
    expectUsageError(withProject(command, {"--latency", "1,2,x,4"}), {"--latency", "x"});
  }
}

std::vector<double> solvedBandwidth(const std::vector<std::string>& args) {
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  EXPECT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  if (!j.is_object() || !j.contains("bandwidth_gbps")) {
    ADD_FAILURE() << "no bandwidth in the output";
    return {};
  }
  return j["bandwidth_gbps"].get<std::vector<double>>();
}

// One collective with C = 1 and no latency: the stages run one after another,
// T_comm = sum_d V_d / b_d, so under total == 500 the optimum is
// b_d = B sqrt(V_d) / sum sqrt(V) (Lagrange), not LIBRA's b_d = B V_d / sum V.
// data/one_collective.json: All-Reduce of 1e9 over Ring(4) x FC(2) x Switch(8).
TEST_F(CliTest, OneChunkFollowsTheSquareRootRule) {
  const std::vector<double> v = traffic(Coll::AllReduce, 1e9, {4, 2, 8});
  double sumRoot = 0, sumV = 0;
  for (double x : v) sumRoot += std::sqrt(x), sumV += x;
  for (const char* solver : {"native", "ipopt"}) {
    SCOPED_TRACE(solver);
    const auto chunked = solvedBandwidth(
        {"solve", dataFile("one_collective.json"), "--json", "--chunks", "1", "--solver", solver});
    const auto ideal = solvedBandwidth({"solve", dataFile("one_collective.json"), "--json",
                                        "--chunks", "ideal", "--solver", solver});
    ASSERT_EQ(chunked.size(), 3u);
    ASSERT_EQ(ideal.size(), 3u);
    for (int d = 0; d < 3; ++d) {
      EXPECT_REL_NEAR(chunked[d], 500 * std::sqrt(v[d]) / sumRoot, 1e-6) << "dim " << d;
      EXPECT_REL_NEAR(ideal[d], 500 * v[d] / sumV, 1e-6) << "dim " << d;
    }
  }
}

TEST_F(CliTest, OneChunkGivesAnotherSplitThanTheIdealModel) {
  const auto chunked = solvedBandwidth(withProject({"solve"}, {"--json", "--chunks", "1"}));
  const auto ideal = solvedBandwidth(withProject({"solve"}, {"--json", "--chunks", "ideal"}));
  ASSERT_EQ(chunked.size(), 4u);
  ASSERT_EQ(ideal.size(), 4u);
  double worst = 0;
  for (int d = 0; d < 4; ++d) worst = std::max(worst, relativeDifference(chunked[d], ideal[d]));
  EXPECT_GT(worst, 0.01) << "the splits differ by at most " << worst;
}

TEST_F(CliTest, SolveJsonReportsTheChunkedModel) {
  const std::vector<std::string> args =
      withProject({"solve"}, {"--json", "--chunks", "16", "--latency", "500"});
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "optimal");
  EXPECT_EQ(j["chunks"], 16);
  EXPECT_EQ(j["latency_ns"], json({500.0, 500.0, 500.0, 500.0}));
  ASSERT_TRUE(j["surrogate_gap"].is_number()) << j["surrogate_gap"];
  EXPECT_GE(j["surrogate_gap"].get<double>(), 0);
  EXPECT_GE(j["surrogate_iteration_time_ns"].get<double>(),
            j["iteration_time_ns"].get<double>() * (1 - 1e-12));
  // surrogate_gap = (surrogate - exact) / exact.
  const double exact = j["iteration_time_ns"].get<double>();
  EXPECT_NEAR(j["surrogate_gap"].get<double>(),
              (j["surrogate_iteration_time_ns"].get<double>() - exact) / exact, 1e-12);
}

TEST_F(CliTest, JsonReportsTheProjectsModelWithoutFlags) {
  const std::vector<std::string> args = withProject({"solve"}, {"--json"});
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const json j = parseJson(r.out);
  EXPECT_EQ(j["chunks"], "ideal");
  EXPECT_EQ(j["latency_ns"], json({500.0, 500.0, 500.0, 936.25}));
  EXPECT_EQ(j["surrogate_gap"], 0.0);
  // Per-dimension latencies and "auto".
  const std::vector<std::string> each =
      withProject({"solve"}, {"--json", "--chunks", "auto", "--latency", "1,2,3,4"});
  const ProcessResult e = runLibra(each);
  SCOPED_TRACE(describe(each, e));
  ASSERT_EQ(e.exitCode, 0);
  const json k = parseJson(e.out);
  EXPECT_EQ(k["chunks"], "auto");
  EXPECT_EQ(k["latency_ns"], json({1.0, 2.0, 3.0, 4.0}));
}

TEST_F(CliTest, SweepTakesOnlyOneLatency) {
  expectUsageError(
      {"sweep", "--preset", "gpt3-175b", "--npus", "64", "--dims", "2", "--latency", "1,2"},
      {"--latency"});
  expectUsageError(
      {"sweep", "--preset", "gpt3-175b", "--npus", "64", "--dims", "2", "--chunks", "0"},
      {"--chunks"});
}

}  // namespace
}  // namespace libra::testing
