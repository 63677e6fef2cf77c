// `--precision bf16|fp8` and `--utilization U` in `libra new` (and, through the
// shared flags, `sweep` and `codesign`): FP8 makes the compute faster on a device
// that has it, is refused with the devices that have it named where it cannot
// run, and a stated utilization is kept in the project.
#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

struct Made {
  ProcessResult run;
  json solved;
};

class PrecisionCli : public CliTest {
 protected:
  Made makeAndSolve(const std::string& name, const std::vector<std::string>& extra) {
    const std::string out = tmp(name);
    std::vector<std::string> args{
        "new",         "--preset", "llama3-70b", "--network", dataFile("libra/tiny_network.yml"),
        "--execution", "given",    "--tp",       "8",         "--ignore-memory",
        "-o",          out};
    args.insert(args.end(), extra.begin(), extra.end());
    Made m;
    m.run = runLibra(args);
    if (m.run.exitCode != 0) return m;
    const ProcessResult solved = runLibra({"solve", out, "--json"});
    if (solved.exitCode == 0) m.solved = parseJson(solved.out);
    return m;
  }
};

TEST_F(PrecisionCli, Fp8ComputesFasterAndSaysSo) {
  const Made bf16 = makeAndSolve("bf16.json", {});
  const Made fp8 = makeAndSolve("fp8.json", {"--precision", "fp8"});
  ASSERT_EQ(bf16.run.exitCode, 0) << bf16.run.err;
  ASSERT_EQ(fp8.run.exitCode, 0) << fp8.run.err;
  EXPECT_TRUE(contains(fp8.run.out, "FP8")) << fp8.run.out;
  const double a = bf16.solved["compute_time_ns"].get<double>();
  const double b = fp8.solved["compute_time_ns"].get<double>();
  // The weight GEMMs are most of a 70B model's compute: at twice the rate the
  // compute takes between half and all of the BF16 time.
  EXPECT_LT(b, 0.8 * a);
  EXPECT_GT(b, 0.5 * a);
}

TEST_F(PrecisionCli, Fp8OnADeviceWithoutItIsRefusedNamingTheOnesWithIt) {
  const Made a100 = makeAndSolve("a100.json", {"--precision", "fp8", "--device", "a100"});
  EXPECT_EQ(a100.run.exitCode, 2);
  EXPECT_TRUE(contains(a100.run.err, "--precision fp8")) << a100.run.err;
  EXPECT_TRUE(contains(a100.run.err, "'a100'")) << a100.run.err;
  EXPECT_TRUE(contains(a100.run.err, "h100")) << a100.run.err;
  const Made fp16 = makeAndSolve("fp16.json", {"--precision", "fp16"});
  EXPECT_EQ(fp16.run.exitCode, 2);
  EXPECT_TRUE(contains(fp16.run.err, "use bf16 or fp8")) << fp16.run.err;
}

TEST_F(PrecisionCli, AStatedUtilizationSlowsComputeAndStaysInTheProject) {
  const Made calibrated = makeAndSolve("calibrated.json", {});
  const Made stated = makeAndSolve("stated.json", {"--utilization", "0.385"});
  ASSERT_EQ(stated.run.exitCode, 0) << stated.run.err;
  // Half the calibrated 0.77: the compute-bound lines take twice as long; the
  // memory-bound ones (norms, fused attention statistics) do not change, so the
  // whole compute is between 1x and 2x.
  const double ratio = stated.solved["compute_time_ns"].get<double>() /
                       calibrated.solved["compute_time_ns"].get<double>();
  EXPECT_GT(ratio, 1.8);
  EXPECT_LE(ratio, 2.0 + 1e-9);
  const json project = json::parse(readText(tmp("stated.json")));
  EXPECT_EQ(project["workloads"][0]["origin"]["parameters"]["utilization"], 0.385);
  for (const char* bad : {"0", "1.2", "abc"}) {
    const Made m = makeAndSolve("bad.json", {"--utilization", bad});
    EXPECT_EQ(m.run.exitCode, 2) << bad;
    EXPECT_TRUE(contains(m.run.err, "--utilization")) << m.run.err;
  }
}

// --shard-group N (hybrid sharding, workloads.md section 2.14): labelled in what
// `new` prints, kept in the project, refused without ZeRO with the fix named.
TEST_F(PrecisionCli, ShardGroupIsLabelledStoredAndChecked) {
  const Made hybrid = makeAndSolve("hybrid.json", {"--zero", "3", "--shard-group", "2"});
  ASSERT_EQ(hybrid.run.exitCode, 0) << hybrid.run.err;
  EXPECT_TRUE(contains(hybrid.run.out, "sharded over 2")) << hybrid.run.out;
  const json project = json::parse(readText(tmp("hybrid.json")));
  EXPECT_EQ(project["workloads"][0]["origin"]["parameters"]["shard_group"], 2);
  const Made noZero = makeAndSolve("nozero.json", {"--shard-group", "2"});
  EXPECT_EQ(noZero.run.exitCode, 2);
  EXPECT_TRUE(contains(noZero.run.err, "ZeRO stage 1-3")) << noZero.run.err;
}

