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
#include "libra/compare.hpp"
#include "libra/error.hpp"
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
  std::vector<std::string> projects;
  std::vector<std::string> scenarios;
  std::string baseline;
  std::string objective;
  std::vector<std::string> constraints;
  bool noProjectConstraints = false;
  std::string solver = "native";
  ModelFlags model;
  bool json = false;
  bool csv = false;
};

std::string quoted(const std::string& text) {
  return "'" + text + "'";
}

// A design the files offer: its full name FILE:SCENARIO (FILE alone for a file
// of one unnamed scenario) and its short name, the scenario's.
struct Candidate {
  DesignInput input;
  std::string label;  // the file's
  std::string shortName;
  std::string fullName;
};

// The files' labels: the file name without .json, or the path as given where
// two files share a name.
std::vector<std::string> fileLabels(const std::vector<std::string>& paths) {
  std::vector<std::string> stems;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (paths[j] == paths[i])
        throw InputError("project file " + quoted(paths[i]) + " is given twice");
    }
    stems.push_back(std::filesystem::path(paths[i]).stem().string());
  }
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const bool shared = std::count(stems.begin(), stems.end(), stems[i]) > 1;
    labels.push_back(shared ? paths[i] : stems[i]);
  }
  return labels;
}

std::vector<Candidate> candidates(const CompareArgs& args) {
  const std::vector<std::string> labels = fileLabels(args.projects);
  std::vector<Candidate> out;
  for (std::size_t f = 0; f < args.projects.size(); ++f) {
    const Project project = loadProjectFile(args.projects[f]);
    for (DesignInput& input : scenarioDesigns(project, args.projects[f])) {
      Candidate c;
      c.label = labels[f];
      c.shortName = input.scenario.empty() ? labels[f] : input.scenario;
      c.fullName = input.scenario.empty() ? labels[f] : labels[f] + ":" + input.scenario;
      c.input = std::move(input);
      out.push_back(std::move(c));
    }
  }
  return out;
}

// The candidates a name chooses: the one of that full name, else those of that
// short name.
std::vector<std::size_t> matches(const std::vector<Candidate>& all, const std::string& name) {
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].fullName == name) return {i};
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].shortName == name) found.push_back(i);
  }
  return found;
}

std::string knownNames(const std::vector<Candidate>& all) {
  std::string out;
  for (const Candidate& c : all) {
    const bool unique = matches(all, c.shortName).size() == 1;
    out += (out.empty() ? "" : ", ") + (unique ? c.shortName : c.fullName);
  }
  return out;
}

// The one candidate `name` chooses; InputError naming `flag` when it chooses
// none or several.
std::size_t resolve(const std::vector<Candidate>& all, const std::string& name,
                    const std::string& flag) {
  const std::vector<std::size_t> found = matches(all, name);
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    throw InputError(flag + ": no scenario is named " + quoted(name) + " (the designs are " +
                     knownNames(all) + ")");
  }
  std::string options;
  for (std::size_t i : found) {
    options += (options.empty() ? "" : " or ") + all[i].fullName;
  }
  throw InputError(flag + ": " + quoted(name) + " is ambiguous: more than one file has a " +
                   "scenario of that name; write " + options);
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// "A,B" -> the names in it. A name may hold commas ("1,000 GB/s"): at each
// point the longest run of comma-separated pieces that is a known name is
// taken, else the next piece alone.
std::vector<std::string> splitNames(const std::string& text, const std::vector<Candidate>& all) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    pieces.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < pieces.size();) {
    std::size_t take = 1;
    std::string joined;
    for (std::size_t j = i; j < pieces.size(); ++j) {
      joined += (j == i ? "" : ",") + pieces[j];
      if (!matches(all, trimmed(joined)).empty()) take = j - i + 1;
    }
    std::string name = pieces[i];
    for (std::size_t j = i + 1; j < i + take; ++j) name += "," + pieces[j];
    name = trimmed(name);
    if (name.empty()) throw InputError("--scenarios: an empty name in '" + text + "'");
    names.push_back(std::move(name));
    i += take;
  }
  return names;
}

