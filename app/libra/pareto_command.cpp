// `libra pareto`: least iteration time over a range of network cost budgets.
#include <charconv>
#include <cstdio>
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/analysis.hpp"
#include "libra/error.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

constexpr int kMinPoints = 2;
constexpr int kMaxPoints = 1000;

constexpr const char* kParetoFooter =
    "Spreads N network cost budgets ($) over the reachable cost range and prints, for each,\n"
    "the least iteration time and its bandwidths (GB/s per NPU per dimension), in increasing\n"
    "cost. The perf-per-cost optimum (least time x cost) lies on this front; it is refined\n"
    "between the scanned points and printed separately. The table and --csv mark the scanned\n"
    "point with the least time x cost. Each --constraint is added to the project's.\n"
    "\n"
    "--csv columns: network_cost_usd, iteration_time_ns, one bandwidth column per dimension\n"
    "(bw_<name>_gbps), perf_per_cost_optimum (1 on the marked point, else 0).\n"
    "\n"
    "Examples:\n"
    "  libra pareto gpt3.json\n"
    "  libra pareto gpt3.json --points 20 --csv > front.csv\n"
    "  libra pareto gpt3.json --constraint 'bw[0] >= bw[1]' --json\n"
    "\n"
    "Exit codes: 0 success; 1 no front (infeasible or unbounded: a cost range needs a budget\n"
    "such as 'total == 500'); 2 bad usage or bad input.";

struct ParetoArgs {
  std::string project;
  std::string scenario;
  std::string points = "50";
  std::vector<std::string> constraints;
  bool noProjectConstraints = false;
  std::string solver = "native";
  LimitFlags limits;
  ModelFlags model;
  bool json = false;
  bool csv = false;
};

double timeCost(const Solution& s) {
  return s.eval.iterationNs * s.eval.costUsd;
}

void printTable(std::ostream& out, const Style& style, const Analysis& a) {
  const ParetoFront& front = a.front;
  const Problem& problem = *a.problem;
  const Solution& opt = front.perfPerCostOptimum;
  std::vector<std::pair<std::string, std::string>> head = projectFields(a);
  head.emplace_back("Solver", std::string(toString(a.backend)) + ", " +
                                  std::to_string(opt.iterations) + " iterations, " +
                                  formatDuration(a.solveNs));
  head.emplace_back("Cost range",
                    formatUsd(front.minCostUsd) + " .. " + formatUsd(front.maxCostUsd));
  head.emplace_back("Points", std::to_string(front.points.size()));
  printFields(out, style, head);
  out << '\n';
  Table table;
  table.addColumn("#");
  table.addColumn(a.costScope == CostScope::System ? "system cost" : "network cost");
  table.addColumn("iteration time (ms)");
  for (const std::string& name : problem.dimNames) table.addColumn(name + " (GB/s)");
  table.addColumn("time x cost (s*$)");
  const bool throughput = a.training.modelFlopsPerIteration.has_value();
  if (throughput) {
    table.addColumn("tokens/s");
    table.addColumn("MFU");
  }
  table.addColumn("", Table::Align::Left);
  const std::size_t best = nearestFrontPoint(front);
  for (std::size_t i = 0; i < front.points.size(); ++i) {
    const Solution& s = front.points[i];
    std::vector<std::string> row{std::to_string(i), formatUsd(s.eval.costUsd),
                                 formatFixed(s.eval.iterationNs / 1e6, 3)};
    for (double bw : s.bandwidth) row.push_back(formatFixed(bw, 3));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4e", timeCost(s) * 1e-9);
    row.emplace_back(buffer);
    if (throughput) {
      const Throughput t = throughputAt(a.training, s.eval.iterationNs);
      if (t.tokensPerSecond) {
        std::snprintf(buffer, sizeof buffer, "%.4g", *t.tokensPerSecond);
        row.emplace_back(buffer);
      } else {
        row.emplace_back("-");
      }
      row.emplace_back(t.mfu ? formatFixed(100 * *t.mfu, 1) + " %" : "-");
    }
    row.emplace_back(i == best && opt.ok() ? "*" : "");
    table.addRow(std::move(row));
  }
  table.print(out, style);
  out << '\n';
  std::vector<std::pair<std::string, std::string>> fields;
  if (opt.ok()) {
    std::string bws;
    for (double bw : opt.bandwidth) bws += (bws.empty() ? "" : ", ") + formatFixed(bw, 3);
    char tc[32];
    std::snprintf(tc, sizeof tc, "%.4e", timeCost(opt) * 1e-9);
    fields.emplace_back("Perf-per-cost optimum", formatUsd(opt.eval.costUsd) + ", " +
                                                     formatDuration(opt.eval.iterationNs) + ", " +
                                                     tc + " s*$");
    fields.emplace_back("  bandwidth (GB/s)", bws);
    if (throughput) {
      fields.emplace_back("  throughput",
                          throughputText(throughputAt(a.training, opt.eval.iterationNs)));
    }
    fields.emplace_back("  (*)", "the scanned point nearest to it (least time x cost)");
  } else {
    fields.emplace_back("Perf-per-cost optimum", "none: " + opt.message);
  }
  if (a.training.batch) fields.emplace_back("Work", batchText(*a.training.batch));
  if (a.training.memory.use) fields.emplace_back("Memory", a.training.memory.describe());
  printFields(out, style, fields);
}

