// `libra codesign` (spec/cli.md "Models, executions and co-design"): the JSON
// contract, each design checked against `libra new --execution given` and
// `libra evaluate` of the same shape, execution and bandwidths (an independent
// path through the engine), --save-scenarios read back by `libra compare`, and
// bad input refused with exit 2.
#include <charconv>
#include <set>

#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

using CodesignTest = CliTest;

const std::vector<std::string> kSmall{
    "codesign", "--preset", "turing-nlg-17b", "--npus", "64",     "--dims", "2",
    "--top",    "3",        "--placements",   "auto",   "--jobs", "2"};

// Shortest text that reads back to the same double.
std::string formatExactForTest(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_F(CodesignTest, JsonFollowsTheSpecAndEachDesignEvaluatesTheSame) {
  const std::vector<std::string> args = with(kSmall, {"--json"});
  const ProcessResult r = runLibra(args);
  ASSERT_EQ(r.exitCode, 0) << describe(args, r);
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object()) << describe(args, r);
  EXPECT_EQ(j["status"], "done");
  for (const char* key : {"evaluated", "pruned", "wall_s", "designs", "pareto"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_GT(j["evaluated"].get<double>(), 0);
  const json& designs = j["designs"];
  ASSERT_GE(designs.size(), 3u);
  std::set<int> front;
  for (const json& k : j["pareto"]) {
    ASSERT_LT(k.get<std::size_t>(), designs.size());
    front.insert(k.get<int>());
  }
  EXPECT_FALSE(front.empty());
  double previous = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const json& d = designs[i];
    SCOPED_TRACE(d.dump());
    for (const char* key :
         {"shape", "blocks", "npus", "equivalent_shapes", "execution", "bandwidth_gbps",
          "iteration_time_ns", "time_to_train_s", "tokens_per_second", "mfu",
          "memory_per_npu_bytes", "network_cost_usd", "system_cost_usd"}) {
      EXPECT_TRUE(d.contains(key)) << key;
    }
    const json& e = d["execution"];
    for (const char* key : {"tp", "pp", "dp", "ep", "cp", "virtual_stages", "micro_batch", "zero",
                            "recompute", "sequence_parallel", "placement"}) {
      EXPECT_TRUE(e.contains(key)) << key;
    }
    EXPECT_EQ(e["tp"].get<int>() * e["pp"].get<int>() * e["dp"].get<int>() * e["ep"].get<int>(),
              64);
    int npus = 1;
    for (const json& n : d["npus"]) npus *= n.get<int>();
    EXPECT_EQ(npus, 64);
    EXPECT_LE(d["memory_per_npu_bytes"].get<double>(), 80e9);
    const double t = d["iteration_time_ns"].get<double>();
    EXPECT_GE(t, previous);  // best first
    previous = t;

    // The same design through `libra new --execution given` and `evaluate`.
    std::string topology, counts, levels;
    for (const json& dim : d["dimensions"]) {
      topology += (topology.empty() ? "" : ", ") + dim["block"].get<std::string>();
      counts += (counts.empty() ? "" : ", ") + std::to_string(dim["npus"].get<int>());
      levels += (levels.empty() ? "" : ", ") + dim["cost_level"].get<std::string>();
    }
    const std::string net = tmp("net" + std::to_string(i) + ".yml");
    writeText(net, "Topology: [ " + topology + " ]\nNpusCount: [ " + counts +
                       " ]\nCostDimension: [ " + levels + " ]\n");
    const std::string project = tmp("design" + std::to_string(i) + ".json");
    std::vector<std::string> make{"new",
                                  "--preset",
                                  "turing-nlg-17b",
                                  "--network",
                                  net,
                                  "--execution",
                                  "given",
                                  "--tp",
                                  std::to_string(e["tp"].get<int>()),
                                  "--pp",
                                  std::to_string(e["pp"].get<int>()),
                                  "--virtual-stages",
                                  std::to_string(e["virtual_stages"].get<int>()),
                                  "--micro-batch",
                                  std::to_string(e["micro_batch"].get<int>()),
                                  "--zero",
                                  std::to_string(e["zero"].get<int>()),
                                  "-o",
                                  project};
    if (e["sequence_parallel"].get<bool>()) make.push_back("--sequence-parallel");
    if (e["recompute"] == "selective") make.push_back("--selective-recompute");
    if (e["recompute"] == "full") make.push_back("--recompute");
    const ProcessResult m = runLibra(make);
    ASSERT_EQ(m.exitCode, 0) << describe(make, m);
    std::string bw;
    for (const json& b : d["bandwidth_gbps"]) {
      bw += (bw.empty() ? "" : ",") + formatExactForTest(b.get<double>());
    }
    const std::vector<std::string> eval{"evaluate", project, "--bandwidth", bw, "--json"};
    const ProcessResult v = runLibra(eval);
    ASSERT_EQ(v.exitCode, 0) << describe(eval, v);
    const json ej = parseJson(v.out);
    EXPECT_NEAR(ej["iteration_time_ns"].get<double>(), t, 1e-9 * t);
    EXPECT_NEAR(ej["network_cost_usd"].get<double>(), d["network_cost_usd"].get<double>(),
                1e-9 * d["network_cost_usd"].get<double>());
  }
}

// A ZeRO-3 design says stage 3 in JSON and CSV (both printed 0 before: the stage
// was read from the field that ZeRO-3 leaves at 0).
TEST_F(CodesignTest, AZeroThreeDesignSaysStageThree) {
  const std::vector<std::string> args = with(kSmall, {"--zero", "3", "--json"});
  const ProcessResult r = runLibra(args);
  ASSERT_EQ(r.exitCode, 0) << describe(args, r);
  const json j = parseJson(r.out);
  ASSERT_FALSE(j["designs"].empty()) << r.out;
  for (const json& d : j["designs"]) {
    EXPECT_EQ(d["execution"]["zero"], 3) << d["execution"].dump();
    EXPECT_TRUE(contains(d["execution"]["label"].get<std::string>(), "ZeRO-3"));
  }
  const std::vector<std::string> csvArgs = with(kSmall, {"--zero", "3", "--csv", tmp("z.csv")});
  const ProcessResult csv = runLibra(csvArgs);
  ASSERT_EQ(csv.exitCode, 0) << describe(csvArgs, csv);
  const std::string text = readText(tmp("z.csv"));
  const std::string header = text.substr(0, text.find('\n'));
  const std::string first =
      text.substr(header.size() + 1, text.find('\n', header.size() + 1) - header.size() - 1);
  auto column = [](const std::string& line, std::size_t k) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < k; ++i) start = line.find(',', start) + 1;
    return line.substr(start, line.find(',', start) - start);
  };
  std::size_t zeroColumn = 0;
  while (column(header, zeroColumn) != "zero") ++zeroColumn;
  EXPECT_EQ(column(first, zeroColumn), "3") << header << "\n" << first;
}

