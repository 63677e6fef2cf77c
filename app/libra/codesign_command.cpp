// `libra codesign`: network shapes x executions x bandwidth for one workload
// (the engine's runCodesign, engine/analysis/include/libra/codesign.hpp; contract in
// spec/cli.md "Models, executions and co-design").
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "cli.hpp"
#ifdef LIBRA_WITH_MPI
#include "codesign_mpi.hpp"
#endif
#include "common.hpp"
#include "libra/codesign.hpp"
#include "libra/constraints.hpp"
#include "libra/error.hpp"
#include "libra/project_io.hpp"
#include "output.hpp"
#include "preset_options.hpp"
#include "shape_flags.hpp"

namespace libra::cli {

namespace {

constexpr const char* kCodesignFooter =
    "For each NPU count, every network shape (as libra sweep enumerates them: --dims\n"
    "dimensions of at least 2 NPUs, one of --blocks each, cost levels by position) gets\n"
    "every execution that fits the device's memory (TP, PP with interleaving, DP, EP,\n"
    "micro-batch at the preset's global batch, ZeRO 0-3, recomputation, sequence\n"
    "parallelism; the flags fix what they name) and every placement of its groups onto\n"
    "the dimensions (--placements all, the default; auto: the automatic mapping only).\n"
    "Each design's bandwidth split is solved under the constraints (default\n"
    "'total == 500'): its performance optimum, or with --objective perf-per-cost its\n"
    "perf-per-cost optimum.\n"
    "\n"
    "Pruning uses lower bounds only (an execution's compute time; a design's time from\n"
    "its traffic at the most bandwidth the constraints allow; a shape's least cost under\n"
    "the constraints): the best --top designs are those an exhaustive search\n"
    "finds, and so is the Pareto front of cost against time up to the key of the last\n"
    "of the best 4 x --top, where the front listed stops. --exhaustive evaluates\n"
    "everything for the whole front. The designs and the front do not depend on --jobs\n"
    "(nor on the processes of an MPI run); the counts evaluated and pruned do.\n"
    "\n"
    "Output: the counts (shapes, designs evaluated and pruned), the --top designs by the\n"
    "objective and every design of the Pareto front (marked *), each with its execution\n"
    "and where its groups lie. Designs that differ only in blocks with the same time and\n"
    "cost (a 2-NPU Ring and a 2-NPU FullyConnected) are listed once, with the others as\n"
    "equivalent shapes. --json prints one object (spec/cli.md); --csv FILE writes one\n"
    "row per design listed; --save-scenarios FILE writes them as the scenarios of one\n"
    "project (the GUI opens it, libra compare reads it).\n"
    "Ctrl-C stops the search: what was found is reported (\"status\": \"stopped\"), exit 130.\n"
    "--time-limit S stops it after S seconds the same way (\"status\": \"time limit\", exit 0\n"
    "when a design was found): the designs are then the best found, not proven the best.\n"
    "\n"
    "Examples:\n"
    "  libra codesign --preset gpt3-175b --npus 4096 --dims 2..3\n"
    "  libra codesign --preset llama3-70b --npus 1024,2048 --objective perf-per-cost \\\n"
    "                 --cost-scope system --top 5 --save-scenarios designs.json\n"
    "\n"
    "Exit codes: 0 done; 1 no design found; 2 bad usage or bad input; 130 interrupted.";

struct CodesignArgs {
  PresetFlags preset;
  ModelFlags model;
  std::string npus;
  std::string dims = "2..4";
  std::string blocks = "Ring,FullyConnected,Switch";
  std::vector<std::string> constraints;
  std::string objective = "time";
  std::string jobs;
  std::string top = "10";
  std::string csv;
  std::string saveScenarios;
  bool json = false;
  bool exhaustive = false;
  std::string timeLimit;  // seconds; empty: none
};

std::vector<std::int64_t> parseNpuList(const std::string& text) {
  std::vector<std::int64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::int64_t n = parseWholeNumber(item, "--npus", 1, kMaxNpus);
    if (n < kMinNpus) {
      throw InputError("--npus: " + item +
                       " NPUs cannot form a network of 2 or more dimensions of at least 2 NPUs "
                       "each; give at least " +
                       std::to_string(kMinNpus));
    }
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      throw InputError("--npus: " + item + " is listed twice");
    }
    out.push_back(n);
  }
  if (out.empty()) throw InputError("--npus: give one or more NPU counts, e.g. 4096 or 1024,2048");
  return out;
}

