// Runs a program with arguments and captures its stdout, stderr and exit code,
// with a deadline (a hang is a test failure, not a stuck test run).
#pragma once

#include <chrono>
#include <filesystem>
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

// Runs `program args` with stdout and stderr in files in `dir`, sends it SIGINT
// after `delay` (as Ctrl-C on a terminal would), and waits (60 s at most) for
// it to end.
ProcessResult runInterrupted(const std::string& program, const std::vector<std::string>& args,
                             const std::filesystem::path& dir, std::chrono::milliseconds delay);

}  // namespace libra::testing