TEST_F(CodesignTest, SavedScenariosAreReadByCompare) {
  const std::string file = tmp("designs.json");
  const std::vector<std::string> args{"codesign", "--preset",         "resnet50", "--npus",
                                      "64",       "--dims",           "2..3",     "--top",
                                      "3",        "--save-scenarios", file};
  const ProcessResult r = runLibra(args);
  ASSERT_EQ(r.exitCode, 0) << describe(args, r);
  EXPECT_TRUE(contains(r.out, "Where the groups lie")) << r.out;
  EXPECT_TRUE(contains(r.out, "wrote " + file)) << r.out;
  const std::vector<std::string> compare{"compare", file, "--json"};
  const ProcessResult c = runLibra(compare);
  ASSERT_EQ(c.exitCode, 0) << describe(compare, c);
  const json j = parseJson(c.out);
  EXPECT_GE(j["designs"].size(), 3u);
  EXPECT_TRUE(contains(j["designs"][0]["name"].get<std::string>(), "#1 ")) << c.out;
}

// Ctrl-C: what was found so far is reported, "status": "stopped", exit 130.
// GPT-3 175B on 4096 NPUs in 2..4 dimensions takes about 90 s on one thread.
TEST_F(CodesignTest, StopsCleanlyOnCtrlC) {
  const std::vector<std::string> args{"codesign", "--preset", "gpt3-175b", "--npus", "4096",
                                      "--dims",   "2..4",     "--jobs",    "1",      "--json"};
  const ProcessResult r = runInterrupted(libraExe(), args, tmp_, std::chrono::milliseconds(3000));
  SCOPED_TRACE(describe(args, r));
  ASSERT_FALSE(r.timedOut);
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exitCode, 130);
  EXPECT_TRUE(contains(r.err, "libra: codesign interrupted")) << r.err;
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "stopped");
  EXPECT_LT(j["shapes_searched"].get<int>(), j["shapes"].get<int>());
}

// --time-limit: the same stop on a timer; "status": "time limit", and exit 0
// with the designs found (1, saying so, when none was found yet).
TEST_F(CodesignTest, ATimeLimitReportsTheDesignsFoundSoFar) {
  const std::vector<std::string> args{"codesign", "--preset", "gpt3-175b",    "--npus",
                                      "4096",     "--dims",   "2..4",         "--jobs",
                                      "1",        "--json",   "--time-limit", "1"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "time limit");
  EXPECT_LT(j["shapes_searched"].get<int>(), j["shapes"].get<int>());
  EXPECT_TRUE(contains(r.err, "time limit (1 s)")) << r.err;
  EXPECT_EQ(r.exitCode, j["designs"].empty() ? 1 : 0);
}

TEST_F(CodesignTest, BadInputIsRefusedWithOneLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"codesign", "--preset", "resnet50", "--npus", "3"}, "--npus"},
      {{"codesign", "--preset", "resnet50", "--npus", "64,64"}, "twice"},
      {{"codesign", "--preset", "resnet50", "--npus", "64", "--objective", "fast"}, "--objective"},
      {{"codesign", "--preset", "resnet50", "--npus", "64", "--placements", "some"},
       "--placements"},
      {{"codesign", "--preset", "resnet50", "--npus", "64", "--dims", "9"}, "--dims"},
      {{"codesign", "--preset", "resnet50", "--npus", "64", "--constraint", "bw[rack] <= 3"},
       "--constraint"},
      {{"codesign", "--preset", "nope", "--npus", "64"}, "nope"},
      {{"codesign", "--preset", "resnet50", "--npus", "64", "--time-limit", "abc"}, "--time-limit"},
      {{"codesign", "--preset", "resnet50", "--npus", "64", "--time-limit", "0"}, "--time-limit"},
  };
  for (const auto& [args, mention] : cases) {
    const ProcessResult r = runLibra(args);
    EXPECT_EQ(r.exitCode, 2) << describe(args, r);
    EXPECT_EQ(r.errLines().size(), 1u) << describe(args, r);
    EXPECT_TRUE(contains(r.err, mention)) << mention << "\n" << describe(args, r);
  }
}

}  // namespace
}  // namespace libra::testing