Objective parseCodesignObjective(const std::string& text) {
  if (text == "time" || text == "performance" || text == "time-to-train") {
    return Objective::Performance;
  }
  if (text == "perf-per-cost") return Objective::PerfPerCost;
  throw InputError("--objective: '" + text + "' is not an objective; use time or perf-per-cost");
}

Json placementJson(const CodesignDesign& d) {
  const Parallelism& p = d.execution.parallelism;
  Json j;
  Json sizes;
  for (ParallelAxis axis : kParallelAxes) {
    std::string key(shortName(axis));
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const std::vector<int>& groups = p.groupsOf(axis);
    Json dims = Json::array();
    for (std::size_t k = 0; k < groups.size(); ++k) {
      if (groups[k] > 1) dims.push_back(k);
    }
    j[key] = std::move(dims);
    sizes[key] = groups;
  }
  j["group_sizes"] = std::move(sizes);
  return j;
}

Json designJson(const CodesignDesign& d) {
  const Execution& e = d.execution;
  const Parallelism& p = e.parallelism;
  Json j;
  j["shape"] = d.label;
  Json blocks = Json::array();
  Json npus = Json::array();
  for (const Dimension& dim : d.network.dims) {
    blocks.push_back(std::string(toString(dim.block)));
    npus.push_back(dim.npus);
  }
  j["blocks"] = std::move(blocks);
  j["npus"] = std::move(npus);
  j["total_npus"] = d.npus;
  j["equivalent_shapes"] = d.equivalentShapes;
  j["dimensions"] = networkJson(d.network);
  j["execution"] = {{"tp", p.tp},
                    {"pp", p.pp},
                    {"dp", p.dp},
                    {"ep", p.ep},
                    {"expert_tp", p.etp()},
                    {"cp", p.cp},
                    {"virtual_stages", e.virtualStages},
                    {"micro_batch", e.microBatch},
                    {"zero", p.zero()},
                    {"recompute", std::string(toString(e.recomputation()))},
                    {"sequence_parallel", p.sequenceParallel},
                    {"placement", placementJson(d)},
                    {"label", e.label()}};
  j["placement_text"] = placementText(d.network, d.execution.parallelism);
  j["bandwidth_gbps"] = d.solution.bandwidth;
  j["iteration_time_ns"] = number(d.solution.eval.iterationNs);
  j["compute_time_ns"] = number(d.solution.eval.computeNs);
  j["communication_time_ns"] = number(d.solution.eval.communicationNs);
  j["time_to_train_s"] = optionalNumber(d.throughput.timeToTrainS);
  j["tokens_per_second"] = optionalNumber(d.throughput.tokensPerSecond);
  j["mfu"] = optionalNumber(d.throughput.mfu);
  j["memory_per_npu_bytes"] = d.memory.use ? number(d.memory.use->total()) : Json(nullptr);
  j["network_cost_usd"] = number(d.networkCostUsd);
  j["system_cost_usd"] = number(d.systemCostUsd);
  return j;
}

struct Run {
  const CodesignOptions& options;
  const CodesignResult& result;
  bool interrupted = false;
  int jobs = 1;  // threads per process

  bool timedOut = false;
  int processes = 1;  // MPI ranks

  std::string status() const {
    if (timedOut) return "time limit";
    if (interrupted || result.cancelled) return "stopped";
    return result.designs.empty() ? "error" : "done";
  }
};