// The designs to compare, named: the short name where it is unique among the
// chosen, else the full one.
std::vector<DesignInput> chooseDesigns(const CompareArgs& args, std::string& baseline) {
  const std::vector<Candidate> all = candidates(args);
  std::vector<std::size_t> chosen;
  for (const std::string& list : args.scenarios) {
    for (const std::string& name : splitNames(list, all)) {
      const std::size_t i = resolve(all, name, "--scenarios");
      if (std::find(chosen.begin(), chosen.end(), i) != chosen.end()) {
        throw InputError("--scenarios: " + quoted(name) + " is chosen twice");
      }
      chosen.push_back(i);
    }
  }
  if (args.scenarios.empty()) {
    for (std::size_t i = 0; i < all.size(); ++i) chosen.push_back(i);
  }
  std::vector<DesignInput> designs;
  for (std::size_t i : chosen) {
    const bool unique = std::count_if(chosen.begin(), chosen.end(), [&](std::size_t k) {
                          return all[k].shortName == all[i].shortName;
                        }) == 1;
    DesignInput d = all[i].input;
    d.name = unique ? all[i].shortName : all[i].fullName;
    designs.push_back(std::move(d));
  }
  if (!args.baseline.empty()) {
    const std::size_t b = resolve(all, args.baseline, "--baseline");
    const auto at = std::find(chosen.begin(), chosen.end(), b);
    if (at == chosen.end()) {
      throw InputError("--baseline: " + quoted(args.baseline) +
                       " is not among the designs compared; add it to --scenarios");
    }
    baseline = designs[static_cast<std::size_t>(at - chosen.begin())].name;
  }
  return designs;
}

// --- the text table ------------------------------------------------------------

