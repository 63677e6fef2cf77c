// The top-level app and the one place where errors become exit codes.
#include "cli.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <ostream>
#include <string>

#include "libra/analysis.hpp"
#include "libra/error.hpp"
#include "output.hpp"

#ifndef LIBRA_VERSION
#define LIBRA_VERSION "unknown"
#endif

namespace libra::cli {

namespace {

constexpr const char* kDescription =
    "libra: workload-aware bandwidth design of multi-dimensional networks for AI training "
    "(the LIBRA model).\n"
    "\n"
    "Units: bandwidth in GB/s of one NPU into one dimension (1 GB = 1e9 bytes), times in ns\n"
    "(printed in the unit that suits them), network cost in US dollars. Dimension 0 is the\n"
    "innermost.\n";

constexpr const char* kFooter =
    "Examples:\n"
    "  libra import-libra --network 3d_network.yml --workload GPT_3.txt \\\n"
    "                     --communicator GPT_3_3d.yml -o gpt3.json\n"
    "  libra solve gpt3.json\n"
    "  libra solve gpt3.json --objective perf-per-cost --constraint 'cost <= 5e8' --json\n"
    "  libra evaluate gpt3.json --bandwidth 200,200,100\n"
    "  libra pareto gpt3.json --points 20 --csv > front.csv\n"
    "  libra compare designs.json --scenarios fast,cheap --baseline cheap\n"
    "\n"
    "Run 'libra COMMAND --help' for a command's flags.\n"
    "Exit codes: 0 success; 1 no solution (infeasible, unbounded, solver failure);\n"
    "2 bad usage or bad input (one line on stderr says what and where).";

std::string commandList(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return names;
}

void printError(Context& context, const std::string& message) {
  context.out.flush();
  context.err << "libra: error: " << messageLine(message) << std::endl;
  // A script that asked for JSON gets the error as JSON too (spec/cli.md).
  if (context.json) context.out << failureJson("error", messageLine(message)) << std::endl;
}

// CLI11 reports an unknown first word as an unexpected argument; say instead
// that the command does not exist and which ones do.
bool checkCommandWord(const CLI::App& app, int argc, const char* const* argv, Context& context) {
  if (argc < 2) {
    printError(context,
               "no command given; the commands are " + commandList(app) + " (see 'libra --help')");
    return false;
  }
  const std::string first = argv[1];
  if (first.size() > 1 && first[0] == '-') {
    // Before the command only the program's own options may come; CLI11 would
    // report a missing command instead of the unknown option.
    const std::string name = first.substr(0, first.find('='));
    if (app.get_option_no_throw(name) != nullptr) return true;
    printError(context, "unknown option '" + name + "' (see 'libra --help')");
    return false;
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(first)) return true;
  }
  printError(context, "unknown command '" + first + "'; the commands are " + commandList(app) +
                          " (see 'libra --help')");
  return false;
}

}  // namespace

bool stdoutTakesColor() {
  if (std::getenv("NO_COLOR") != nullptr) return false;
  const char* term = std::getenv("TERM");
  if (term == nullptr || std::strcmp(term, "dumb") == 0) return false;
  return isatty(STDOUT_FILENO) == 1;
}

CLI::App* addCommand(CLI::App& app, const Context& context, const std::string& name,
                     const std::string& description) {
  CLI::App* cmd = app.add_subcommand(name, description);
  return cmd->check_name(context.word) ? cmd : nullptr;
}

void configureApp(CLI::App& app) {
  app.name("libra");
  app.description(kDescription);
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("libra ") + LIBRA_VERSION,
                       "Print the version and exit");
  app.require_subcommand(1);
  app.get_formatter()->column_width(34);
}

int run(CLI::App& app, int argc, const char* const* argv, Context& context) {
  // --json asks for JSON on stdout, errors included, unless --csv contradicts it
  // (then stdout stays empty and the usage error says so).
  bool csv = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) context.json = true;
    if (std::strncmp(argv[i], "--csv", 5) == 0) csv = true;
  }
  if (csv) context.json = false;
  try {
    if (!checkCommandWord(app, argc, argv, context)) return kExitBadInput;
    app.parse(argc, argv);
    context.out.flush();
    if (!context.out) {
      // A full disk or a closed pipe must not pass for success.
      context.err << "libra: error: cannot write the output to stdout (" << std::strerror(errno)
                  << ")" << std::endl;
      return kExitBadInput;
    }
    return context.exitCode;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      // --help, --help-all, --version
      return app.exit(e, context.out, context.err);
    }
    std::string hint = "libra --help";
    const auto selected = app.get_subcommands();
    if (!selected.empty()) hint = "libra " + selected.front()->get_name() + " --help";
    printError(context, std::string(e.what()) + " (see '" + hint + "')");
    return kExitBadInput;
  } catch (const InputError& e) {
    printError(context, e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    printError(context, "out of memory");
    return kExitBadInput;
  } catch (const std::exception& e) {
    printError(context, e.what());
    return kExitBadInput;
  } catch (...) {
    printError(context, "unexpected internal error");
    return kExitBadInput;
  }
}

}  // namespace libra::cli
