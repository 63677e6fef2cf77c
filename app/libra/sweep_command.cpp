// `libra sweep`: every network shape for N NPUs, solved for both objectives with a
// workload generated from a preset, and ranked (the engine's runSweep, see
// engine/analysis/include/libra/sweep.hpp and docs/workloads.md section 7).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <limits>
#include <memory>
#include <ostream>
#include <sstream>
#include <thread>

#include "cli.hpp"
#include "common.hpp"
#include "libra/constraints.hpp"
#include "libra/error.hpp"
#include "libra/execution.hpp"
#include "libra/project_io.hpp"
#include "libra/sweep.hpp"
#include "output.hpp"
#include "preset_options.hpp"
#include "shape_flags.hpp"

namespace libra::cli {

namespace {

constexpr const char* kSweepFooter =
    "Enumerates every network shape for N NPUs: each ordered factorization N = n0 x n1 x ...\n"
    "into D dimensions of at least 2 NPUs (D from --dims), times one building block per\n"
    "dimension from --blocks. Cost levels go by position: a D-dimensional shape takes the\n"
    "outermost D of InterChiplet, InterPackage, InterNode, InterPod, so its last dimension\n"
    "is always InterPod and the dimensions are named chiplet, package, node, pod (bw[pod]\n"
    "works in every shape). Each shape gets the preset's workload and is solved for both\n"
    "objectives (performance: least iteration time; perf-per-cost: least time x cost, in\n"
    "s*$) under the constraints (default 'total == 500', GB/s per NPU), on --jobs threads.\n"
    "Shapes that cannot be built or solved are skipped and counted by reason: with the\n"
    "reference prices a Switch needs a Nic price, which only InterPod has; a parallelism\n"
    "that cannot be mapped onto the shape; a constraint naming a dimension the shape lacks.\n"
    "\n"
    "Output: the counts (enumerated, solved, skipped by reason), the wall time and the best\n"
    "--top shapes for each objective (bandwidths innermost first, GB/s; iteration time;\n"
    "network cost in $). --json prints everything, every solved shape included; --csv FILE\n"
    "writes one row per solved shape and prints the tables.\n"
    "Without parallelism flags, when the preset's default does not fit the device's memory,\n"
    "the execution of least compute time that fits is swept instead (a note names it);\n"
    "libra codesign searches the executions of every shape.\n"
    "On a terminal a progress bar with the time left is drawn on stderr.\n"
    "\n"
    "Ctrl-C stops the sweep cleanly: the shapes finished so far are reported as usual\n"
    "(\"status\": \"cancelled\" with --json) and the exit code is 130.\n"
    "\n"
    "Examples:\n"
    "  libra sweep --preset gpt3-175b --npus 4096 --dims 2..4\n"
    "  libra sweep --preset llama3-70b --npus 1024 --dims 3 --blocks Ring,Switch --top 10\n"
    "  libra sweep --preset gpt3-175b --npus 4096 --constraint 'total == 1000' \\\n"
    "              --constraint 'bw[pod] <= 100' --jobs 8 --csv shapes.csv\n"
    "\n"
    "Exit codes: 0 done; 1 no shape could be solved; 2 bad usage or bad input;\n"
    "130 interrupted (Ctrl-C) after printing what was finished.";

struct SweepArgs {
  PresetFlags preset;
  std::string npus;
  std::string dims = "2..4";
  std::string blocks = "Ring,FullyConnected,Switch";
  std::vector<std::string> constraints;
  std::string jobs;
  std::string top = "5";
  std::string csv;
  ModelFlags model;
  bool json = false;
};

// --- flags -----------------------------------------------------------------------

// --- output ----------------------------------------------------------------------

std::string timeCostText(const Evaluation& e) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4e", e.iterationNs * 1e-9 * e.costUsd);
  return buffer;
}

Json solutionJson(const Solution& s, const TrainingFacts& facts, const Throughput& t) {
  Json j;
  j["bandwidth_gbps"] = s.bandwidth;
  j["iteration_time_ns"] = number(s.eval.iterationNs);
  j["compute_time_ns"] = number(s.eval.computeNs);
  j["communication_time_ns"] = number(s.eval.communicationNs);
  j["network_cost_usd"] = number(s.eval.networkCostUsd);
  if (s.eval.costUsd != s.eval.networkCostUsd) j["system_cost_usd"] = number(s.eval.costUsd);
  j["time_cost_ns_usd"] = number(s.eval.iterationNs * s.eval.costUsd);
  j.update(result_json::throughputKeys(facts, t));
  j["iterations"] = s.iterations;
  return j;
}

const Throughput& throughputOf(const SweepShape& shape, bool performance) {
  return performance ? shape.performanceThroughput : shape.perfPerCostThroughput;
}

struct Summary {
  const SweepOptions& options;
  const SweepResult& result;
  int top = 5;
  int jobs = 1;
  bool interrupted = false;

