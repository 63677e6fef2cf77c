// `libra presets`, `libra new` and `libra sweep`: the listings, projects generated
// from presets that `libra solve` then solves, the sweep's shape count computed
// here by hand, Ctrl-C, and the bundled GUI examples made by `libra new`.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "cli_test_support.hpp"

extern char** environ;

namespace libra::testing {
namespace {

// The presets of engine/workloads/include/libra/presets.hpp (docs/workloads.md section 6).
const std::vector<std::string> kPresetIds{
    "turing-nlg-17b",  "gpt3-175b",   "msft-1t",     "megatron-gpt-22b", "mt-nlg-530b",
    "megatron-gpt-1t", "llama3-70b",  "llama3-405b", "mixtral-8x22b",    "deepseek-v3",
    "resnet50",        "dlrm-mlperf", "dlrm-libra"};

// A LIBRA network file (Topology / NpusCount / CostDimension).
std::string networkYaml(const std::vector<std::string>& blocks, const std::vector<int>& npus,
                        const std::vector<std::string>& levels) {
  auto list = [](const auto& items) {
    std::string s;
    for (const auto& item : items) {
      std::ostringstream text;
      text << item;
      s += (s.empty() ? "" : ", ") + text.str();
    }
    return "[ " + s + " ]";
  };
  return "Topology: " + list(blocks) + "\nNpusCount: " + list(npus) +
         "\nCostDimension: " + list(levels) + "\n";
}

// Ordered factorizations of n into exactly `dims` factors >= 2, counted by brute force.
int orderedFactorizations(int n, int dims) {
  if (dims == 1) return n >= 2 ? 1 : 0;
  int count = 0;
  for (int f = 2; f <= n; ++f) {
    if (n % f == 0) count += orderedFactorizations(n / f, dims - 1);
  }
  return count;
}

// --- presets -------------------------------------------------------------------

TEST_F(CliTest, PresetsJsonListsEveryPresetWithItsHyperparameters) {
  const ProcessResult r = runLibra({"presets", "--json"});
  SCOPED_TRACE(describe({"presets", "--json"}, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  ASSERT_TRUE(j["presets"].is_array());
  std::vector<std::string> ids;
  for (const json& p : j["presets"]) {
    ids.push_back(p["id"].get<std::string>());
    EXPECT_GT(p["parameters"].get<double>(), 0) << p["id"];
    EXPECT_FALSE(p["source"].get<std::string>().empty()) << p["id"];
    EXPECT_TRUE(p["hyperparameters"].is_object()) << p["id"];
    EXPECT_GE(p["default_parallelism"]["tp"].get<int>(), 1) << p["id"];
  }
  EXPECT_EQ(ids, kPresetIds);

  // GPT-3 175B as in Brown et al., Table 2.1: 96 layers of d_model 12288, 96 heads;
  // 96 x 12 h^2 + 50257 h (tied embeddings) = 174.6 B weights.
  const auto gpt3 = std::find_if(j["presets"].begin(), j["presets"].end(),
                                 [](const json& p) { return p["id"] == "gpt3-175b"; });
  ASSERT_NE(gpt3, j["presets"].end());
  const json& h = (*gpt3)["hyperparameters"];
  EXPECT_EQ(h["layers"], 96);
  EXPECT_EQ(h["hidden"], 12288);
  EXPECT_EQ(h["heads"], 96);
  EXPECT_EQ(h["ffn"], 4 * 12288);
  EXPECT_EQ(h["vocab"], 50257);
  EXPECT_EQ((*gpt3)["sequence_length"], 2048);
  EXPECT_EQ((*gpt3)["default_parallelism"]["tp"], 16);
  const double hidden = 12288;
  EXPECT_REL_NEAR((*gpt3)["parameters"].get<double>(), 96 * 12 * hidden * hidden + 50257 * hidden,
                  1e-12);

  ASSERT_TRUE(j["devices"].is_array());
  const auto h100 = std::find_if(j["devices"].begin(), j["devices"].end(),
                                 [](const json& d) { return d["id"] == "h100"; });
  ASSERT_NE(h100, j["devices"].end());
  EXPECT_DOUBLE_EQ((*h100)["peak_flops"].get<double>(), 989.4e12);
  EXPECT_EQ((*h100)["precision"], "BF16 dense");
  EXPECT_FALSE((*h100)["source"].get<std::string>().empty());
}

TEST_F(CliTest, PresetsTableListsPresetsAndDevices) {
  const ProcessResult all = runLibra({"presets"});
  ASSERT_EQ(all.exitCode, 0);
  EXPECT_EQ(all.err, "");
  for (const std::string& id : kPresetIds) EXPECT_TRUE(contains(all.out, id)) << id;
  for (const char* part : {"params (B)", "default parallelism", "source", "174.6",
                           "TP 16 x DP auto", "h100", "peak (TFLOP/s)", "989.4", "BF16 dense"}) {
    EXPECT_TRUE(contains(all.out, part)) << "missing " << part << "\n" << all.out;
  }
  const ProcessResult devices = runLibra({"presets", "--devices"});
  ASSERT_EQ(devices.exitCode, 0);
  EXPECT_TRUE(contains(devices.out, "mi300x"));
  EXPECT_FALSE(contains(devices.out, "gpt3-175b"));
}

// --- new -----------------------------------------------------------------------

// Without parallelism flags `new` searches the executions (execution.hpp) and
// writes the fastest that fits: GPT-3 175B on 64 H100s, whose preset default
// (TP 16 x DP 4, no ZeRO) needs 214.5 GB per GPU, gets one that fits, and the
// note says which and of how many. A flag fixes its choice; the rest is
// searched; --execution given keeps the old meaning (below).
TEST_F(CliTest, NewSearchesTheFastestExecutionThatFits) {
  const std::string out = tmp("searched.json");
  const std::vector<std::string> args{
      "new",    "--preset", "gpt3-175b", "--network", dataFile("libra/tiny_network.yml"),
      "--json", "-o",       out};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_TRUE(contains(r.err, "note: chose TP ")) << r.err;
  EXPECT_TRUE(contains(r.err, "executions solved")) << r.err;
  EXPECT_TRUE(contains(r.err, "beyond the device's memory")) << r.err;
  const json j = parseJson(r.out);
  ASSERT_TRUE(j["memory_per_npu_bytes"].is_number());
  EXPECT_LE(j["memory_per_npu_bytes"].get<double>(), 80e9);

  // --tp 8 fixes TP; the rest is searched.
  std::vector<std::string> fixed = args;
  fixed.insert(fixed.end() - 2, {"--tp", "8"});
  const ProcessResult f = runLibra(fixed);
  ASSERT_EQ(f.exitCode, 0) << f.err;
  EXPECT_EQ(parseJson(f.out)["parallelism"]["tp"], 8);
  EXPECT_TRUE(contains(f.err, "note: chose TP 8 x")) << f.err;

  // Nothing fits: one line with the least need.
  std::vector<std::string> none = args;
  none.insert(none.end() - 2, {"--tp", "1", "--pp", "1", "--zero", "0"});
  const ProcessResult n = runLibra(none);
  EXPECT_EQ(n.exitCode, 2) << n.err;
  EXPECT_TRUE(contains(n.err, "fits the device's memory")) << n.err;
}

TEST_F(CliTest, NewWritesAProjectThatSolvesAndRecordsThePreset) {
  const std::string out = tmp("gpt3.json");
  std::vector<std::string> args{"new",
                                "--execution",
                                "given",
                                "--preset",
                                "gpt3-175b",
                                "--network",
                                dataFile("libra/tiny_network.yml"),
                                "-o",
                                out};
  // GPT-3 175B at TP 16 without ZeRO keeps 175e9 / 16 x 16 bytes = 175 GB of
  // weights, gradients and Adam states per GPU (Rajbhandari et al., arXiv:1910.02054,
  // section 3.1), more than an H100's 80 GB: refused in one line with the numbers.
  const ProcessResult refused = runLibra(args);
  SCOPED_TRACE(describe(args, refused));
  EXPECT_EQ(refused.exitCode, 2);
  ASSERT_EQ(refused.errLines().size(), 1u);
  EXPECT_TRUE(contains(refused.err,
                       "gpt3-175b on h100 (TP 16 x DP 4) does not fit the device's "
                       "memory: 214.5 GB per NPU"));
  EXPECT_TRUE(contains(refused.err, "optimizer 130.9"));
  EXPECT_TRUE(contains(refused.err, "against 80.0 GB"));
  EXPECT_TRUE(contains(refused.err, "--ignore-memory"));
  EXPECT_FALSE(std::filesystem::exists(out));

  args.push_back("--ignore-memory");
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  // One line on stdout saying what was written, with the work per iteration (the
  // published 1536 x 2048, Brown et al. Table 2.1 / Narayanan et al. SC'21 Table 1);
  // the default budget and the memory noted on stderr.
  ASSERT_EQ(r.outLines().size(), 1u);
  EXPECT_EQ(r.out.rfind("wrote " + out + ": ", 0), 0u);
  EXPECT_TRUE(contains(r.out, "gpt3-175b on h100 (TP 16 x DP 4)"));
  EXPECT_TRUE(contains(r.out,
                       "3,145,728 tokens per iteration (1536 x 2048; micro-batch 1 x 384 "
                       "on each of 4 replicas)"))
      << r.out;
  ASSERT_EQ(r.errLines().size(), 2u);
  EXPECT_EQ(r.err.rfind("note: ", 0), 0u);
  EXPECT_TRUE(contains(r.err, "total == 500"));
  EXPECT_TRUE(contains(r.err, "does not fit the device's memory (--ignore-memory)"));

  const json project = json::parse(readText(out));
  EXPECT_EQ(project["format"], "libra-project");
  EXPECT_EQ(project["constraints"], json::array({"total == 500"}));
  const json& origin = project["workloads"][0]["origin"];
  EXPECT_EQ(origin["preset"], "gpt3-175b");
  EXPECT_EQ(origin["device"], "h100");
  EXPECT_EQ(origin["parameters"]["tp"], 16);
  EXPECT_EQ(origin["parameters"]["dp"], 4);  // 64 NPUs / TP 16

  const ProcessResult solved = runLibra({"solve", out, "--json"});
  SCOPED_TRACE(describe({"solve", out, "--json"}, solved));
  ASSERT_EQ(solved.exitCode, 0);
  const json s = parseJson(solved.out);
  EXPECT_EQ(s["status"], "optimal");
  const double t = s["iteration_time_ns"].get<double>();
  EXPECT_GT(t, 0);
  // The training keys of every JSON result, consistent with the iteration time.
  EXPECT_EQ(s["tokens_per_iteration"], 1536.0 * 2048);
  EXPECT_NEAR(s["tokens_per_second"].get<double>(), 1536.0 * 2048 / (t * 1e-9), 1e-6);
  EXPECT_NEAR(s["time_to_train_s"].get<double>(), 300e9 / s["tokens_per_second"].get<double>(),
              1e-6);
  EXPECT_NEAR(s["mfu"].get<double>(), s["model_tflops_per_npu"].get<double>() / 989.4, 1e-9);
  EXPECT_GT(s["memory_per_npu_bytes"].get<double>(), 80e9);
  EXPECT_EQ(s["memory_capacity_bytes"], 80e9);
}

TEST_F(CliTest, NewAppliesTheParallelismAndGeneratorFlags) {
  const std::string out = tmp("llama.json");
  const std::vector<std::string> args{
      "new", "--execution", "given", "--preset", "llama3-70b", "--network",
      dataFile("libra/tiny_network.yml"), "--tp", "4", "--pp", "2", "--zero3",
      "--sequence-parallel", "--recompute", "--device", "b200", "--micro-batch", "2",
      "--sequence-length", "1024",
      // 2 micro-batches per replica: the preset's
      // 2048 sequences made 128 and 98,427 layers,
      // 50 s of this test under ASan.
      "--global-batch", "32", "--objective", "perf-per-cost", "--constraint", "total == 800",
      "--constraint", "bw[pod] <= 100", "--name", "Llama test", "-o", out};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");  // constraints given: no note
  const json project = json::parse(readText(out));
  EXPECT_EQ(project["name"], "Llama test");
  EXPECT_EQ(project["objective"], "perf-per-cost");
  EXPECT_EQ(project["constraints"], json::array({"total == 800", "bw[pod] <= 100"}));
  const json& q = project["workloads"][0]["origin"]["parameters"];
  EXPECT_EQ(project["workloads"][0]["origin"]["device"], "b200");
  EXPECT_EQ(q["tp"], 4);
  EXPECT_EQ(q["pp"], 2);
  EXPECT_EQ(q["dp"], 8);  // 64 / (4 x 2)
  EXPECT_EQ(q["zero3"], 1);
  EXPECT_EQ(q["sequence_parallel"], 1);
  EXPECT_EQ(q["recompute"], 1);
  EXPECT_EQ(q["micro_batch"], 2);
  EXPECT_EQ(q["sequence_length"], 1024);
  EXPECT_EQ(q["global_batch"], 32);
  EXPECT_EQ(q["micro_batches"], 2);  // 32 / (2 x 8)
  EXPECT_EQ(runLibra({"solve", out}).exitCode, 0);
}

TEST_F(CliTest, NewWithAParallelismThatDoesNotFitNamesTheDegreeAndTheDimension) {
  // 6 x 4 NPUs: TP 4 divides 24, but cannot be formed from the inside out (4 and 6
  // do not divide each other on dimension 0).
  const std::string net = tmp("six_by_four.yml");
  writeText(net, networkYaml({"Ring", "Switch"}, {6, 4}, {"InterNode", "InterPod"}));
  const std::string out = tmp("never.json");
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", net,
                    "--tp", "4", "-o", out},
                   {"TP 4", "dimension 0", "'node'"});
  EXPECT_FALSE(fs::exists(out));
  // A degree that does not divide the NPU count names the degree and the count.
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", net,
                    "--tp", "5", "-o", out},
                   {"TP 5", "24"});
  EXPECT_FALSE(fs::exists(out));
}

