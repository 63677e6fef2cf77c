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
#include "libra/report/units.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

using report::shortNumber;

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

// A ratio to the baseline in words ("1.136x faster"); "baseline" for itself.
std::string ratioText(const DesignComparison& d, bool isBaseline,
                      const std::optional<double>& ratio, std::string_view better,
                      std::string_view worse) {
  if (isBaseline) return d.ok() ? "baseline" : "-";
  if (!ratio) return "-";
  return comparison(*ratio, better, worse);
}

// Adds a row of the comparison table: `label`, then cell(design, index) per design.
struct Rows {
  Table& table;
  const Comparison& c;
  template <class Cell>
  void operator()(const std::string& label, Cell cell) {
    std::vector<std::string> cells{label};
    for (std::size_t i = 0; i < c.designs.size(); ++i) cells.push_back(cell(c.designs[i], i));
    table.addRow(std::move(cells));
  }
};

std::string ifOk(const DesignComparison& d, const std::string& text) {
  return d.ok() ? text : std::string("-");
}

// The split: one row per dimension name when every design has the same
// dimensions, else one per position with the name in the cell.
void addBandwidthRows(Rows& row) {
  std::vector<std::string> names;
  bool sameDims = true;
  std::size_t widest = 0;
  for (const DesignComparison& d : row.c.designs) {
    if (!d.ok()) continue;
    const std::vector<std::string>& n = d.analysis.problem->dimNames;
    if (names.empty()) names = n;
    sameDims = sameDims && n == names;
    widest = std::max(widest, n.size());
  }
  row("bandwidth (GB/s)", [](const DesignComparison&, std::size_t) { return std::string(); });
  for (std::size_t k = 0; k < widest; ++k) {
    row("  " + (sameDims ? names[k] : "dimension " + std::to_string(k)),
        [&](const DesignComparison& d, std::size_t) {
          if (!d.ok() || k >= d.analysis.design.bandwidth.size()) return std::string("-");
          const std::string value = formatFixed(d.analysis.design.bandwidth[k], 3);
          return sameDims ? value : d.analysis.problem->dimNames[k] + " " + value;
        });
  }
  row("  total", [&](const DesignComparison& d, std::size_t) {
    return ifOk(d, formatFixed(d.analysis.design.totalBandwidth(), 3));
  });
}

// Time, throughput, cost and perf per cost of each design.
void addResultRows(Rows& row, bool tokens) {
  row("iteration time", [&](const DesignComparison& d, std::size_t) {
    return ifOk(d, formatDuration(d.analysis.design.eval.iterationNs));
  });
  row("  compute", [&](const DesignComparison& d, std::size_t) {
    return ifOk(d, formatDuration(d.analysis.design.eval.computeNs));
  });
  row("  exposed communication", [&](const DesignComparison& d, std::size_t) {
    return ifOk(d, formatDuration(d.analysis.design.eval.communicationNs));
  });
  row("throughput (tokens/s)", [&](const DesignComparison& d, std::size_t) {
    const auto& t = d.analysis.design.throughput.tokensPerSecond;
    return d.ok() && t ? shortNumber(*t) : std::string("-");
  });
  row("MFU", [&](const DesignComparison& d, std::size_t) {
    const auto& m = d.analysis.design.throughput.mfu;
    return d.ok() && m ? formatFixed(100 * *m, 1) + " %" : std::string("-");
  });
  row("network cost", [&](const DesignComparison& d, std::size_t) {
    return ifOk(d, formatUsd(d.analysis.design.eval.networkCostUsd));
  });
  const auto& designs = row.c.designs;
  const bool anySystem = std::any_of(designs.begin(), designs.end(), [](const auto& d) {
    return d.analysis.costScope == CostScope::System;
  });
  if (anySystem) {
    row("system cost (NPUs + network)", [&](const DesignComparison& d, std::size_t) {
      if (d.analysis.costScope != CostScope::System) return std::string("(network only)");
      return ifOk(d, formatUsd(d.analysis.design.eval.costUsd));
    });
  }
  row(tokens ? "perf per cost (tokens/s per $1M)" : "perf per cost (iterations/s per $1M)",
      [&](const DesignComparison& d, std::size_t) {
        return d.perfPerCost ? shortNumber(*d.perfPerCost * 1e6) : std::string("-");
      });
}

// Each design against the baseline.
void addRatioRows(Rows& row, bool tokens) {
  const std::size_t baseline = row.c.baseline;
  row("vs baseline", [](const DesignComparison&, std::size_t) { return std::string(); });
  row(tokens ? "  throughput" : "  speed", [&](const DesignComparison& d, std::size_t i) {
    return ratioText(d, i == baseline, d.speedup, "faster", "slower");
  });
  row("  cost", [&](const DesignComparison& d, std::size_t i) {
    // costRatio > 1 is dearer; comparison() takes a ratio where > 1 is better.
    const std::optional<double> cheaper =
        d.costRatio ? std::optional<double>(1 / *d.costRatio) : std::nullopt;
    return ratioText(d, i == baseline, cheaper, "cheaper", "more expensive");
  });
  row("  perf per cost", [&](const DesignComparison& d, std::size_t i) {
    return ratioText(d, i == baseline, d.perfPerCostRatio, "better", "worse");
  });
}

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
  Rows row{table, c};
  if (severalFiles) {
    row("file", [](const DesignComparison& d, std::size_t) { return d.input.file; });
  }
  row("status", [](const DesignComparison& d, std::size_t) { return statusWord(d.analysis); });
  row("objective", [](const DesignComparison& d, std::size_t) {
    return std::string(toString(d.analysis.objective));
  });
  row("network",
      [&](const DesignComparison& d, std::size_t) { return shapeLabel(d.input.project.network); });
  addBandwidthRows(row);
  addResultRows(row, tokens);
  addRatioRows(row, tokens);
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
  const ComparisonRequest request = comparisonRequest(args.flags);
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
  CLI::App* cmd = app.add_subcommand(
      "compare", "The optima of several designs (scenarios or projects) side by side");
  addComparisonFlags(cmd, args->flags, "Designs to compare");
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print one JSON object");
  CLI::Option* csv =
      cmd->add_flag("--csv", args->csv, "Print CSV: a header line, then one row per design");
  csv->excludes(json);
  cmd->footer(std::string(kCompareFooter) + "\n\n" + kModelHelp + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runCompare(*args, context); });
}

}  // namespace libra::cli