std::string shortNumber(double value) {
  if (!std::isfinite(value)) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

// A ratio to the baseline in words ("1.136x faster"); "baseline" for itself.
std::string ratioText(const DesignComparison& d, bool isBaseline,
                      const std::optional<double>& ratio, std::string_view better,
                      std::string_view worse) {
  if (isBaseline) return d.ok() ? "baseline" : "-";
  if (!ratio) return "-";
  return comparison(*ratio, better, worse);
}

void printComparison(std::ostream& out, const Style& style, const Comparison& c,
                     bool severalFiles) {
  const bool tokens = c.measure == PerformanceMeasure::TokensPerSecond;
  std::vector<std::pair<std::string, std::string>> head{
      {"Designs", std::to_string(c.designs.size())},
      {"Baseline", c.baselineDesign().input.name},
      {"Performance",
       tokens ? "training throughput (tokens/s)" : "iterations per second (1 / iteration time)"}};
  printFields(out, style, head);
  out << '\n';

  Table table;
  table.addColumn("", Table::Align::Left);
  for (const DesignComparison& d : c.designs) table.addColumn(d.input.name);
  auto row = [&](const std::string& label, auto cell) {
    std::vector<std::string> cells{label};
    for (std::size_t i = 0; i < c.designs.size(); ++i) cells.push_back(cell(c.designs[i], i));
    table.addRow(std::move(cells));
  };
  auto ifOk = [](const DesignComparison& d, const std::string& text) {
    return d.ok() ? text : std::string("-");
  };
  if (severalFiles) {
    row("file", [](const DesignComparison& d, std::size_t) { return d.input.file; });
  }
  row("status", [](const DesignComparison& d, std::size_t) { return statusWord(d.analysis); });
  row("objective", [](const DesignComparison& d, std::size_t) {
    return std::string(toString(d.analysis.objective));
  });
  row("network",
      [&](const DesignComparison& d, std::size_t) { return shapeLabel(d.input.project.network); });

  // The split: one row per dimension name when every design has the same
  // dimensions, else one per position with the name in the cell.
  std::vector<std::string> names;
  bool sameDims = true;
  std::size_t widest = 0;
  for (const DesignComparison& d : c.designs) {
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
  const bool anySystem = std::any_of(c.designs.begin(), c.designs.end(), [](const auto& d) {
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
  row("vs baseline", [](const DesignComparison&, std::size_t) { return std::string(); });
  row(tokens ? "  throughput" : "  speed", [&](const DesignComparison& d, std::size_t i) {
    return ratioText(d, i == c.baseline, d.speedup, "faster", "slower");
  });
  row("  cost", [&](const DesignComparison& d, std::size_t i) {
    // costRatio > 1 is dearer; comparison() takes a ratio where > 1 is better.
    const std::optional<double> cheaper =
        d.costRatio ? std::optional<double>(1 / *d.costRatio) : std::nullopt;
    return ratioText(d, i == c.baseline, cheaper, "cheaper", "more expensive");
  });
  row("  perf per cost", [&](const DesignComparison& d, std::size_t i) {
    return ratioText(d, i == c.baseline, d.perfPerCostRatio, "better", "worse");
  });
  table.print(out, style, "");

  std::vector<std::pair<std::string, std::string>> tail;
  for (const DesignComparison& d : c.designs) {
    if (d.ok()) continue;
    tail.emplace_back(d.input.name, style.bad(statusWord(d.analysis)) + ": " + d.analysis.message);
  }
  for (const std::string& note : c.notes) tail.emplace_back("Note", note);
  if (!tail.empty()) {
    out << '\n';
    printFields(out, style, tail);
  }
}

int runCompare(const CompareArgs& args, Context& context) {
  ComparisonOptions options;
  AnalysisOptions& analysis = options.analysis;
  analysis.backend = parseBackendFlag(args.solver);
  if (!args.objective.empty()) analysis.objective = parseObjectiveFlag(args.objective);
  analysis.extraConstraints = args.constraints;
  analysis.projectConstraints = !args.noProjectConstraints;
  analysis.model = parseModelFlags(args.model);
  const std::vector<DesignInput> designs = chooseDesigns(args, options.baseline);
  const Comparison c = compareDesigns(designs, options);

  if (args.csv) {
    context.out << comparisonCsv(c) << std::flush;
  } else if (args.json) {
    context.out << comparisonJson(c) << std::endl;
  } else {
    printComparison(context.out, Style{context.color}, c, args.projects.size() > 1);
  }
  // Each design without a result: one line on stderr, and the exit code of
  // the worst (a refused input 2, else 1).
  int code = kExitSuccess;
  for (const DesignComparison& d : c.designs) {
    if (d.ok()) continue;
    context.out.flush();
    context.err << "libra: " << (d.refused ? "error" : statusWord(d.analysis)) << ": design "
                << quoted(d.input.name) << ": " << d.analysis.message << std::endl;
    code = std::max(code, d.refused ? int{kExitBadInput} : int{kExitNoSolution});
  }
  return code;
}

}  // namespace

void registerCompare(CLI::App& app, Context& context) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "The optima of several designs (scenarios or projects) side by side");
  cmd->add_option("PROJECT", args->projects,
                  "Project files; each scenario of each file is a design")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--scenarios", args->scenarios,
                  "Designs to compare, in this order: scenario names (or FILE:SCENARIO), "
                  "comma-separated; default: all")
      ->type_name("A,B,...")
      ->allow_extra_args(false);
  cmd->add_option("--baseline", args->baseline,
                  "The design the ratios are against; default: the first")
      ->type_name("NAME");
  cmd->add_option("--objective", args->objective,
                  "performance or perf-per-cost for every design; default: each project's")
      ->type_name("NAME");
  cmd->add_option("--constraint", args->constraints,
                  "Extra linear constraint for every design (repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_flag("--no-project-constraints", args->noProjectConstraints,
                "Ignore the designs' own constraints: only the --constraint expressions apply");
  cmd->add_option("--solver", args->solver, "Backend: native (default) or ipopt")
      ->type_name("NAME");
  addModelFlags(cmd, args->model);
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print one JSON object");
  CLI::Option* csv =
      cmd->add_flag("--csv", args->csv, "Print CSV: a header line, then one row per design");
  csv->excludes(json);
  cmd->footer(std::string(kCompareFooter) + "\n\n" + kModelHelp + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runCompare(*args, context); });
}

}  // namespace libra::cli