// Megatron-LM refuses a mixture of experts with TP > 1 without sequence parallelism:
// exit 2 naming the fix; with --sequence-parallel the same design is made.
TEST_F(CliTest, NewRefusesTensorParallelMoeWithoutSequenceParallelism) {
  const std::string net = tmp("moe.yml");
  writeText(net, networkYaml({"FullyConnected", "Switch"}, {8, 64}, {"InterNode", "InterPod"}));
  const std::string out = tmp("moe.json");
  expectUsageError(
      {"new", "--execution", "given", "--preset", "deepseek-v3", "--network", net, "--tp", "2",
       "--pp", "4", "--ep", "64", "--global-batch", "1024", "--ignore-memory", "-o", out},
      {"deepseek-v3", "TP 2", "--sequence-parallel"});
  EXPECT_FALSE(fs::exists(out));
  const std::vector<std::string> ok{"new",
                                    "--execution",
                                    "given",
                                    "--preset",
                                    "deepseek-v3",
                                    "--network",
                                    net,
                                    "--tp",
                                    "2",
                                    "--pp",
                                    "4",
                                    "--ep",
                                    "64",
                                    "--global-batch",
                                    "1024",
                                    "--ignore-memory",
                                    "--sequence-parallel",
                                    "-o",
                                    out};
  const ProcessResult made = runLibra(ok);
  EXPECT_EQ(made.exitCode, 0) << describe(ok, made);
  EXPECT_TRUE(fs::exists(out));
}

