// The `libra` command line: shared context, exit codes and the commands'
// register functions. Each command (or group of commands) lives in its own file
// and adds itself to the CLI11 app through one register function; commands.cpp
// only lists them. To add a command: write `registerFoo(CLI::App&, Context&)` in
// foo_command.cpp, declare it here and append it to the list in commands.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace libra::cli {

// The exit codes of spec/cli.md.
enum ExitCode : int {
  kExitSuccess = 0,
  kExitNoSolution = 1,     // infeasible, unbounded, or the solver failed
  kExitBadInput = 2,       // bad usage or bad input; one line on stderr
  kExitInterrupted = 130,  // stopped by Ctrl-C (128 + SIGINT) after reporting what was done
};

struct Context {
  std::ostream& out;
  std::ostream& err;
  bool color = false;  // stdout is a terminal that takes ANSI colours
  bool json = false;   // --json was given: errors are also printed as a JSON object
  int exitCode = kExitSuccess;
  std::string word = {};  // the first word of the command line: the command to run
};

using RegisterCommand = void (*)(CLI::App& app, Context& context);

void registerImportLibra(CLI::App& app, Context& context);     // import_command.cpp
void registerSolve(CLI::App& app, Context& context);           // solve_command.cpp
void registerEvaluate(CLI::App& app, Context& context);        // solve_command.cpp
void registerPareto(CLI::App& app, Context& context);          // pareto_command.cpp
void registerBench(CLI::App& app, Context& context);           // bench_command.cpp
void registerReproduceLibra(CLI::App& app, Context& context);  // reproduce_command.cpp
void registerPresets(CLI::App& app, Context& context);         // presets_command.cpp
void registerNew(CLI::App& app, Context& context);             // new_command.cpp
void registerSweep(CLI::App& app, Context& context);           // sweep_command.cpp
void registerCodesign(CLI::App& app, Context& context);        // codesign_command.cpp
void registerValidate(CLI::App& app, Context& context);        // validate_command.cpp
void registerExportAstraSim(CLI::App& app, Context& context);  // export_command.cpp
void registerCompare(CLI::App& app, Context& context);         // compare_command.cpp
void registerReport(CLI::App& app, Context& context);          // report_command.cpp

// Adds the subcommand NAME to the app. Returns it when its flags are needed,
// that is when it is the command given (context.word), and nullptr otherwise:
// the other commands only need their name and description, for the help and
// the error about an unknown command, so a start does not build every
// command's flags.
CLI::App* addCommand(CLI::App& app, const Context& context, const std::string& name,
                     const std::string& description);

// Sets up the top-level app (description, --version, help footer).
void configureApp(CLI::App& app);

// Parses the arguments and runs the selected command. Maps every error to the
// exit codes above: usage and input errors print one line
// `libra: error: <what>` on stderr and return 2; --help and --version return 0.
int run(CLI::App& app, int argc, const char* const* argv, Context& context);

// True when stdout is a terminal, TERM is not "dumb" and NO_COLOR is not set.
bool stdoutTakesColor();

}  // namespace libra::cli
