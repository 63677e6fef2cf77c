// One run of `libra`: what main.cpp calls, and the command-line tests in-process.
#pragma once

namespace libra::cli {

// Runs one command line as `libra` does (argv[0] is the program), on std::cout
// and std::cerr; returns the exit code.
int runCommandLine(int argc, const char* const* argv);

}  // namespace libra::cli