// The attention kernel and the expert dispatch and routing: the preset's published
// choice unless given, recorded in the project's origin; bad values, and expert flags
// on a dense model, are usage errors naming the flag.
TEST_F(CliTest, NewTakesTheAttentionKernelAndTheExpertDispatch) {
  const std::string net = tmp("moe.yml");
  writeText(net, networkYaml({"FullyConnected", "Switch"}, {8, 8}, {"InterNode", "InterPod"}));
  const std::string out = tmp("deepseek.json");
  std::vector<std::string> args{
      "new", "--preset",       "deepseek-v3", "--network",       net,      "--pp", "1", "--ep",
      "64",  "--global-batch", "64",          "--ignore-memory", "--json", "-o",   out};
  ProcessResult r = runLibra(args);
  ASSERT_EQ(r.exitCode, 0) << describe(args, r);
  json q = json::parse(readText(out))["workloads"][0]["origin"]["parameters"];
  EXPECT_EQ(q["fused_attention"], 1);  // DeepSeek-V3's published run
  EXPECT_EQ(q["deepep_dispatch"], 1);
  EXPECT_EQ(q["contiguous_routing"], 0);
  const json printed = json::parse(r.out);
  EXPECT_EQ(printed["parallelism"]["moe_dispatcher"], "deepep") << r.out;
  EXPECT_EQ(printed["parallelism"]["attention"], "fused") << r.out;

  args.insert(args.end() - 3, {"--attention", "materialized", "--moe-dispatcher", "AllToAll",
                               "--moe-routing", "contiguous"});
  r = runLibra(args);
  ASSERT_EQ(r.exitCode, 0) << describe(args, r);
  q = json::parse(readText(out))["workloads"][0]["origin"]["parameters"];
  EXPECT_EQ(q["fused_attention"], 0);
  EXPECT_EQ(q["deepep_dispatch"], 0);
  EXPECT_EQ(q["contiguous_routing"], 1);

  const std::string never = tmp("never.json");
  const std::string tiny = dataFile("libra/tiny_network.yml");
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", tiny,
                    "--attention", "flash", "-o", never},
                   {"--attention", "flash", "fused"});
  expectUsageError({"new", "--execution", "given", "--preset", "deepseek-v3", "--network", net,
                    "--moe-dispatcher", "nccl", "-o", never},
                   {"--moe-dispatcher", "nccl", "deepep"});
  expectUsageError({"new", "--execution", "given", "--preset", "deepseek-v3", "--network", net,
                    "--moe-routing", "hash", "-o", never},
                   {"--moe-routing", "hash", "contiguous"});
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", tiny,
                    "--moe-dispatcher", "deepep", "-o", never},
                   {"--moe-dispatcher", "gpt3-175b", "experts"});
  expectUsageError({"new", "--execution", "given", "--preset", "resnet50", "--network", tiny,
                    "--attention", "fused", "-o", never},
                   {"--attention", "resnet50"});
  EXPECT_FALSE(fs::exists(never));
}

