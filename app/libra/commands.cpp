// Entry point of `libra`: the list of commands. Each command registers itself;
// see cli.hpp for how to add one.
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) {
  using namespace libra::cli;
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