  int solved() const { return static_cast<int>(result.shapes.size()); }
  int notRun() const { return result.enumerated - solved() - result.skipped; }
  std::string status() const {
    if (interrupted || result.cancelled) return "cancelled";
    return solved() > 0 ? "done" : "error";
  }
};

// The training facts every shape shares: batch, tokens, bubble, memory.
void addTrainingJson(Json& j, const TrainingFacts& f) {
  j["tokens_per_iteration"] = optionalNumber(f.tokensPerIteration);
  if (f.batch) j["batch"] = result_json::batchJson(*f.batch);
  j["train_tokens"] = optionalNumber(f.trainTokens);
  j["pipeline_bubble_fraction"] = optionalNumber(f.pipelineBubble);
  j.update(result_json::memoryKeys(f.memory));
  j["memory_fits"] = f.memory.fits();
  if (!f.note.empty()) j["throughput_note"] = f.note;
  if (!f.memory.note.empty()) j["memory_note"] = f.memory.note;
}

// Every solved shape with both of its optima.
Json shapesJson(const SweepResult& r) {
  Json shapes = Json::array();
  for (std::size_t i = 0; i < r.shapes.size(); ++i) {
    const SweepShape& shape = r.shapes[i];
    Json item;
    item["index"] = i;
    item["label"] = shape.label;
    item["dimensions"] = networkJson(shape.network);
    item["performance"] = solutionJson(shape.performance, r.training, shape.performanceThroughput);
    item["perf_per_cost"] =
        solutionJson(shape.perfPerCost, r.training, shape.perfPerCostThroughput);
    item["dimensions_without_traffic"] = shape.dimensionsWithoutTraffic;
    shapes.push_back(std::move(item));
  }
  return shapes;
}

Json summaryJson(const Summary& s) {
  const SweepOptions& o = s.options;
  const SweepResult& r = s.result;
  Json j;
  j["status"] = s.status();
  if (s.solved() == 0 && !r.cancelled) {
    j["message"] = "none of the " + std::to_string(r.enumerated) + " shapes could be solved";
  }
  j["preset"] = o.preset.id;
  j["device"] = o.device.id;
  j["parallelism"] = o.parallelism.label();
  j["npus"] = o.npus;
  j["dims"] = {o.minDims, o.maxDims};
  Json blocks = Json::array();
  for (BuildingBlock b : o.blocks) blocks.push_back(std::string(toString(b)));
  j["blocks"] = std::move(blocks);
  j["constraints"] = o.constraints;
  j["jobs"] = s.jobs;
  j["enumerated"] = r.enumerated;
  j["solved"] = s.solved();
  j["skipped"] = r.skipped;
  j["not_run"] = s.notRun();
  Json reasons = Json::array();
  for (const auto& [reason, count] : r.skipReasons) {
    const auto example = r.skipExample.find(reason);
    reasons.push_back({{"reason", reason},
                       {"count", count},
                       {"example", example == r.skipExample.end() ? "" : example->second}});
  }
  j["skip_reasons"] = std::move(reasons);
  j["wall_time_s"] = r.wallSeconds;
  addTrainingJson(j, r.training);
  auto best = [&](const std::vector<int>& order, bool performance) {
    Json list = Json::array();
    for (int k = 0; k < static_cast<int>(order.size()) && k < s.top; ++k) {
      const SweepShape& shape = r.shapes[order[k]];
      Json item;
      item["rank"] = k + 1;
      item["shape"] = order[k];
      item["label"] = shape.label;
      item.update(solutionJson(performance ? shape.performance : shape.perfPerCost, r.training,
                               throughputOf(shape, performance)));
      list.push_back(std::move(item));
    }
    return list;
  };
  j["best_performance"] = best(r.byTime, true);
  j["best_perf_per_cost"] = best(r.byTimeCost, false);
  j["ranking_performance"] = r.byTime;
  j["ranking_perf_per_cost"] = r.byTimeCost;
  j["shapes"] = shapesJson(r);
  return j;
}

void printRanking(std::ostream& out, const Style& style, const Summary& s,
                  const std::vector<int>& order, bool performance) {
  const int shown = std::min<int>(s.top, static_cast<int>(order.size()));
  out << style.bold(performance ? "Best shapes for performance" : "Best shapes for perf-per-cost")
      << (performance ? " (least iteration time; " : " (least time x cost; ") << shown << " of "
      << order.size() << ")\n";
  Table table;
  table.addColumn("#");
  table.addColumn("shape", Table::Align::Left);
  table.addColumn("bandwidth (GB/s)", Table::Align::Left);
  table.addColumn("iteration time");
  table.addColumn("network cost");
  table.addColumn("time x cost (s*$)");
  table.addColumn("tokens/s");
  table.addColumn("MFU");
  for (int k = 0; k < shown; ++k) {
    const SweepShape& shape = s.result.shapes[order[k]];
    const Solution& sol = performance ? shape.performance : shape.perfPerCost;
    const Throughput& t = throughputOf(shape, performance);
    char tokens[32] = "-";
    if (t.tokensPerSecond) std::snprintf(tokens, sizeof tokens, "%.4g", *t.tokensPerSecond);
    table.addRow({std::to_string(k + 1), shape.label, bandwidthText(sol.bandwidth),
                  formatDuration(sol.eval.iterationNs), formatUsd(sol.eval.costUsd),
                  timeCostText(sol.eval), tokens,
                  t.mfu ? formatFixed(100 * *t.mfu, 1) + " %" : "-"});
  }
  table.print(out, style);
}

void printSummary(std::ostream& out, const Style& style, const Summary& s) {
  const SweepOptions& o = s.options;
  const SweepResult& r = s.result;
  std::string constraints;
  for (const std::string& c : o.constraints) constraints += (constraints.empty() ? "" : "; ") + c;
  std::string shapes = std::to_string(r.enumerated) + " enumerated, " + std::to_string(s.solved()) +
                       " solved, " + std::to_string(r.skipped) + " skipped";
  if (s.notRun() > 0) shapes += ", " + std::to_string(s.notRun()) + " not run (interrupted)";
  const std::string wall = formatDuration(r.wallSeconds * 1e9) + " on " + std::to_string(s.jobs) +
                           (s.jobs == 1 ? " thread" : " threads");
  printFields(out, style,
              {{"Sweep", o.preset.id + " on " + o.device.id + ", " + o.parallelism.label() + ", " +
                             std::to_string(o.npus) + " NPUs in " + std::to_string(o.minDims) +
                             (o.minDims == o.maxDims ? "" : ".." + std::to_string(o.maxDims)) +
                             " dimensions"},
               {"Blocks", blockList(o.blocks)},
               {"Constraints", constraints},
               {"Work", r.training.batch ? batchText(*r.training.batch) : "-"},
               {"Memory", r.training.memory.use ? r.training.memory.describe()
                                                : "unknown: " + r.training.memory.note},
               {"Shapes", shapes},
               {"Wall time", wall},
               {"Status", s.status() == "done" ? style.good(s.status()) : style.bad(s.status())}});
  if (!r.skipReasons.empty()) {
    out << '\n';
    Table skips;
    skips.addColumn("skipped");
    skips.addColumn("reason (--json gives an example message for each)", Table::Align::Left);
    for (const auto& [reason, count] : r.skipReasons) skips.addRow({std::to_string(count), reason});
    skips.print(out, style);
  }
  if (s.solved() == 0) return;
  out << '\n';
  printRanking(out, style, s, r.byTime, true);
  out << '\n';
  printRanking(out, style, s, r.byTimeCost, false);
}

// One row per solved shape, in enumeration order; bandwidth columns for the widest
// shape, empty where a shape has fewer dimensions. No field needs quoting: labels
// hold block names, NPU counts and " x " only.
std::string csvText(const Summary& s) {
  const SweepResult& r = s.result;
  const int width = s.options.maxDims;
  std::vector<int> rankTime(r.shapes.size()), rankTimeCost(r.shapes.size());
  for (std::size_t k = 0; k < r.byTime.size(); ++k) rankTime[r.byTime[k]] = static_cast<int>(k) + 1;
  for (std::size_t k = 0; k < r.byTimeCost.size(); ++k) {
    rankTimeCost[r.byTimeCost[k]] = static_cast<int>(k) + 1;
  }
  std::ostringstream out;
  out << "shape,dimensions,npus,blocks,cost_levels";
  for (const char* objective : {"performance", "perf_per_cost"}) {
    for (int d = 0; d < width; ++d) out << ',' << objective << "_bw" << d << "_gbps";
    out << ',' << objective << "_iteration_time_ns," << objective << "_network_cost_usd,"
        << objective << "_time_cost_ns_usd," << objective << "_tokens_per_second," << objective
        << "_mfu";
  }
  out << ",rank_performance,rank_perf_per_cost\n";
  for (std::size_t i = 0; i < r.shapes.size(); ++i) {
    const SweepShape& shape = r.shapes[i];
    std::string npus, blocks, levels;
    for (const Dimension& d : shape.network.dims) {
      npus += (npus.empty() ? "" : "x") + std::to_string(d.npus);
      blocks += (blocks.empty() ? "" : ";") + std::string(toString(d.block));
      levels += (levels.empty() ? "" : ";") + d.costLevel;
    }
    out << shape.label << ',' << shape.network.size() << ',' << npus << ',' << blocks << ','
        << levels;
    for (const Solution* sol : {&shape.performance, &shape.perfPerCost}) {
      for (int d = 0; d < width; ++d) {
        out << ',';
        if (d < static_cast<int>(sol->bandwidth.size())) out << formatExact(sol->bandwidth[d]);
      }
      out << ',' << formatExact(sol->eval.iterationNs) << ',' << formatExact(sol->eval.costUsd)
          << ',' << formatExact(sol->eval.iterationNs * sol->eval.costUsd);
      const Throughput& t = throughputOf(shape, sol == &shape.performance);
      out << ',' << (t.tokensPerSecond ? formatExact(*t.tokensPerSecond) : std::string()) << ','
          << (t.mfu ? formatExact(*t.mfu) : std::string());
    }
    out << ',' << rankTime[i] << ',' << rankTimeCost[i] << '\n';
  }
  return out.str();
}

// --- the command -----------------------------------------------------------------

// Whether the flags leave the whole execution to the preset's default.
bool fixesNoExecution(const PresetFlags& f) {
  return f.tp.empty() && f.cp.empty() && f.ep.empty() && f.expertTp.empty() && f.pp.empty() &&
         f.dp.empty() && f.zero.empty() && !f.zero3 && !f.recompute && !f.selectiveRecompute &&
         !f.sequenceParallel && f.microBatch.empty() && f.microBatches.empty() &&
         f.virtualStages.empty() && f.layout != "libra";
}

// The execution of least compute time on `npus` NPUs that fits the device's
// memory (the execution search's bound order), if any does.
std::optional<Execution> fittingExecution(const PresetFlags& flags, const PresetChoice& choice,
                                          std::int64_t npus) {
  ExecutionSearchOptions so;
  so.choices = executionChoices(flags, choice);
  so.choices.searchPlacements = false;
  so.device = choice.device;
  so.generator = choice.generator;
  const PreparedExecutions prepared = prepareExecutions(*choice.preset, npus, so);
  if (prepared.candidates.empty()) return std::nullopt;
  return prepared.candidates.front().execution;
}

// The memory per NPU is the same on every shape (it depends on the degrees and
// the batch): refuses before sweeping, with the numbers, or (without
// parallelism flags) takes the execution of least compute time that fits.
void fitMemory(const SweepArgs& args, const PresetChoice& choice, std::int64_t npus,
               SweepOptions& options, std::vector<std::string>& notes) {
  const TrainingFacts facts = sweepTrainingFacts(options);
  if (!facts.memory.fits()) {
    const Parallelism resolved = resolveDegrees(options.parallelism, npus);
    const std::string what = options.preset.id + " on " + options.device.id + " (" +
                             resolved.label() + ", " + std::to_string(npus) + " NPUs)";
    if (options.ignoreMemory) {
      notes.push_back(
          what + " does not fit the device's memory (--ignore-memory): " + facts.memory.describe());
    } else {
      // Without parallelism flags the preset's default is only a default: the
      // execution of least compute time that fits takes its place.
      const std::optional<Execution> chosen = fixesNoExecution(args.preset)
                                                  ? fittingExecution(args.preset, choice, npus)
                                                  : std::nullopt;
      if (!chosen) refuseMemory(what, facts.memory);
      options.parallelism = chosen->parallelism;
      options.generator = generatorOf(*chosen, options.generator);
      notes.push_back("the preset's default " + resolved.label() + " needs " +
                      formatFixed(facts.memory.use ? facts.memory.use->total() / 1e9 : 0, 1) +
                      " GB per NPU: chose " + chosen->label() +
                      ", the execution of least compute time that fits (flags fix degrees; "
                      "libra codesign searches the executions of every shape)");
    }
  }
}

// The sweep's options from the flags; `notes` gets what was assumed.
SweepOptions sweepOptions(const SweepArgs& args, std::vector<std::string>& notes) {
  const PresetChoice choice = resolvePresetFlags(args.preset);
  SweepOptions options;
  const int maxDims = static_cast<int>(options.costLevels.size());
  if (args.npus.empty()) throw InputError("--npus is required (the number of NPUs, e.g. 4096)");
  const std::int64_t npus = parseWholeNumber(args.npus, "--npus", 1, kMaxNpus);
  if (npus < kMinNpus) {
    throw InputError("--npus: " + args.npus +
                     " NPUs cannot form a network of 2 or more dimensions of at least 2 NPUs "
                     "each; give at least " +
                     std::to_string(kMinNpus));
  }
  const DimRange dims = parseDims(args.dims, maxDims);
  const std::vector<BuildingBlock> blocks = parseBlocks(args.blocks);
  const int jobs = parseJobs(args.jobs);
  if (!args.csv.empty()) requireWritableTarget(args.csv, "--csv");
  checkFactorizations(npus, dims, notes);

  options.preset = *choice.preset;
  options.parallelism = choice.parallelism;
  options.device = choice.device;
  options.generator = choice.generator;
  options.npus = npus;
  options.minDims = dims.min;
  options.maxDims = dims.max;
  options.blocks = blocks;
  options.costModel = choice.costModel;
  options.constraints = args.constraints;
  if (options.constraints.empty()) {
    options.constraints = {"total == 500"};
    notes.emplace_back("no --constraint given: every shape gets 'total == 500' (GB/s per NPU)");
  }
  options.loop = choice.trainingLoop;
  applyModelFlags(args.model, options);
  options.jobs = jobs;
  options.ignoreMemory = choice.ignoreMemory;
  checkConstraints(options);
  fitMemory(args, choice, npus, options, notes);
  return options;
}

// The CSV file, then the JSON or the text of the summary.
void report(const SweepArgs& args, const Summary& summary, Context& context) {
  if (!args.csv.empty()) {
    try {
      writeFileAtomically(args.csv, csvText(summary));
    } catch (const std::exception& e) {
      const std::string message = e.what();
      throw InputError(message.find(args.csv) != std::string::npos
                           ? message
                           : "--csv '" + args.csv + "': " + message);
    }
  }
  if (args.json) {
    context.out << summaryJson(summary).dump(2, ' ', false,
                                             nlohmann::json::error_handler_t::replace)
                << std::endl;
    return;
  }
  printSummary(context.out, Style{context.color}, summary);
  if (!args.csv.empty()) {
    context.out << "\nwrote " << args.csv << ": " << summary.result.shapes.size() << " rows\n";
  }
}

int runSweepCommand(const SweepArgs& args, Context& context) {
  const int top =
      static_cast<int>(parseWholeNumber(args.top, "--top", 1, std::numeric_limits<int>::max()));
  std::vector<std::string> notes;
  const SweepOptions options = sweepOptions(args, notes);

  SweepResult result;
  bool interrupted = false;
  {
    const InterruptHandler handler;
    ProgressBar bar(context.err, isatty(STDERR_FILENO) == 1, "shapes");
    try {
      result = runSweep(
          options, [&](int done, int total) { bar.update(done, total); }, &gInterrupted);
    } catch (const ConstraintError& e) {
      throw InputError(std::string("--constraint: ") + e.what());
    }
    bar.clear();
    interrupted = gInterrupted.load();
  }

  // Notes come after the sweep, so that an error the engine finds before it
  // starts (a parallelism the preset cannot use) stays the only line on stderr.
  for (const std::string& note : notes) context.err << "note: " << messageLine(note) << '\n';
  context.err.flush();

  const Summary summary{options, result, top, options.jobs, interrupted};
  if (interrupted || result.cancelled) {
    context.err << "libra: sweep interrupted: " << result.shapes.size() + result.skipped << " of "
                << result.enumerated << " shapes finished; reporting those" << std::endl;
  }
  report(args, summary, context);
  if (interrupted || result.cancelled) return kExitInterrupted;
  if (result.shapes.empty()) {
    std::string why;
    for (const auto& [reason, count] : result.skipReasons) {
      why += (why.empty() ? "" : "; ") + std::to_string(count) + " " + reason;
    }
    context.err << "libra: error: none of the " << result.enumerated << " shapes could be solved ("
                << why << "); allow more --blocks or --dims, or change the parallelism"
                << std::endl;
    return kExitNoSolution;
  }
  return kExitSuccess;
}

}  // namespace

