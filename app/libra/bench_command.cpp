// `libra bench PROJECT.json`: solver speed and backend agreement, measured in one
// process (see engine/solve/include/libra/bench.hpp).
#include <iostream>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/bench.hpp"
#include "libra/error.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

struct BenchArgs {
  std::string project;
  std::vector<std::string> constraints;
  int repetitions = 301;
  ModelFlags model;
  bool json = false;
};

Json reportJson(const BenchReport& r) {
  Json out;
  out["native_solve_ns"] = r.nativeSolveNs;
  out["ipopt_solve_ns"] = r.ipoptSolveNs;
  out["pareto_100_ns"] = r.pareto100Ns;
  out["max_relative_disagreement"] = r.maxRelativeDisagreement;
  out["native_speedup"] = r.ipoptSolveNs / r.nativeSolveNs;
  out["pareto_100_over_ipopt_solve"] = r.pareto100Ns / r.ipoptSolveNs;
  out["performance_disagreement"] = r.performanceDisagreement;
  out["perf_per_cost_disagreement"] = r.perfPerCostDisagreement;
  out["native_iterations"] = r.nativeIterations;
  out["ipopt_iterations"] = r.ipoptIterations;
  out["distinct_collectives"] = r.distinctCollectives;
  return out;
}

void printReport(Context& context, const Style& style, const std::string& title,
                 const BenchReport& r) {
  context.out << style.bold(title) << "\n";
  printFields(context.out, style,
              {{"native solve (median)", formatDuration(r.nativeSolveNs) + "  (" +
                                             std::to_string(r.nativeIterations) + " iterations)"},
               {"IPOPT solve (median)", formatDuration(r.ipoptSolveNs) + "  (" +
                                            std::to_string(r.ipoptIterations) + " iterations)"},
               {"native speed-up", formatFixed(r.ipoptSolveNs / r.nativeSolveNs, 1) + "x"},
               {"100-point Pareto front", formatDuration(r.pareto100Ns) + "  (" +
                                              formatFixed(r.pareto100Ns / r.ipoptSolveNs, 2) +
                                              " IPOPT solves)"},
               {"max relative disagreement", formatExact(r.maxRelativeDisagreement)},
               {"distinct collectives", std::to_string(r.distinctCollectives)}});
}

void runBenchCommand(Context& context, const BenchArgs& args) {
  if (args.repetitions < 1) throw InputError("--repetitions: must be a whole number >= 1");
  const Project loaded = loadProjectFile(args.project);
  const ModelOverrides overrides = parseModelFlags(args.model);
  BenchOptions options;
  options.solveRepetitions = args.repetitions;
  options.ipoptRepetitions = std::max(3, args.repetitions / 15);
  options.paretoRepetitions = std::max(3, args.repetitions / 30);
  auto bench = [&](const Project& project, const std::string& label) {
    const Problem problem = buildProblemFor(project, args.project, args.constraints);
    return runBench(problem, options, [&](const std::string& phase) {
      if (!args.json) context.err << "bench (" << label << "): " << phase << "...\n";
    });
  };
  // Both collective models: LIBRA's ideal one, and the chunked one of the project
  // or the flags (16 chunks when neither chooses one).
  Project ideal = loaded;
  applyModelOverrides(ideal, overrides);
  ideal.model.collectives.chunks = ChunkSetting::ideal();
  Project chunked = loaded;
  applyModelOverrides(chunked, overrides);
  if (chunked.model.collectives.chunks.isIdeal())
    chunked.model.collectives.chunks = ChunkSetting::fixed(16);
  const std::string chunks = chunked.model.collectives.chunks.toString();
  const BenchReport ri = bench(ideal, "ideal");
  const BenchReport rc = bench(chunked, chunks + " chunks");
  if (args.json) {
    Json out = reportJson(ri);  // the ideal model's numbers at the top level, as before
    Json c = reportJson(rc);
    c["chunks"] = chunks;
    out["chunked"] = std::move(c);
    context.out << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  const Style style{context.color};
  const std::string name = displayName(loaded.name.empty() ? args.project : loaded.name);
  printReport(context, style, name + " (LIBRA's ideal collective model)", ri);
  context.out << "\n";
  printReport(context, style, name + " (" + chunks + " chunks per collective)", rc);
}

}  // namespace

void registerBench(CLI::App& app, Context& context) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd =
      addCommand(app, context, "bench",
                 "Measure native and IPOPT solve times, a 100-point Pareto front, and agreement");
  if (cmd == nullptr) return;
  cmd->add_option("project", args->project, "Project file (JSON)")->required();
  cmd->add_option("--constraint", args->constraints, "Extra constraint (repeatable)");
  cmd->add_option("--repetitions", args->repetitions,
                  "Native solves to time (IPOPT and Pareto runs scale with it)")
      ->capture_default_str();
  addModelFlags(cmd, args->model);
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->footer(
      "All times are medians over repeated runs in this one process, so ratios between\n"
      "them are comparable on any machine. Both collective models are measured: LIBRA's\n"
      "ideal one, and the chunked one (the project's or --chunks; 16 chunks when neither\n"
      "gives one). JSON keys: native_solve_ns, ipopt_solve_ns, pareto_100_ns,\n"
      "max_relative_disagreement (and more) for the ideal model, and the same under\n"
      "\"chunked\" for the chunked one.\n"
      "\n"
      "Example:\n"
      "  libra bench gpt3-4d.json --constraint 'total == 500' --json");
  cmd->callback([&context, args] { runBenchCommand(context, *args); });
}

}  // namespace libra::cli