Json runJson(const Run& run) {
  const CodesignResult& r = run.result;
  const CodesignOptions& o = run.options;
  Json j;
  j["status"] = run.status();
  j["evaluated"] = r.evaluated;
  j["pruned"] = r.pruned;
  j["wall_s"] = r.wallSeconds;
  j["preset"] = o.shapes.preset.id;
  j["device"] = o.shapes.device.id;
  j["npus"] = o.npus;
  j["dims"] = {o.shapes.minDims, o.shapes.maxDims};
  Json blocks = Json::array();
  for (BuildingBlock b : o.shapes.blocks) blocks.push_back(std::string(toString(b)));
  j["blocks"] = std::move(blocks);
  j["constraints"] = o.shapes.constraints.empty() ? std::vector<std::string>{"total == 500"}
                                                  : o.shapes.constraints;
  j["objective"] = o.objective == Objective::Performance ? "time" : "perf-per-cost";
  j["cost_scope"] = o.shapes.costScope == CostScope::System ? "system" : "network";
  j["shapes"] = r.shapes;
  j["shapes_searched"] = r.shapesSearched;
  j["over_memory"] = r.overMemory;
  j["failed"] = r.failed;
  Json reasons = Json::array();
  for (const auto& [reason, count] : r.skipReasons) {
    const auto example = r.skipExample.find(reason);
    reasons.push_back({{"reason", reason},
                       {"count", count},
                       {"example", example == r.skipExample.end() ? "" : example->second}});
  }
  j["skip_reasons"] = std::move(reasons);
  j["jobs"] = run.jobs;
  Json designs = Json::array();
  for (const CodesignDesign& d : r.designs) designs.push_back(designJson(d));
  j["designs"] = std::move(designs);
  j["pareto"] = r.pareto;
  return j;
}

void printRun(std::ostream& out, const Style& style, const Run& run) {
  const CodesignResult& r = run.result;
  const CodesignOptions& o = run.options;
  std::string npus;
  for (std::int64_t n : o.npus) npus += (npus.empty() ? "" : ", ") + formatCount(n);
  std::string constraints;
  for (const std::string& c : o.shapes.constraints.empty()
                                  ? std::vector<std::string>{"total == 500"}
                                  : o.shapes.constraints) {
    constraints += (constraints.empty() ? "" : "; ") + c;
  }
  std::string skipped;
  for (const auto& [reason, count] : r.skipReasons) {
    skipped += (skipped.empty() ? "" : "; ") + std::to_string(count) + " " + reason;
  }
  printFields(
      out, style,
      {{"Co-design",
        o.shapes.preset.id + " on " + o.shapes.device.id + ", " + npus + " NPUs in " +
            std::to_string(o.shapes.minDims) +
            (o.shapes.minDims == o.shapes.maxDims ? "" : ".." + std::to_string(o.shapes.maxDims)) +
            " dimensions"},
       {"Blocks", blockList(o.shapes.blocks)},
       {"Constraints", constraints},
       {"Objective", o.objective == Objective::Performance
                         ? std::string("time to train (least iteration time)")
                         : std::string("perf per cost (least time x ") +
                               (o.shapes.costScope == CostScope::System ? "system" : "network") +
                               " cost)"},
       {"Shapes", std::to_string(r.shapes) + " enumerated, " + std::to_string(r.shapesSearched) +
                      " searched" + (skipped.empty() ? "" : ", skipped: " + skipped)},
       {"Designs", formatCount(static_cast<double>(r.evaluated)) + " evaluated, " +
                       formatCount(static_cast<double>(r.pruned)) + " pruned by their bounds, " +
                       formatCount(static_cast<double>(r.overMemory)) +
                       " executions beyond the device's memory"},
       {"Wall time",
        formatDuration(r.wallSeconds * 1e9) + " on " +
            (run.processes > 1 ? std::to_string(run.processes) + " processes x " : "") +
            std::to_string(run.jobs) + (run.jobs == 1 ? " thread" : " threads")},
       {"Status", run.status() == "done" ? style.good(run.status()) : style.bad(run.status())}});
  if (r.designs.empty()) return;
  out << '\n'
      << style.bold("Designs") << " (best first; * on the Pareto front of cost against time)\n";
  Table table;
  table.addColumn("#");
  table.addColumn("", Table::Align::Left);
  table.addColumn("shape", Table::Align::Left);
  table.addColumn("execution", Table::Align::Left);
  table.addColumn("bandwidth (GB/s)", Table::Align::Left);
  table.addColumn("iteration");
  table.addColumn("time to train");
  table.addColumn(o.shapes.costScope == CostScope::System ? "system cost" : "network cost");
  table.addColumn("MFU");
  table.addColumn("memory");
  for (std::size_t k = 0; k < r.designs.size(); ++k) {
    const CodesignDesign& d = r.designs[k];
    table.addRow({std::to_string(k + 1), run.result.onFront(k) ? "*" : "", d.label,
                  d.execution.label(), bandwidthText(d.solution.bandwidth),
                  formatDuration(d.solution.eval.iterationNs),
                  d.throughput.timeToTrainS ? formatLongDuration(*d.throughput.timeToTrainS) : "-",
                  formatUsd(d.costUsd),
                  d.throughput.mfu ? formatFixed(100 * *d.throughput.mfu, 1) + " %" : "-",
                  d.memory.use ? formatFixed(d.memory.use->total() / 1e9, 1) + " GB" : "-"});
  }
  table.print(out, style);
  out << '\n' << style.bold("Where the groups lie") << '\n';
  Table where;
  where.addColumn("#");
  where.addColumn("groups", Table::Align::Left);
  where.addColumn("equivalent shapes", Table::Align::Left);
  for (std::size_t k = 0; k < r.designs.size(); ++k) {
    const CodesignDesign& d = r.designs[k];
    std::string equivalent;
    for (const std::string& e : d.equivalentShapes) {
      equivalent += (equivalent.empty() ? "" : "; ") + e;
    }
    where.addRow({std::to_string(k + 1), placementText(d.network, d.execution.parallelism),
                  equivalent.empty() ? "-" : equivalent});
  }
  where.print(out, style);
}

