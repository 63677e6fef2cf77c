#include "design_selection.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/display_text.hpp"
#include "libra/error.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

std::string quoted(const std::string& text) {
  return quotedText(text);
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

std::vector<Candidate> candidates(const DesignSelection& args) {
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

}  // namespace

// The designs to compare, named: the short name where it is unique among the
// chosen, else the full one.
std::vector<DesignInput> chooseDesigns(const DesignSelection& args, std::string& baseline) {
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

void addComparisonFlags(CLI::App* cmd, ComparisonFlags& flags, const std::string& what) {
  cmd->add_option("PROJECT", flags.selection.projects,
                  "Project files; each scenario of each file is a design")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--scenarios", flags.selection.scenarios,
                  what +
                      ", in this order: scenario names (or FILE:SCENARIO), "
                      "comma-separated; default: all")
      ->type_name("A,B,...")
      ->allow_extra_args(false);
  cmd->add_option("--baseline", flags.selection.baseline,
                  "The design the ratios are against; default: the first")
      ->type_name("NAME");
  cmd->add_option("--objective", flags.objective,
                  "performance or perf-per-cost for every design; default: each project's")
      ->type_name("NAME");
  cmd->add_option("--constraint", flags.constraints,
                  "Extra linear constraint for every design (repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_flag("--no-project-constraints", flags.noProjectConstraints,
                "Ignore the designs' own constraints: only the --constraint expressions apply");
  cmd->add_option("--solver", flags.solver, "Backend: native (default) or ipopt")
      ->type_name("NAME");
  addModelFlags(cmd, flags.model);
}

ComparisonRequest comparisonRequest(const ComparisonFlags& flags) {
  ComparisonRequest request;
  AnalysisOptions& analysis = request.options.analysis;
  analysis.backend = parseBackendFlag(flags.solver);
  if (!flags.objective.empty()) analysis.objective = parseObjectiveFlag(flags.objective);
  analysis.extraConstraints = flags.constraints;
  analysis.projectConstraints = !flags.noProjectConstraints;
  analysis.model = parseModelFlags(flags.model);
  request.designs = chooseDesigns(flags.selection, request.options.baseline);
  return request;
}

int reportDesignsWithoutResult(const Comparison& comparison, std::ostream& err) {
  int code = kExitSuccess;
  for (const DesignComparison& d : comparison.designs) {
    if (d.ok()) continue;
    err << "libra: " << (d.refused ? "error" : statusWord(d.analysis)) << ": design "
        << quoted(d.input.name) << ": " << messageLine(d.analysis.message) << std::endl;
    code = std::max(code, d.refused ? int{kExitBadInput} : int{kExitNoSolution});
  }
  return code;
}

}  // namespace libra::cli
