// `libra reproduce-libra`: the LIBRA paper's headline comparison on the reference
// inputs. For the 3D and 4D reference networks and the GPT-3, MSFT-1T,
// Turing-NLG and ResNet-50 reference workloads (each with its reference
// communicator) under Sum bw == B, it solves both objectives and compares them
// with an equal split of the same total: iteration-time speed-up of the
// performance optimum, and perf-per-cost gain of the perf-per-cost optimum.
#include <filesystem>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/error.hpp"
#include "libra/libra_format.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

namespace fs = std::filesystem;

struct Case {
  const char* network;  // 3d / 4d
  const char* workload;
  const char* communicator;
};

// The reference communicator files spell 3D/4D in either case.
constexpr Case kCases[] = {
    {"3d", "GPT_3", "GPT_3_3d"},           {"3d", "MSFT_1T", "MSFT_1T_3d"},
    {"3d", "Turing_NLG", "Turing_NLG_3D"}, {"3d", "ResNet_50", "ResNet_50_3d"},
    {"4d", "GPT_3", "GPT_3_4d"},           {"4d", "MSFT_1T", "MSFT_1T_4d"},
    {"4d", "Turing_NLG", "Turing_NLG_4D"}, {"4d", "ResNet_50", "ResNet_50_4d"},
};

struct ReproduceArgs {
  std::string reference = "../shared/reference/libra-inputs";
  double total = 500;
  std::string solver = "native";
  bool json = false;
};

std::string split(const std::vector<double>& bw) {
  std::string s;
  for (double b : bw) s += (s.empty() ? "" : " / ") + formatFixed(b, 1);
  return s;
}

void runReproduceCommand(Context& context, const ReproduceArgs& args) {
  const fs::path ref(args.reference);
  if (!fs::is_directory(ref / "network")) {
    throw InputError("--reference: '" + args.reference +
                     "' does not hold the LIBRA reference inputs (no network/ directory)");
  }
  if (!(args.total > 0)) throw InputError("--total: must be a number > 0 GB/s");
  const Backend backend = parseBackendFlag(args.solver);
  const SolveOptions options{backend, nullptr, SolveLimits{}};
  Json rows = Json::array();
  Table table;
  for (const char* h : {"network", "workload", "perf-optimal split (GB/s)", "speed-up",
                        "perf-per-cost split (GB/s)", "perf/cost gain"}) {
    table.addColumn(h, std::string(h).find("split") != std::string::npos ||
                               std::string(h) == "network" || std::string(h) == "workload"
                           ? Table::Align::Left
                           : Table::Align::Right);
  }
  for (const Case& c : kCases) {
    ImportOptions o;
    o.network = ref / "network" / (std::string(c.network) + "_network.yml");
    o.workload = ref / "workload" / (std::string(c.workload) + ".txt");
    o.communicator = ref / "communicator" / (std::string(c.communicator) + ".yml");
    o.costModel = ref / "cost_model" / (std::string(c.network) + "_cost_model.yml");
    Project project = importLibra(o);
    project.constraints = {"total == " + formatExact(args.total)};
    const Problem problem = buildProblem(project);
    const Solution perf = solve(problem, Objective::Performance, options);
    const Solution ppc = solve(problem, Objective::PerfPerCost, options);
    if (!perf.ok() || !ppc.ok()) {
      throw std::runtime_error(std::string(c.network) + " " + c.workload + ": " +
                               (perf.ok() ? ppc.message : perf.message));
    }
    const std::vector<double> equal(problem.dims(), args.total / problem.dims());
    const Evaluation eq = problem.evaluate(equal);
    const double speedup = eq.iterationNs / perf.eval.iterationNs;
    const double gain = (eq.iterationNs * eq.costUsd) / (ppc.eval.iterationNs * ppc.eval.costUsd);
    table.addRow({c.network, c.workload, split(perf.bandwidth), formatFixed(speedup, 3) + "x",
                  split(ppc.bandwidth), formatFixed(gain, 2) + "x"});
    Json row;
    row["network"] = c.network;
    row["workload"] = c.workload;
    row["performance"] = {{"bandwidth_gbps", perf.bandwidth},
                          {"iteration_time_ns", perf.eval.iterationNs},
                          {"network_cost_usd", perf.eval.costUsd}};
    row["perf_per_cost"] = {{"bandwidth_gbps", ppc.bandwidth},
                            {"iteration_time_ns", ppc.eval.iterationNs},
                            {"network_cost_usd", ppc.eval.costUsd}};
    row["equal_split"] = {{"bandwidth_gbps", equal},
                          {"iteration_time_ns", eq.iterationNs},
                          {"network_cost_usd", eq.costUsd}};
    row["speedup"] = speedup;
    row["perf_per_cost_gain"] = gain;
    rows.push_back(row);
  }
  if (args.json) {
    Json out;
    out["total_bandwidth_gbps"] = args.total;
    out["solver"] = std::string(toString(backend));
    out["rows"] = rows;
    context.out << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  context.out << "LIBRA reference inputs (" << args.reference
              << "), Sum bw == " << formatExact(args.total) << " GB/s per NPU, solver "
              << toString(backend)
              << ".\nSpeed-up: equal-split time / optimal time. Perf/cost gain: equal-split "
                 "(time x cost) / optimal (time x cost).\n\n";
  table.print(context.out, Style{context.color});
}

}  // namespace

void registerReproduceLibra(CLI::App& app, Context& context) {
  auto args = std::make_shared<ReproduceArgs>();
  CLI::App* cmd =
      addCommand(app, context, "reproduce-libra",
                 "Reproduce LIBRA's comparison of optimized against equal bandwidth splits on the "
                 "reference inputs");
  if (cmd == nullptr) return;
  cmd->add_option("--reference", args->reference,
                  "Directory with the LIBRA reference inputs (network/, workload/, "
                  "communicator/, cost_model/)")
      ->capture_default_str();
  cmd->add_option("--total", args->total, "Total bandwidth per NPU, GB/s (Sum bw == TOTAL)")
      ->capture_default_str();
  cmd->add_option("--solver", args->solver, "native or ipopt")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON instead of a table");
  cmd->footer(
      "Networks: 3d_network.yml and 4d_network.yml with their cost models; workloads GPT_3,\n"
      "MSFT_1T, Turing_NLG and ResNet_50 with their reference communicators.\n"
      "\n"
      "Example:\n"
      "  libra reproduce-libra --reference ../shared/reference/libra-inputs");
  cmd->callback([&context, args] { runReproduceCommand(context, *args); });
}

}  // namespace libra::cli