void registerSweep(CLI::App& app, Context& context) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd =
      addCommand(app, context, "sweep",
                 "Solve every network shape for N NPUs with a preset's workload and rank them");
  if (cmd == nullptr) return;
  cmd->add_option("--npus", args->npus, "Number of NPUs, at least 4 (e.g. 4096)")
      ->required()
      ->type_name("N");
  cmd->add_option("--dims", args->dims, "Dimension counts, MIN..MAX or one count (default 2..4)")
      ->type_name("MIN..MAX");
  cmd->add_option("--blocks", args->blocks,
                  "Building blocks to try per dimension (default Ring,FullyConnected,Switch)")
      ->type_name("LIST");
  cmd->add_option("--constraint", args->constraints,
                  "Constraint for every shape, e.g. 'bw[pod] <= 100' (repeatable; default "
                  "'total == 500')")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_option("--jobs", args->jobs, "Worker threads (default: all cores)")->type_name("N");
  cmd->add_option("--top", args->top, "Shapes listed per objective (default 5)")->type_name("N");
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print one JSON object with every shape");
  CLI::Option* csv =
      cmd->add_option("--csv", args->csv, "Write one CSV row per solved shape to FILE")
          ->type_name("FILE");
  csv->excludes(json);
  addPresetFlags(cmd, args->preset, /*withDataParallel=*/false);
  addModelFlags(cmd, args->model);
  cmd->footer(std::string(kSweepFooter) + "\n\n" + kPresetHelp + "\n\n" + kModelHelp + "\n\n" +
              kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runSweepCommand(*args, context); });
}

}  // namespace libra::cli