// The designs listed as the scenarios of one project, the first active.
Project scenariosProject(const CodesignOptions& o, const CodesignResult& r) {
  std::vector<NamedScenario> list;
  Project first;
  for (std::size_t k = 0; k < r.designs.size(); ++k) {
    const CodesignDesign& d = r.designs[k];
    const Project p = designProject(o, d.network, d.execution);
    if (k == 0) first = p;
    list.push_back({"#" + std::to_string(k + 1) + " " + d.label + ", " + d.execution.label(),
                    static_cast<const Scenario&>(p)});
  }
  first.name = "Co-design of " + o.shapes.preset.name + " on " + o.shapes.device.name;
  setScenarios(first, std::move(list), 0);
  return first;
}

// The co-design the flags ask for; `notes` for the user, `jobs` the threads.
CodesignOptions optionsFromFlags(const CodesignArgs& args, std::vector<std::string>& notes,
                                 int& jobs) {
  const PresetChoice choice = resolvePresetFlags(args.preset);
  CodesignOptions options;
  SweepOptions& shapes = options.shapes;
  const int maxDims = static_cast<int>(shapes.costLevels.size());
  if (args.npus.empty())
    throw InputError("--npus is required (NPU counts, e.g. 4096 or 1024,2048)");
  options.npus = parseNpuList(args.npus);
  const DimRange dims = parseDims(args.dims, maxDims);
  jobs = parseJobs(args.jobs);
  options.top = static_cast<int>(parseWholeNumber(args.top, "--top", 1, 100000));
  options.objective = parseCodesignObjective(args.objective);
  if (!args.csv.empty()) requireWritableTarget(args.csv, "--csv");
  if (!args.saveScenarios.empty()) requireWritableTarget(args.saveScenarios, "--save-scenarios");
  for (std::int64_t n : options.npus) checkFactorizations(n, dims, notes);

  shapes.preset = *choice.preset;
  shapes.device = choice.device;
  shapes.generator = choice.generator;
  shapes.minDims = dims.min;
  shapes.maxDims = dims.max;
  shapes.blocks = parseBlocks(args.blocks);
  shapes.costModel = choice.costModel;
  shapes.constraints = args.constraints;
  if (shapes.constraints.empty()) {
    notes.emplace_back("no --constraint given: every shape gets 'total == 500' (GB/s per NPU)");
  }
  shapes.loop = choice.trainingLoop;
  applyModelFlags(args.model, shapes);
  if (shapes.costScope == CostScope::System && !shapes.npuPriceUsd &&
      !(shapes.device.listPriceUsd > 0)) {
    throw InputError("--cost-scope system: the device " + shapes.device.id +
                     " has no list price; give --npu-price USD");
  }
  shapes.jobs = jobs;
  shapes.ignoreMemory = choice.ignoreMemory;
  (void)searchesExecution(args.preset);  // checks --placements
  options.choices = executionChoices(args.preset, choice);
  options.prune = !args.exhaustive;
  checkConstraints(shapes);

  return options;
}

