// `libra pareto`: least iteration time over a range of network cost budgets.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
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
  std::string points = "50";
  std::vector<std::string> constraints;
  std::string solver = "native";
  bool json = false;
  bool csv = false;
};

double timeCost(const Solution& s) {
  return s.eval.iterationNs * s.eval.costUsd;
}

std::size_t bestIndex(const ParetoFront& front) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < front.points.size(); ++i) {
    if (timeCost(front.points[i]) < timeCost(front.points[best])) best = i;
  }
  return best;
}

Json pointJson(const Solution& s) {
  Json j;
  j["network_cost_usd"] = s.eval.costUsd;
  j["iteration_time_ns"] = s.eval.iterationNs;
  j["bandwidth_gbps"] = s.bandwidth;
  j["compute_time_ns"] = s.eval.computeNs;
  j["communication_time_ns"] = s.eval.communicationNs;
  j["time_cost_ns_usd"] = timeCost(s);
  return j;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

void printCsv(std::ostream& out, const Problem& problem, const ParetoFront& front) {
  out << "network_cost_usd,iteration_time_ns";
  for (const std::string& name : problem.dimNames) out << ',' << csvField("bw_" + name + "_gbps");
  out << ",perf_per_cost_optimum\n";
  const std::size_t best = bestIndex(front);
  for (std::size_t i = 0; i < front.points.size(); ++i) {
    const Solution& s = front.points[i];
    out << formatExact(s.eval.costUsd) << ',' << formatExact(s.eval.iterationNs);
    for (double bw : s.bandwidth) out << ',' << formatExact(bw);
    out << ',' << (i == best ? 1 : 0) << '\n';
  }
  out.flush();
}

void printJson(std::ostream& out, const Project& project, const Problem& problem,
               const ParetoFront& front, Backend backend, double elapsedNs) {
  Json j;
  j["status"] = "optimal";
  Json points = Json::array();
  for (const Solution& s : front.points) points.push_back(pointJson(s));
  j["points"] = std::move(points);
  Json best = pointJson(front.perfPerCostOptimum);
  j["perf_per_cost_optimum"] = std::move(best);
  j["nearest_point_index"] = bestIndex(front);
  j["project"] = project.name;
  j["dimensions"] = problem.dimNames;
  j["min_cost_usd"] = front.minCostUsd;
  j["max_cost_usd"] = front.maxCostUsd;
  j["solver"] = std::string(toString(backend));
  j["iterations"] = front.perfPerCostOptimum.iterations;
  j["solve_time_ns"] = elapsedNs;
  out << j.dump(2) << std::endl;
}

void printTable(std::ostream& out, const Style& style, const Project& project,
                const Problem& problem, const ParetoFront& front, Backend backend,
                double elapsedNs) {
  const Solution& opt = front.perfPerCostOptimum;
  printFields(out, style,
              {{"Project", project.name.empty() ? "(unnamed)" : project.name},
               {"Solver", std::string(toString(backend)) + ", " + std::to_string(opt.iterations) +
                              " iterations, " + formatDuration(elapsedNs)},
               {"Cost range", formatUsd(front.minCostUsd) + " .. " + formatUsd(front.maxCostUsd)},
               {"Points", std::to_string(front.points.size())}});
  out << '\n';
  Table table;
  table.addColumn("#");
  table.addColumn("network cost");
  table.addColumn("iteration time (ms)");
  for (const std::string& name : problem.dimNames) table.addColumn(name + " (GB/s)");
  table.addColumn("time x cost (s*$)");
  table.addColumn("", Table::Align::Left);
  const std::size_t best = bestIndex(front);
  for (std::size_t i = 0; i < front.points.size(); ++i) {
    const Solution& s = front.points[i];
    std::vector<std::string> row{std::to_string(i), formatUsd(s.eval.costUsd),
                                 formatFixed(s.eval.iterationNs / 1e6, 3)};
    for (double bw : s.bandwidth) row.push_back(formatFixed(bw, 3));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4e", timeCost(s) * 1e-9);
    row.emplace_back(buffer);
    row.emplace_back(i == best ? "*" : "");
    table.addRow(std::move(row));
  }
  table.print(out, style);
  out << '\n';
  std::string bws;
  for (double bw : opt.bandwidth) bws += (bws.empty() ? "" : ", ") + formatFixed(bw, 3);
  char tc[32];
  std::snprintf(tc, sizeof tc, "%.4e", timeCost(opt) * 1e-9);
  printFields(
      out, style,
      {{"Perf-per-cost optimum", formatUsd(opt.eval.costUsd) + ", " +
                                     formatDuration(opt.eval.iterationNs) + ", " + tc + " s*$"},
       {"  bandwidth (GB/s)", bws},
       {"  (*)", "the scanned point nearest to it (least time x cost)"}});
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
  const int points = parsePoints(args.points);
  const Backend backend = parseBackendFlag(args.solver);
  const Project project = loadProjectFile(args.project);
  const Problem problem = buildProblemFor(project, args.project, args.constraints);

  SolveOptions options;
  options.backend = backend;
  const auto start = std::chrono::steady_clock::now();
  const ParetoFront front = paretoFront(problem, points, options);
  const double elapsedNs =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();

  if (front.status != SolveStatus::Optimal || front.points.empty()) {
    const std::string message = front.status == SolveStatus::Optimal
                                    ? "no point of the front could be solved"
                                    : front.message;
    return reportNoSolution(
        context.out, context.err,
        failureJson(
            statusWord(front.status == SolveStatus::Optimal ? SolveStatus::Error : front.status),
            message, std::nullopt, backend),
        args.json);
  }
  if (args.csv) {
    printCsv(context.out, problem, front);
  } else if (args.json) {
    printJson(context.out, project, problem, front, backend, elapsedNs);
  } else {
    printTable(context.out, Style{context.color}, project, problem, front, backend, elapsedNs);
  }
  return kExitSuccess;
}

}  // namespace

void registerPareto(CLI::App& app, Context& context) {
  auto args = std::make_shared<ParetoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pareto", "Least time for N network cost budgets, and the perf-per-cost optimum");
  cmd->add_option("PROJECT", args->project, "Project file (JSON)")->required()->type_name("FILE");
  cmd->add_option("--points", args->points,
                  "Number of cost budgets, " + std::to_string(kMinPoints) + " to " +
                      std::to_string(kMaxPoints) + " (default 50)")
      ->type_name("N");
  cmd->add_option("--constraint", args->constraints,
                  "Extra linear constraint, e.g. 'bw[0] >= bw[1]' (repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_option("--solver", args->solver, "Backend: native (default) or ipopt")
      ->type_name("NAME");
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print one JSON object");
  CLI::Option* csv =
      cmd->add_flag("--csv", args->csv, "Print CSV: a header line, then one row per point");
  csv->excludes(json);
  cmd->footer(std::string(kParetoFooter) + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runPareto(*args, context); });
}

}  // namespace libra::cli