int parsePoints(const std::string& text) {
  int points = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, points);
  if (text.empty() || stop != end || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    throw InputError("--points: '" + text + "' is not a whole number");
  }
  if (ec == std::errc::result_out_of_range || points < kMinPoints || points > kMaxPoints) {
    throw InputError("--points: " + text + " is out of range; give " + std::to_string(kMinPoints) +
                     " to " + std::to_string(kMaxPoints) + " points");
  }
  return points;
}

int runPareto(const ParetoArgs& args, Context& context) {
  AnalysisOptions options;
  options.paretoPoints = parsePoints(args.points);
  options.backend = parseBackendFlag(args.solver);
  options.limits = parseLimitFlags(args.limits);
  options.extraConstraints = args.constraints;
  options.projectConstraints = !args.noProjectConstraints;
  options.model = parseModelFlags(args.model);
  // The front is the point of this command; the optimum beside it is the
  // perf-per-cost one, read off the front.
  options.objective = Objective::PerfPerCost;
  options.frontWithinCostBudget = true;
  options.sensitivity = false;  // not printed
  const Project project = loadProjectFile(args.project, args.scenario);
  checkProblemFor(project, args.project, options);
  const Analysis analysis = analyze(project, options);

  if (!analysis.hasFront()) {
    const ParetoFront& front = analysis.front;
    const std::string message = front.status == SolveStatus::Optimal
                                    ? "no point of the front could be solved"
                                    : front.message;
    return reportNoSolution(
        context.out, context.err,
        statusWord(front.status == SolveStatus::Optimal ? SolveStatus::Error : front.status),
        message, paretoJson(analysis), args.json);
  }
  if (args.csv) {
    context.out << paretoCsv(analysis) << std::flush;
  } else if (args.json) {
    context.out << paretoJson(analysis) << std::endl;
  } else {
    printTable(context.out, Style{context.color}, analysis);
  }
  return kExitSuccess;
}

}  // namespace

void registerPareto(CLI::App& app, Context& context) {
  auto args = std::make_shared<ParetoArgs>();
  CLI::App* cmd =
      addCommand(app, context, "pareto",
                 "Least time for N network cost budgets, and the perf-per-cost optimum");
  if (cmd == nullptr) return;
  cmd->add_option("PROJECT", args->project, "Project file (JSON)")->required()->type_name("FILE");
  addScenarioFlag(cmd, args->scenario);
  cmd->add_option("--points", args->points,
                  "Number of cost budgets, " + std::to_string(kMinPoints) + " to " +
                      std::to_string(kMaxPoints) + " (default 50)")
      ->type_name("N");
  cmd->add_option("--constraint", args->constraints,
                  "Extra linear constraint, e.g. 'bw[0] >= bw[1]' (repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_flag("--no-project-constraints", args->noProjectConstraints,
                "Ignore the project's constraints: only the --constraint expressions apply");
  cmd->add_option("--solver", args->solver, "Backend: native (default) or ipopt")
      ->type_name("NAME");
  addLimitFlags(cmd, args->limits);
  addModelFlags(cmd, args->model);
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print one JSON object");
  CLI::Option* csv =
      cmd->add_flag("--csv", args->csv, "Print CSV: a header line, then one row per point");
  csv->excludes(json);
  cmd->footer(std::string(kParetoFooter) + "\n\n" + kModelHelp + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runPareto(*args, context); });
}

}  // namespace libra::cli