// --cp N (context parallelism, workloads.md section 2.15): labelled in what `new`
// prints, kept in the project, and a degree that does not split the sequence is
// refused naming the rule and the flags to change.
TEST_F(PrecisionCli, ContextParallelIsLabelledStoredAndChecked) {
  const Made cp = makeAndSolve("cp.json", {"--cp", "2"});
  ASSERT_EQ(cp.run.exitCode, 0) << cp.run.err;
  EXPECT_TRUE(contains(cp.run.out, "TP 8 x CP 2 x DP 4")) << cp.run.out;
  const json project = json::parse(readText(tmp("cp.json")));
  EXPECT_EQ(project["workloads"][0]["origin"]["parameters"]["cp"], 2);
  const Made plain = makeAndSolve("plain.json", {});
  ASSERT_EQ(plain.run.exitCode, 0) << plain.run.err;
  // The KV exchange adds communication; the compute of half the tokens per NPU
  // at half the replicas' batch is the same work per NPU.
  EXPECT_GT(cp.solved["communication_time_ns"].get<double>(),
            plain.solved["communication_time_ns"].get<double>());
  const Made odd = makeAndSolve("odd.json", {"--cp", "2", "--sequence-length", "8190"});
  EXPECT_EQ(odd.run.exitCode, 2);
  EXPECT_TRUE(contains(odd.run.err, "multiple of 2 x CP")) << odd.run.err;
  EXPECT_TRUE(contains(odd.run.err, "--sequence-length")) << odd.run.err;
  for (const char* bad : {"0", "-1", "two"}) {
    const Made m = makeAndSolve("bad.json", {"--cp", bad});
    EXPECT_EQ(m.run.exitCode, 2) << bad;
    EXPECT_TRUE(contains(m.run.err, "--cp")) << m.run.err;
  }
}

// --expert-tp N (Megatron-Core's MoE layout, workloads.md section 2.5): labelled with
// the EP NPUs beyond the TP group, kept in the project, refused where it cannot
// fold, and chosen by the search when given.
TEST_F(PrecisionCli, ExpertTpIsLabelledStoredCheckedAndSearched) {
  auto made = [&](const std::string& name, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"new",
                                  "--preset",
                                  "mixtral-8x22b",
                                  "--network",
                                  dataFile("libra/tiny_network.yml"),
                                  "--ignore-memory",
                                  "-o",
                                  tmp(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    return runLibra(args);
  };
  const ProcessResult folded =
      made("folded.json", {"--execution", "given", "--tp", "4", "--expert-tp", "1", "--ep", "8"});
  ASSERT_EQ(folded.exitCode, 0) << folded.err;
  EXPECT_TRUE(contains(folded.out, "TP 4 x EP 8 (expert TP 1, EP 2 beyond TP) x DP 8"))
      << folded.out;
  const json project = json::parse(readText(tmp("folded.json")));
  EXPECT_EQ(project["workloads"][0]["origin"]["parameters"]["expert_tp"], 1);
  const ProcessResult solved = runLibra({"solve", tmp("folded.json"), "--json"});
  EXPECT_EQ(solved.exitCode, 0) << solved.err;
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
      {{"--tp", "4", "--expert-tp", "3", "--ep", "8"},
       "must divide the tensor-parallel degree TP 4"},
      {{"--tp", "4", "--expert-tp", "1", "--ep", "2"}, "must be a multiple of TP / expert TP = 4"},
      {{"--tp", "4", "--expert-tp", "0"}, "--expert-tp"}};
  for (const auto& [flags, message] : bad) {
    std::vector<std::string> extra{"--execution", "given"};
    extra.insert(extra.end(), flags.begin(), flags.end());
    const ProcessResult r = made("bad.json", extra);
    EXPECT_EQ(r.exitCode, 2) << message;
    EXPECT_TRUE(contains(r.err, message)) << message << ": " << r.err;
  }
  const ProcessResult searched = made("searched.json", {"--tp", "4", "--expert-tp", "2"});
  ASSERT_EQ(searched.exitCode, 0) << searched.err;
  EXPECT_TRUE(contains(searched.err, "(expert TP 2, EP ")) << searched.err;
}

// When the search has nothing to try, the fixed degree that rules everything out
// is named with the rule it breaks.
TEST_F(PrecisionCli, ASearchWithNoExecutionSaysWhichDegreeRulesItOut) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--cp=3", "CP 3 must divide the 64 NPUs and split the sequence of 8192 tokens"},
      {"--tp=3", "TP 3 must divide the 64 NPUs, the hidden size 8192 and the 64 heads"},
      {"--pp=7", "PP 7 must divide the 64 NPUs"},
      {"--ep=2", "EP 2 needs a mixture-of-experts model; 'llama3-70b' is dense"}};
  for (const auto& [flag, message] : cases) {
    const ProcessResult r =
        runLibra({"new", "--preset", "llama3-70b", "--network", dataFile("libra/tiny_network.yml"),
                  flag, "-o", tmp("none.json")});
    EXPECT_EQ(r.exitCode, 2) << flag;
    EXPECT_TRUE(contains(r.err, message)) << flag << ": " << r.err;
  }
}

}  // namespace
}  // namespace libra::testing