#ifdef LIBRA_WITH_MPI
// Under mpirun every rank reads the same arguments and input, so an error is
// the same on each: rank 0 alone prints, the results as well as the errors.
void silence(Context& context) {
  // A buffer that drops what it gets, stays good (stdout is checked at the
  // end) and outlives the streams (never deleted; reachable from here).
  struct Discard : std::streambuf {
    int overflow(int c) override { return traits_type::not_eof(c); }
  };
  static Discard* const discard = new Discard;
  context.out.rdbuf(discard);
  context.err.rdbuf(discard);
}
#endif

// Why a run found no design.
std::string noDesignReason(const CodesignResult& result) {
  if (result.leastMemory && result.evaluated == 0) {
    return "no execution fits the device's memory; the least needs " +
           result.leastMemory->describe();
  }
  if (!result.firstFailure.empty()) return result.firstFailure;
  std::string why;
  for (const auto& [reason, count] : result.skipReasons) {
    why += (why.empty() ? "" : "; ") + std::to_string(count) + " shapes: " + reason;
  }
  return why;
}

// What stopped the run early, the files asked for, and the results.
void report(const CodesignArgs& args, const Run& run, Context& context) {
  const CodesignResult& result = run.result;
  if (run.timedOut) {
    context.err << "libra: codesign stopped at the time limit (" << args.timeLimit
                << " s): reporting the " << result.designs.size()
                << " designs found so far; they are the best found, not proven the best"
                << std::endl;
  } else if (run.interrupted || result.cancelled) {
    context.err << "libra: codesign interrupted: reporting the " << result.designs.size()
                << " designs found so far" << std::endl;
  }
  if (!args.csv.empty()) writeFileAtomically(args.csv, codesignCsv(run.result));
  if (!args.saveScenarios.empty() && !result.designs.empty()) {
    saveProject(scenariosProject(run.options, result), args.saveScenarios);
  }
  if (args.json) {
    context.out << runJson(run).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                << std::endl;
    return;
  }
  printRun(context.out, Style{context.color}, run);
  if (!args.csv.empty()) {
    context.out << "\nwrote " << args.csv << ": " << result.designs.size() << " rows\n";
  }
  if (!args.saveScenarios.empty() && !result.designs.empty()) {
    context.out << "wrote " << args.saveScenarios << ": " << result.designs.size()
                << " scenarios\n";
  }
}