TEST_F(CliTest, NewRejectsBadFlagsWithOneLine) {
  const std::string net = dataFile("libra/tiny_network.yml");
  const std::string out = tmp("never.json");
  expectUsageError(
      {"new", "--execution", "given", "--preset", "gpt-9", "--network", net, "-o", out},
      {"--preset", "gpt-9", "gpt3-175b"});
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--device", "h900",
                    "--network", net, "-o", out},
                   {"--device", "h900", "h100"});
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", net,
                    "--tp", "0", "-o", out},
                   {"--tp", "0"});
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", net,
                    "--tp", "two", "-o", out},
                   {"--tp", "two"});
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network",
                    dataFile("nope.yml"), "-o", out},
                   {"--network", "nope.yml"});
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", net,
                    "--constraint", "bw[rack] <= 5", "-o", out},
                   {"--constraint", "rack"});
  expectUsageError({"new", "--execution", "given", "--preset", "gpt3-175b", "--network", net},
                   {"-o"});
  EXPECT_FALSE(fs::exists(out));
}

// --- sweep ---------------------------------------------------------------------

struct SmallSweep {
  static constexpr int kNpus = 16;
  // Shapes: ordered factorizations of 16 into 2 and 3 factors >= 2 (3 and 3), each
  // dimension Ring or Switch. With the reference prices only InterPod (always the
  // last dimension) has a Nic price, and a Switch needs one: a shape with a Switch
  // anywhere else is skipped. GPT-3's TP 16 spans every shape (powers of 2 from the
  // inside out), so nothing else is skipped.
  static int enumerated() {
    int n = 0;
    for (int d = 2; d <= 3; ++d) n += orderedFactorizations(kNpus, d) * (1 << d);
    return n;
  }
  static int solved() {
    int n = 0;
    // Every dimension but the last must be a Ring; the last is a Ring or a Switch.
    for (int d = 2; d <= 3; ++d) n += orderedFactorizations(kNpus, d) * 2;
    return n;
  }
  static std::vector<std::string> args() {
    // GPT-3 at TP 16 needs 214.5 GB per GPU (see NewWrites...): --ignore-memory.
    return {"sweep", "--preset", "gpt3-175b",   "--npus", "16", "--dims",
            "2..3",  "--blocks", "Ring,Switch", "--jobs", "2",  "--ignore-memory"};
  }
};

