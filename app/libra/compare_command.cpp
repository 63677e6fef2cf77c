// `libra compare`: the optimum of several designs side by side, with ratios
// against a baseline. The designs are the scenarios of each project file (a
// file of one unnamed scenario is one design); the engine (compare.hpp) solves
// and compares them, this file only names, selects and prints.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "design_selection.hpp"
#include "libra/compare.hpp"
#include "libra/error.hpp"
#include "libra/report/comparison_table.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

constexpr const char* kCompareFooter =
    "Solves each design and prints their optima side by side: the bandwidth of each\n"
    "dimension, the iteration time, the throughput, the cost and the performance per cost,\n"
    "with ratios against the baseline (the first design, or --baseline). A project file with\n"
    "scenarios gives one design per scenario; a file without is one design, named after the\n"
    "file. --scenarios chooses designs, in the order given, by scenario name, or by\n"
    "FILE:SCENARIO (FILE is the file name without .json) where two files have a scenario of\n"
    "that name. --objective, --constraint, --no-project-constraints, --solver and the model\n"
    "options apply to every design.\n"
    "\n"
    "Performance is the training throughput (tokens/s) when every design's workload comes\n"
    "from a preset, else iterations per second; perf per cost divides it by the cost in the\n"
    "design's cost scope. A design without a solution (infeasible, or a --constraint that\n"
    "names a dimension it does not have) is shown with its reason; the others are compared.\n"
    "\n"
    "Examples:\n"
    "  libra compare designs.json\n"
    "  libra compare designs.json --scenarios fast,cheap --baseline cheap --json\n"
    "  libra compare gpt3-3d.json gpt3-4d.json --constraint 'total == 800' --csv\n"
    "\n"
    "Exit codes: 0 every design solved; 1 a design has no solution (the others are still\n"
    "printed); 2 bad usage or bad input (a file, an unknown or ambiguous scenario name, a\n"
    "design whose input is refused).";

struct CompareArgs {
  ComparisonFlags flags;
  bool json = false;
  bool csv = false;
};

// --- the text table ------------------------------------------------------------

void printComparison(std::ostream& out, const Style& style, const Comparison& c,
                     bool severalFiles) {
  const bool tokens = c.measure == PerformanceMeasure::TokensPerSecond;
  std::vector<std::pair<std::string, std::string>> head{
      {"Designs", std::to_string(c.designs.size())},
      {"Baseline", displayName(c.baselineDesign().input.name)},
      {"Performance",
       tokens ? "training throughput (tokens/s)" : "iterations per second (1 / iteration time)"}};
  printFields(out, style, head);
  out << '\n';

  Table table;
  table.addColumn("", Table::Align::Left);
  for (const DesignComparison& d : c.designs) table.addColumn(d.input.name);
  // The reasons of designs without a result follow the table whole.
  const report::ComparisonTableOptions options{
      .fileRow = severalFiles, .reasonRow = false, .times = "x", .missing = "-"};
  for (const report::ComparisonRow& row : report::comparisonRows(c, options)) {
    std::vector<std::string> cells{(row.indented ? "  " : "") + row.label};
    for (const report::ComparisonCell& cell : row.cells) cells.push_back(cell.text);
    table.addRow(std::move(cells));
  }
  table.print(out, style, "");

  std::vector<std::pair<std::string, std::string>> tail;
  for (const DesignComparison& d : c.designs) {
    if (d.ok()) continue;
    tail.emplace_back(d.input.name,
                      style.bad(statusWord(d.analysis)) + ": " + messageLine(d.analysis.message));
  }
  for (const std::string& note : c.notes) tail.emplace_back("Note", note);
  if (!tail.empty()) {
    out << '\n';
    printFields(out, style, tail);
  }
}

int runCompare(const CompareArgs& args, Context& context) {
  ComparisonRequest request = comparisonRequest(args.flags);
  request.options.analysis.sensitivity = false;  // the table has no rates
  const Comparison c = compareDesigns(request.designs, request.options);

  if (args.csv) {
    context.out << comparisonCsv(c) << std::flush;
  } else if (args.json) {
    context.out << comparisonJson(c) << std::endl;
  } else {
    printComparison(context.out, Style{context.color}, c, args.flags.selection.projects.size() > 1);
  }
  context.out.flush();
  return reportDesignsWithoutResult(c, context.err);
}

}  // namespace

void registerCompare(CLI::App& app, Context& context) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = addCommand(app, context, "compare",
                             "The optima of several designs (scenarios or projects) side by side");
  if (cmd == nullptr) return;
  addComparisonFlags(cmd, args->flags, "Designs to compare");
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print one JSON object");
  CLI::Option* csv =
      cmd->add_flag("--csv", args->csv, "Print CSV: a header line, then one row per design");
  csv->excludes(json);
  cmd->footer(std::string(kCompareFooter) + "\n\n" + kModelHelp + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runCompare(*args, context); });
}

}  // namespace libra::cli