int runCodesignCommand(const CodesignArgs& args, Context& context) {
#ifdef LIBRA_WITH_MPI
  if (launchedByMpi() && launcherRank() != 0) silence(context);
#endif
  std::vector<std::string> notes;
  int jobs = 1;
  const CodesignOptions options = optionsFromFlags(args, notes, jobs);

  std::optional<double> timeLimit;
  if (!args.timeLimit.empty()) timeLimit = parseLimitFlags({args.timeLimit, ""}).seconds;

  CodesignResult result;
  bool interrupted = false;
  bool timedOut = false;
  int processes = 1;
#ifdef LIBRA_WITH_MPI
  std::optional<MpiSession> mpi;  // to the end of the command: MPI_Finalize
  if (launchedByMpi()) {
    mpi.emplace();
    processes = mpi->size();
  }
#endif
  {
    const InterruptHandler handler;
    ProgressBar bar(context.err, isatty(STDERR_FILENO) == 1, "shapes");
    // Ctrl-C or the time limit stops the search (the progress callback runs on
    // this thread about ten times a second).
    std::atomic<bool> stop{false};
    const auto started = std::chrono::steady_clock::now();
    const auto progress = [&](std::int64_t done, std::int64_t total) {
      bar.update(done, total);
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (timeLimit && elapsed >= *timeLimit && !stop) timedOut = true, stop = true;
      if (gInterrupted.load()) stop = true;
    };
    try {
#ifdef LIBRA_WITH_MPI
      if (mpi) {
        std::optional<CodesignResult> ours = mpi->runCodesign(options, jobs, progress, &stop);
        if (!ours) return kExitSuccess;  // not rank 0: it prints
        result = std::move(*ours);
      } else {
        result = runCodesign(options, progress, &stop);
      }
#else
      result = runCodesign(options, progress, &stop);
#endif
    } catch (const ConstraintError& e) {
      throw InputError(std::string("--constraint: ") + e.what());
    }
    bar.clear();
    interrupted = gInterrupted.load();
  }
  for (const std::string& note : notes) context.err << "note: " << messageLine(note) << '\n';
  context.err.flush();
  Run run{options, result, interrupted, jobs};
  run.timedOut = timedOut && !interrupted;
  run.processes = processes;
  report(args, run, context);
  if (interrupted || (result.cancelled && !run.timedOut)) return kExitInterrupted;
  if (result.designs.empty()) {
    context.err << "libra: error: no design found (" << messageLine(noDesignReason(result)) << ")"
                << std::endl;
    return kExitNoSolution;
  }
  return kExitSuccess;
}

}  // namespace

void registerCodesign(CLI::App& app, Context& context) {
  auto args = std::make_shared<CodesignArgs>();
  CLI::App* cmd = addCommand(
      app, context, "codesign",
      "Find the best network shape and the best way to run a workload on it, and the Pareto "
      "front of cost against time to train");
  if (cmd == nullptr) return;
  cmd->add_option("--npus", args->npus, "NPU counts, e.g. 4096 or 1024,2048")
      ->required()
      ->type_name("N[,N...]");
  cmd->add_option("--dims", args->dims, "Dimension counts, MIN..MAX or one count (default 2..4)")
      ->type_name("MIN..MAX");
  cmd->add_option("--blocks", args->blocks,
                  "Building blocks to try per dimension (default Ring,FullyConnected,Switch)")
      ->type_name("LIST");
  cmd->add_option("--constraint", args->constraints,
                  "Constraint for every design (repeatable; default 'total == 500')")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_option("--objective", args->objective, "time (default) or perf-per-cost")
      ->type_name("NAME");
  cmd->add_option("--jobs", args->jobs, "Worker threads (default: all cores)")->type_name("N");
  cmd->add_option("--top", args->top, "Designs listed besides the Pareto front (default 10)")
      ->type_name("N");
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print one JSON object");
  CLI::Option* csv =
      cmd->add_option("--csv", args->csv, "Write one CSV row per design listed to FILE")
          ->type_name("FILE");
  csv->excludes(json);
  cmd->add_option("--save-scenarios", args->saveScenarios,
                  "Write the designs listed as the scenarios of one project")
      ->type_name("FILE");
  cmd->add_flag("--exhaustive", args->exhaustive,
                "Evaluate every design (no pruning): the whole Pareto front, slower");
  cmd->add_option("--time-limit", args->timeLimit,
                  "Stop after this many seconds and report the best designs found so far "
                  "(\"status\": \"time limit\"; default: none)")
      ->type_name("SECONDS");
  args->preset.placements = "all";
  addPresetFlags(cmd, args->preset, /*withDataParallel=*/true);
  cmd->add_option("--placements", args->preset.placements,
                  "all (default): every placement of the groups; auto: the automatic mapping")
      ->type_name("all|auto");
  addModelFlags(cmd, args->model);
  cmd->footer(std::string(kCodesignFooter) + "\n\n" + kPresetHelp + "\n\n" + kModelHelp + "\n\n" +
              kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runCodesignCommand(*args, context); });
}

}  // namespace libra::cli
