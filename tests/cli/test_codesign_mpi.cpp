// `mpirun --oversubscribe -n 4 libra codesign ...` (built with LIBRA_WITH_MPI;
// registered where mpirun is found): rank 0 prints the JSON one process prints,
// but for the keys that measure the run rather than its answer (wall_s, the
// counts of designs evaluated and pruned, which depend on the order pruning
// sees the designs; docs/commands.md). Both objectives, 4 ranks of 1 thread
// against one process of 2 threads, on two cores or fewer.
#include <unistd.h>

#include <cstdlib>

#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

using CodesignMpiTest = CliTest;

// The keys that differ between runs of the same search.
json withoutRunKeys(json j) {
  for (const char* key : {"wall_s", "evaluated", "pruned", "jobs"}) j.erase(key);
  return j;
}

ProcessResult runMpi(int processes, const std::vector<std::string>& args) {
  std::vector<std::string> all{"--oversubscribe", "-n", std::to_string(processes)};
  // As root, Open MPI refuses to start without it.
  if (geteuid() == 0) all.emplace_back("--allow-run-as-root");
  // Under AddressSanitizer (the ci preset), no leak check in the processes
  // mpirun starts: Open MPI 4.1 leaves what MPI_Init allocates at exit, much
  // of it in the plugins MPI_Finalize unloads, whose frames LeakSanitizer then
  // shows as "<unknown module>", which no suppression can name. The rest of
  // ASan stays on; the engine's co-design is leak-checked by the tests that
  // run it without MPI.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string options = asan != nullptr && *asan != '\0' ? std::string(asan) + ":" : "";
  all.insert(all.end(), {"-x", "ASAN_OPTIONS=" + options + "detect_leaks=0"});
  all.push_back(libraExe());
  all.insert(all.end(), args.begin(), args.end());
  return runProcess(LIBRA_TEST_MPIRUN, all, std::chrono::seconds(300));
}

void expectSameJson(const std::vector<std::string>& args) {
  std::vector<std::string> one = args;
  one.insert(one.end(), {"--jobs", "2"});
  const ProcessResult single = runLibra(one);
  ASSERT_EQ(single.exitCode, 0) << describe(one, single);
  std::vector<std::string> four = args;
  four.insert(four.end(), {"--jobs", "1"});
  const ProcessResult spread = runMpi(4, four);
  ASSERT_EQ(spread.exitCode, 0) << describe(four, spread);
  const json a = parseJson(single.out);
  const json b = parseJson(spread.out);
  ASSERT_TRUE(a.is_object()) << single.out;
  ASSERT_TRUE(b.is_object()) << spread.out;
  EXPECT_EQ(b["status"], "done");
  EXPECT_GE(b["designs"].size(), 3u);
  EXPECT_EQ(b["evaluated"].get<double>() + b["pruned"].get<double>(),
            a["evaluated"].get<double>() + a["pruned"].get<double>());
  EXPECT_EQ(withoutRunKeys(a), withoutRunKeys(b)) << "one process:\n"
                                                  << a.dump(1) << "\n4 processes:\n"
                                                  << b.dump(1);
  // Rank 0 alone prints: the note about the default constraint comes once.
  std::size_t notes = 0;
  for (const std::string& line : spread.errLines())
    notes += contains(line, "note: no --constraint");
  EXPECT_EQ(notes, 1u) << spread.err;
}

TEST_F(CodesignMpiTest, FourProcessesPrintWhatOneProcessPrints) {
  expectSameJson({"codesign", "--preset", "gpt3-175b", "--npus", "64", "--dims", "2..3", "--top",
                  "3", "--json"});
}

TEST_F(CodesignMpiTest, FourProcessesPrintWhatOneProcessPrintsPerfPerCost) {
  expectSameJson({"codesign", "--preset", "turing-nlg-17b", "--npus", "16", "--dims", "2..3",
                  "--top", "3", "--objective", "perf-per-cost", "--cost-scope", "system",
                  "--placements", "auto", "--json"});
}

}  // namespace
}  // namespace libra::testing
