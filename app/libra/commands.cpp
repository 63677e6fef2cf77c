// The list of `libra`'s commands and the run of one command line. Each command
// registers itself; see cli.hpp for how to add one.
#include "commands.hpp"

#include <iostream>

#include "cli.hpp"

namespace libra::cli {

int runCommandLine(int argc, const char* const* argv) {
  CLI::App app;
  configureApp(app);
  Context context{std::cout, std::cerr, stdoutTakesColor()};
  if (argc > 1) context.word = argv[1];

  for (RegisterCommand add : {
           registerPresets,
           registerNew,
           registerImportLibra,
           registerSolve,
           registerEvaluate,
           registerPareto,
           registerCompare,
           registerReport,
           registerSweep,
           registerCodesign,
           registerValidate,
           registerExportAstraSim,
           registerBench,
           registerReproduceLibra,
       }) {
    add(app, context);
  }
  return run(app, argc, argv, context);
}

}  // namespace libra::cli