TEST_F(CliTest, SweepCountsTheShapesAndItsBestShapeMatchesNewAndSolve) {
  ASSERT_EQ(orderedFactorizations(16, 2), 3);  // 2x8, 4x4, 8x2
  ASSERT_EQ(orderedFactorizations(16, 3), 3);  // 2x2x4, 2x4x2, 4x2x2
  ASSERT_EQ(SmallSweep::enumerated(), 36);     // docs/workloads.md section 7
  ASSERT_EQ(SmallSweep::solved(), 12);

  std::vector<std::string> args = SmallSweep::args();
  args.push_back("--json");
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_FALSE(contains(r.err, "\r")) << "no progress bar when stderr is not a terminal";
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "done");
  EXPECT_EQ(j["enumerated"], SmallSweep::enumerated());
  EXPECT_EQ(j["solved"], SmallSweep::solved());
  EXPECT_EQ(j["skipped"], SmallSweep::enumerated() - SmallSweep::solved());
  EXPECT_EQ(j["not_run"], 0);
  ASSERT_EQ(j["skip_reasons"].size(), 1u);
  EXPECT_TRUE(contains(j["skip_reasons"][0]["reason"].get<std::string>(), "Switch"));
  ASSERT_EQ(j["shapes"].size(), static_cast<std::size_t>(SmallSweep::solved()));
  for (const json& shape : j["shapes"]) {
    const json& dims = shape["dimensions"];
    int product = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      product *= dims[d]["npus"].get<int>();
      if (d + 1 < dims.size()) {
        EXPECT_EQ(dims[d]["block"], "Ring") << shape["label"];
      }
    }
    EXPECT_EQ(product, 16) << shape["label"];
    EXPECT_EQ(dims.back()["cost_level"], "InterPod");
  }
  ASSERT_EQ(j["best_performance"].size(), 5u);
  ASSERT_EQ(j["ranking_performance"].size(), static_cast<std::size_t>(SmallSweep::solved()));

  // The best performance shape, written as a network file, through new + solve.
  const json& best = j["best_performance"][0];
  const json& shape = j["shapes"][best["shape"].get<int>()];
  std::vector<std::string> blocks, levels;
  std::vector<int> npus;
  for (const json& d : shape["dimensions"]) {
    blocks.push_back(d["block"].get<std::string>());
    npus.push_back(d["npus"].get<int>());
    levels.push_back(d["cost_level"].get<std::string>());
  }
  const std::string net = tmp("best.yml");
  writeText(net, networkYaml(blocks, npus, levels));
  const std::string project = tmp("best.json");
  const ProcessResult made = runLibra({"new", "--execution", "given", "--preset", "gpt3-175b",
                                       "--network", net, "--ignore-memory", "-o", project});
  ASSERT_EQ(made.exitCode, 0) << made.err;
  const ProcessResult solved = runLibra({"solve", project, "--json"});
  ASSERT_EQ(solved.exitCode, 0) << solved.err;
  const json s = parseJson(solved.out);
  EXPECT_REL_NEAR(s["iteration_time_ns"].get<double>(), best["iteration_time_ns"].get<double>(),
                  1e-9);
  EXPECT_REL_NEAR(s["network_cost_usd"].get<double>(), best["network_cost_usd"].get<double>(),
                  1e-6);

  // And its perf-per-cost optimum with --objective perf-per-cost.
  const ProcessResult ppc = runLibra({"solve", project, "--json", "--objective", "perf-per-cost"});
  ASSERT_EQ(ppc.exitCode, 0) << ppc.err;
  const json p = parseJson(ppc.out);
  const json& mine = shape["perf_per_cost"];
  EXPECT_REL_NEAR(p["iteration_time_ns"].get<double>() * p["network_cost_usd"].get<double>(),
                  mine["time_cost_ns_usd"].get<double>(), 1e-6);
}

