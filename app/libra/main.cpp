// Entry point of `libra`. The commands are in the library libra_cli
// (commands.cpp lists them), which the command-line tests also call in-process.
#include "commands.hpp"

int main(int argc, char** argv) {
  return libra::cli::runCommandLine(argc, argv);
}
