// Runs a program with arguments and captures its stdout, stderr and exit code,
// with a deadline (a hang is a test failure, not a stuck test run).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace libra::testing {

struct ProcessResult {
  int exitCode = -1;      // the exit status; 128 + signal when killed by a signal
  bool signaled = false;  // crashed or killed
  bool timedOut = false;
  std::string out;
  std::string err;

  // stderr split into lines, without the line ends.
  std::vector<std::string> errLines() const;
  std::vector<std::string> outLines() const;
};

ProcessResult runProcess(const std::string& program, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout = std::chrono::seconds(120));

// The entry of a program: its main, with argv[0] the program's name.
using ProgramEntry = std::function<int(int argc, const char* const* argv)>;

// Runs `entry` on `program args` inside this process as the program would run
// on its own: stdin reads /dev/null, and file descriptors 1 and 2 (std::cout,
// std::cerr, C's stdio and anything else that writes to them) go to files whose
// contents become out and err; the exit code is what `entry` returns. A run
// longer than `timeout` aborts this process with a message (a hang is a test
// failure, not a stuck test run). Not thread-safe: one run at a time.
ProcessResult runInProcess(const ProgramEntry& entry, const std::string& program,
                           const std::vector<std::string>& args,
                           std::chrono::milliseconds timeout = std::chrono::seconds(120));

// Runs `program args` with stdout and stderr in files in `dir`, sends it SIGINT
// after `delay` (as Ctrl-C on a terminal would), and waits (60 s at most) for
// it to end.
ProcessResult runInterrupted(const std::string& program, const std::vector<std::string>& args,
                             const std::filesystem::path& dir, std::chrono::milliseconds delay);

}  // namespace libra::testing
