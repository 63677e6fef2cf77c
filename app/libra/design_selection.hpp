// Choosing designs among the scenarios of project files: what `compare` and
// `report` share (--scenarios, --baseline). Each scenario of each file is a
// design; a file of one unnamed scenario is one design named after the file.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/compare.hpp"

namespace libra::cli {

struct DesignSelection {
  std::vector<std::string> projects;   // the files, as given
  std::vector<std::string> scenarios;  // --scenarios (each a comma-separated list)
  std::string baseline;                // --baseline
};

// The designs chosen, in order, named by their scenario where that is unique
// among them, else FILE:SCENARIO; `baseline` gets the baseline's name (empty:
// the first). Throws InputError for unknown, ambiguous or repeated names.
std::vector<DesignInput> chooseDesigns(const DesignSelection& selection, std::string& baseline);

// The flags of `compare` and `report`: the files, --scenarios, --baseline and
// what applies to every design (--objective, --constraint,
// --no-project-constraints, --solver, the model options).
struct ComparisonFlags {
  DesignSelection selection;
  std::string objective;
  std::vector<std::string> constraints;
  bool noProjectConstraints = false;
  std::string solver = "native";
  ModelFlags model;
};
// Adds them to `command`; `what` starts the help of --scenarios ("Designs to compare").
void addComparisonFlags(CLI::App* command, ComparisonFlags& flags, const std::string& what);

struct ComparisonRequest {
  std::vector<DesignInput> designs;
  ComparisonOptions options;
};
// The designs and options the flags ask for; InputError for bad values.
ComparisonRequest comparisonRequest(const ComparisonFlags& flags);

// One line on `err` for each design without a result; the exit code of the
// worst (a refused input 2, else 1; 0 when every design has one).
int reportDesignsWithoutResult(const Comparison& comparison, std::ostream& err);

}  // namespace libra::cli