TEST_F(CliTest, SweepTableAndCsv) {
  const std::string csv = tmp("shapes.csv");
  std::vector<std::string> args = SmallSweep::args();
  args.insert(args.end(), {"--csv", csv, "--top", "3"});
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  for (const char* part :
       {"36 enumerated, 12 solved, 24 skipped", "Wall time", "Best shapes for performance",
        "Best shapes for perf-per-cost", "3 of 12", "bandwidth (GB/s)", "iteration time",
        "network cost", "time x cost", "a Switch on a cost level", "wrote "}) {
    EXPECT_TRUE(contains(r.out, part)) << "missing " << part;
  }
  const std::string text = readText(csv);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 13u);  // header + one row per solved shape
  EXPECT_EQ(lines[0].rfind("shape,dimensions,npus,blocks,cost_levels,performance_bw0_gbps", 0), 0u)
      << lines[0];
}

TEST_F(CliTest, SweepRejectsBadArgumentsWithOneLine) {
  const std::vector<std::string> base{"sweep", "--preset", "gpt3-175b"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  expectUsageError(with({"--npus", "3"}), {"--npus", "3", "at least 4"});
  expectUsageError(with({"--npus", "lots"}), {"--npus", "lots"});
  expectUsageError(with({"--npus", "16", "--dims", "4..2"}), {"--dims", "4", "2", "greater"});
  expectUsageError(with({"--npus", "16", "--dims", "1..3"}), {"--dims", "1"});
  expectUsageError(with({"--npus", "16", "--dims", "2..5"}), {"--dims", "5"});
  expectUsageError(with({"--npus", "16", "--dims", "two"}), {"--dims", "two"});
  expectUsageError(with({"--npus", "16", "--blocks", "Ring,Torus"}), {"--blocks", "Torus"});
  expectUsageError(with({"--npus", "16", "--blocks", "Ring,,Switch"}), {"--blocks", "empty"});
  expectUsageError(with({"--npus", "16", "--blocks", "Ring,ring"}), {"--blocks", "twice"});
  expectUsageError(with({"--npus", "16", "--jobs", "0"}), {"--jobs", "0"});
  expectUsageError(with({"--npus", "16", "--top", "0"}), {"--top", "0"});
  // 7 is prime: no shape of 2 or more dimensions; 12 = 2 x 2 x 3 has none of 4.
  expectUsageError(with({"--npus", "7", "--dims", "2..3"}), {"--npus", "7", "at most 1"});
  expectUsageError(with({"--npus", "12", "--dims", "4"}), {"--npus", "12", "2 x 2 x 3"});
  expectUsageError(with({"--npus", "16", "--json", "--csv", tmp("x.csv")}), {"--json", "--csv"});
  expectUsageError(with({"--npus", "16", "--constraint", "total = 500"}), {"--constraint"});
  expectUsageError(with({"--npus", "16", "--tp", "3"}), {"TP 3", "16"});
  // A dimension no shape has (every shape's names come from the cost levels).
  expectUsageError(with({"--npus", "16", "--constraint", "bw[rack] <= 5"}),
                   {"--constraint", "rack", "chiplet, package, node, pod"});
  expectUsageError(with({"--npus", "16", "--dims", "2", "--constraint", "bw[chiplet] <= 5"}),
                   {"--constraint", "chiplet", "node, pod"});
  expectUsageError({"sweep", "--npus", "16"}, {"--preset"});
  // The memory per NPU is the same on every shape: refused before sweeping, with
  // the numbers (175 GB of model states at TP 16, Rajbhandari et al. section 3.1).
  expectUsageError(with({"--npus", "16"}), {"TP 16 x DP 1, 16 NPUs", "does not fit",
                                            "214.5 GB per NPU", "80.0 GB", "--ignore-memory"});
  // Work per iteration: a global batch the 16 data-parallel replicas do not divide.
  expectUsageError(with({"--npus", "16", "--tp", "1", "--global-batch", "1000"}),
                   {"global batch of 1000 sequences", "16 data-parallel replicas"});
  expectUsageError(with({"--npus", "16", "--global-batch", "0"}), {"--global-batch", "0"});
  expectUsageError(
      with({"--npus", "16", "--tp", "1", "--micro-batch", "7", "--global-batch", "32"}),
      {"micro-batch of 7 sequences", "2 sequences of each replica"});
}

// Issue 25: GPT-3's default TP 16 x DP 256 needs 214.5 GB per H100, and the
// sweep stopped at once. Without parallelism flags the execution of least
// compute time that fits takes its place, named in a note; a degree flag keeps
// the old refusal (the flags are the user's choice).
TEST_F(CliTest, SweepWithoutFlagsChoosesAnExecutionThatFits) {
  const std::vector<std::string> args{"sweep",  "--preset", "gpt3-175b", "--npus", "4096",
                                      "--dims", "2",        "--blocks",  "Ring",   "--json"};
  const ProcessResult r = runLibra(args);
  ASSERT_EQ(r.exitCode, 0) << describe(args, r);
  EXPECT_TRUE(contains(r.err, "the preset's default TP 16 x DP 256 needs 214.5 GB per NPU: chose"))
      << r.err;
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_NE(j["parallelism"], "TP 16 x DP 256");
  EXPECT_TRUE(j["memory_fits"].get<bool>());
  EXPECT_LE(j["memory_per_npu_bytes"].get<double>(), j["memory_capacity_bytes"].get<double>());
  expectUsageError(
      {"sweep", "--preset", "gpt3-175b", "--npus", "4096", "--dims", "2", "--tp", "16"},
      {"does not fit", "214.5 GB per NPU"});
}

TEST_F(CliTest, SweepNotesAnEmptyDimensionCount) {
  // 12 = 2 x 2 x 3 splits into at most 3 dimensions: 2..4 sweeps 2 and 3, with a note.
  // 32 images on each of the 12 NPUs (8192 does not split over 12).
  const ProcessResult r = runLibra({"sweep", "--preset", "resnet50", "--npus", "12", "--dims",
                                    "2..4", "--blocks", "Ring", "--global-batch", "384", "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "at most 3")) << r.err;
  const json j = parseJson(r.out);
  // Ordered factorizations of 12: into 2 factors 4 (2x6 3x4 4x3 6x2), into 3 3 (2x2x3 ...).
  EXPECT_EQ(j["enumerated"], orderedFactorizations(12, 2) + orderedFactorizations(12, 3));
  EXPECT_EQ(j["enumerated"], 7);
}

TEST_F(CliTest, SweepStopsCleanlyOnCtrlC) {
  // 2^24 NPUs in 2..4 dimensions: 23 x 9 + 253 x 27 + 1771 x 81 = 150,489 shapes,
  // over a minute on one thread; the interrupt comes after a second.
  // One sequence on each of the DP 2^20 replicas; memory not checked.
  const std::vector<std::string> args{
      "sweep",   "--preset",        "gpt3-175b", "--npus", "16777216", "--global-batch",
      "1048576", "--ignore-memory", "--jobs",    "1",      "--json"};
  // Startup takes milliseconds; after a second the sweep (and its handler) runs.
  const ProcessResult r = runInterrupted(libraExe(), args, tmp_, std::chrono::milliseconds(1000));
  SCOPED_TRACE(describe(args, r));
  ASSERT_FALSE(r.timedOut);
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exitCode, 130);
  EXPECT_TRUE(contains(r.err, "libra: sweep interrupted")) << r.err;
  const json j = parseJson(r.out);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "cancelled");
  EXPECT_GT(j["not_run"].get<int>(), 0);
  EXPECT_EQ(j["solved"].get<int>() + j["skipped"].get<int>() + j["not_run"].get<int>(),
            j["enumerated"].get<int>());
  EXPECT_EQ(j["shapes"].size(), j["solved"].get<std::size_t>());
}

TEST_F(CliTest, HelpOfTheNewCommandsHasUnitsExamplesAndExitCodes) {
  const ProcessResult top = runLibra({"--help"});
  for (const char* command : {"presets", "new", "sweep"}) {
    EXPECT_TRUE(contains(top.out, command)) << "libra --help lacks " << command;
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands{
      {"presets", {"--json", "--devices", "FLOP/s", "billions", "Examples", "Exit codes"}},
      {"new",
       {"--preset",
        "--execution",
        "--placements",
        "--network",
        "--tp",
        "--ep",
        "--pp",
        "--dp",
        "--device",
        "default h100",
        "--training-loop",
        "--sequence-parallel",
        "--zero3",
        "--recompute",
        "--micro-batch",
        "--global-batch",
        "--train-tokens",
        "--ignore-memory",
        "--sequence-length",
        "--constraint",
        "total == 500",
        "--cost-model",
        "--name",
        "--objective",
        "-o",
        "GB/s",
        "Examples",
        "Exit codes"}},
      {"sweep",
       {"--preset", "--npus", "--dims", "--blocks", "--constraint", "--jobs", "--csv", "--json",
        "--top", "--global-batch", "--ignore-memory", "GB/s", "Ctrl-C", "130", "Examples",
        "Exit codes"}},
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

// --- the GUI's bundled examples --------------------------------------------------

TEST_F(CliTest, BundledExamplesAreMadeByLibraNew) {
  const fs::path examples = fs::path(LIBRA_SOURCE_DIR) / "resources" / "examples";
  const ProcessResult r =
      runProcess("/bin/sh", {(examples / "regenerate.sh").string(), libraExe(), tmp_.string()});
  SCOPED_TRACE("regenerate.sh: exit " + std::to_string(r.exitCode) + "\n" + r.out + r.err);
  ASSERT_EQ(r.exitCode, 0);
  for (const char* name : {"gpt3-3d.json", "gpt3-4d.json"}) {
    ASSERT_TRUE(fs::exists(tmp_ / name)) << name;
    EXPECT_TRUE(readText(tmp_ / name) == readText(examples / name))
        << "resources/examples/" << name
        << " differs from what 'libra new' writes; run resources/examples/regenerate.sh "
           "BUILD/app/libra/libra and rebuild the GUI";
  }
}

}  // namespace
}  // namespace libra::testing
