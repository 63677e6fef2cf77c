// `libra solve` and `libra evaluate`: one bandwidth vector and its time and cost.
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/analysis.hpp"
#include "libra/error.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

constexpr const char* kSolveFooter =
    "The result is the bandwidth of one NPU into each dimension (GB/s), the iteration time\n"
    "(compute and exposed communication) and the network cost ($), compared with the equal\n"
    "split of the same total bandwidth. Each --constraint is added to the project's\n"
    "constraints (or replaces them with --no-project-constraints); --objective overrides the\n"
    "project's objective:\n"
    "  performance     least iteration time\n"
    "  perf-per-cost   least iteration time x network cost\n"
    "Both solvers give the same answer; native is the default. Each solver run stops after\n"
    "--time-limit seconds (default 60) or --max-iterations; the message then names the limit\n"
    "and says what the other solver does with the same problem.\n"
    "\n"
    "Examples:\n"
    "  libra solve gpt3.json\n"
    "  libra solve gpt3.json --constraint 'bw[pod] <= 50' --solver ipopt\n"
    "  libra solve gpt3.json --objective perf-per-cost --json\n"
    "\n"
    "Exit codes: 0 solved; 1 infeasible, unbounded or solver failure (the message says what to\n"
    "add or relax); 2 bad usage or bad input.";

constexpr const char* kEvaluateFooter =
    "Prints the iteration time and network cost of the given bandwidths, one value per\n"
    "dimension in GB/s per NPU, innermost first, without optimizing. Also reports the\n"
    "constraints the bandwidths break, and compares the design with the equal split of the\n"
    "same total bandwidth.\n"
    "\n"
    "Examples:\n"
    "  libra evaluate gpt3.json --bandwidth 200,200,100\n"
    "  libra evaluate gpt3.json --bandwidth=339.1,84.9,57.6,18.4 --json\n"
    "\n"
    "Exit codes: 0 evaluated; 2 bad usage or bad input (file, wrong number of values, a value\n"
    "that is not a finite number >= 0).";

struct SolveArgs {
  std::string project;
  std::string scenario;
  std::string objective;
  std::vector<std::string> constraints;
  bool noProjectConstraints = false;
  std::string solver = "native";
  LimitFlags limits;
  ModelFlags model;
  bool noSensitivity = false;
  bool json = false;
};

struct EvaluateArgs {
  std::string project;
  std::string scenario;
  std::string bandwidth;
  std::string objective;
  std::vector<std::string> constraints;
  bool noProjectConstraints = false;
  ModelFlags model;
  bool json = false;
};

int emit(Context& context, const Analysis& analysis, bool json) {
  if (!analysis.ok()) {
    return reportNoSolution(context.out, context.err, statusWord(analysis), analysis.message,
                            analysisJson(analysis), json);
  }
  if (json) {
    context.out << analysisJson(analysis) << std::endl;
  } else {
    printAnalysis(context.out, Style{context.color}, analysis);
  }
  return kExitSuccess;
}

int runSolve(const SolveArgs& args, Context& context) {
  AnalysisOptions options;
  options.backend = parseBackendFlag(args.solver);
  options.limits = parseLimitFlags(args.limits);
  if (!args.objective.empty()) options.objective = parseObjectiveFlag(args.objective);
  options.extraConstraints = args.constraints;
  options.projectConstraints = !args.noProjectConstraints;
  options.model = parseModelFlags(args.model);
  options.sensitivity = !args.noSensitivity;
  const Project project = loadProjectFile(args.project, args.scenario);
  checkProblemFor(project, args.project, options);
  return emit(context, analyze(project, options), args.json);
}

int runEvaluate(const EvaluateArgs& args, Context& context) {
  AnalysisOptions options;
  if (!args.objective.empty()) options.objective = parseObjectiveFlag(args.objective);
  options.design = parseBandwidthList(args.bandwidth);
  options.extraConstraints = args.constraints;
  options.projectConstraints = !args.noProjectConstraints;
  options.model = parseModelFlags(args.model);
  const Project project = loadProjectFile(args.project, args.scenario);
  checkProblemFor(project, args.project, options);
  return emit(context, analyze(project, options), args.json);
}

}  // namespace

void registerSolve(CLI::App& app, Context& context) {
  auto args = std::make_shared<SolveArgs>();
  CLI::App* cmd =
      addCommand(app, context, "solve", "Best per-dimension bandwidths under the constraints");
  if (cmd == nullptr) return;
  cmd->add_option("PROJECT", args->project, "Project file (JSON, e.g. written by import-libra)")
      ->required()
      ->type_name("FILE");
  addScenarioFlag(cmd, args->scenario);
  cmd->add_option("--objective", args->objective,
                  "performance (least time) or perf-per-cost (least time x cost); default: the "
                  "project's")
      ->type_name("NAME");
  cmd->add_option("--constraint", args->constraints,
                  "Extra linear constraint, e.g. 'total == 500', 'bw[pod] <= 50', 'cost <= 4.5e7' "
                  "(repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_flag("--no-project-constraints", args->noProjectConstraints,
                "Ignore the project's constraints: only the --constraint expressions apply");
  cmd->add_option("--solver", args->solver, "Backend: native (default) or ipopt")
      ->type_name("NAME");
  addLimitFlags(cmd, args->limits);
  addModelFlags(cmd, args->model);
  cmd->add_flag("--no-sensitivity", args->noSensitivity,
                "Skip the sensitivity (re-solves per binding constraint and dimension): most of "
                "the time of a perf-per-cost solve");
  cmd->add_flag("--json", args->json, "Print one JSON object instead of the table");
  cmd->footer(std::string(kSolveFooter) + "\n\n" + kModelHelp + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runSolve(*args, context); });
}

void registerEvaluate(CLI::App& app, Context& context) {
  auto args = std::make_shared<EvaluateArgs>();
  CLI::App* cmd =
      addCommand(app, context, "evaluate",
                 "Iteration time and network cost of given bandwidths (no optimization)");
  if (cmd == nullptr) return;
  cmd->add_option("PROJECT", args->project, "Project file (JSON)")->required()->type_name("FILE");
  cmd->add_option("--bandwidth", args->bandwidth,
                  "Bandwidth of one NPU into each dimension in GB/s, innermost first, "
                  "comma-separated")
      ->required()
      ->type_name("B0,B1,...");
  addScenarioFlag(cmd, args->scenario);
  cmd->add_option("--objective", args->objective,
                  "Objective to report (perf-per-cost adds time x cost); default: the project's")
      ->type_name("NAME");
  cmd->add_option("--constraint", args->constraints,
                  "Extra constraint to check the bandwidths against (repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_flag("--no-project-constraints", args->noProjectConstraints,
                "Ignore the project's constraints: check only the --constraint expressions");
  addModelFlags(cmd, args->model);
  cmd->add_flag("--json", args->json, "Print one JSON object instead of the table");
  cmd->footer(std::string(kEvaluateFooter) + "\n\n" + kModelHelp);
  cmd->callback([args, &context] { context.exitCode = runEvaluate(*args, context); });
}

}  // namespace libra::cli
