// `libra new`: a project file whose workload is generated from a model preset for
// a given network, device and parallelism.
#include <unistd.h>

#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/error.hpp"
#include "libra/libra_format.hpp"
#include "libra/training.hpp"
#include "output.hpp"
#include "preset_options.hpp"

namespace libra::cli {

namespace {

constexpr const char* kDefaultBudget = "total == 500";

constexpr const char* kNewFooter =
    "Generates the workload of one NPU for one training iteration from a preset (layers,\n"
    "collective sizes in bytes, compute times in ns) on the given network and writes a\n"
    "project file that solve, evaluate, pareto and libra-studio open. The project records\n"
    "the preset, device and parallelism it was made from.\n"
    "  --network     LIBRA yml (Topology / NpusCount / CostDimension) or SC22 json;\n"
    "                dimensions innermost first, names from the cost levels (InterPod -> pod)\n"
    "  --device      default h100 (NVIDIA H100 SXM5, 989.4 TFLOP/s dense BF16; matmuls at\n"
    "                80.3 % of it, a transformer step at 0.77 of that)\n"
    "  --constraint  bandwidth constraints stored in the project (GB/s per NPU, repeatable);\n"
    "                default 'total == 500' (an SC22 json network's total-bandwidth if it\n"
    "                has one), and a note on stderr says so\n"
    "  --cost-model  prices in $ per GB/s per NPU by cost level; default: the LIBRA paper's\n"
    "                reference unit prices\n"
    "  --global-batch samples (sequences) per iteration, default the preset's published\n"
    "                batch; --micro-batch / --micro-batches split it (default: derived)\n"
    "  --train-tokens the token budget for the time to train (default: the preset's)\n"
    "A parallelism that does not fit the network (a degree that does not divide the NPUs, or\n"
    "that cannot be formed from the dimensions) is an error naming the degree and dimension;\n"
    "so is a batch that does not split (a global batch that DP x EP does not divide). A\n"
    "design whose memory per NPU exceeds the device's is refused with the numbers unless\n"
    "--ignore-memory.\n"
    "\n"
    "Examples:\n"
    "  libra new --preset gpt3-175b --network 3d_network.yml -o gpt3.json\n"
    "  libra new --preset llama3-70b --network 4d.yml --tp 8 --pp 4 --device b200 \\\n"
    "            --constraint 'total == 1000' --constraint 'bw[pod] <= 100' -o llama.json\n"
    "  libra new --preset mixtral-8x22b --network 4d.yml --tp 4 --ep 8 --zero3 -o moe.json\n"
    "\n"
    "Exit codes: 0 written; 2 bad usage or bad input (unknown preset or device, unreadable\n"
    "network, a parallelism or batch that does not fit, a design beyond the device's memory,\n"
    "a bad constraint).";

struct NewArgs {
  PresetFlags preset;
  std::string network;
  std::vector<std::string> constraints;
  std::string name;
  std::string objective;
  std::string output;
  bool json = false;
};

// Without --cost-model a network level the reference prices do not cover would
// fail later with a message about "the cost model"; say which file to give.
void checkPrices(const Network& network, const CostModel& model, const NewArgs& args) {
  try {
    (void)unitPrices(network, model);
  } catch (const InputError& e) {
    if (!args.preset.costModel.empty()) {
      throw InputError("--cost-model '" + args.preset.costModel + "': " + e.what());
    }
    throw InputError("--network '" + args.network + "': " + e.what() +
                     " (the reference prices cover InterChiplet, InterPackage, InterNode, "
                     "InterPod, Tile, Package, Node and Pod; give --cost-model FILE)");
  }
}

void printWritten(Context& context, const NewArgs& args, const Project& project,
                  const PresetChoice& choice) {
  const Parallelism resolved = resolveDegrees(choice.parallelism, project.network.npuCount());
  const TrainingFacts facts = trainingFacts(project);
  Json extra;
  extra["preset"] = choice.preset->id;
  extra["device"] = choice.device.id;
  extra["parallelism"] = {{"tp", resolved.tp},
                          {"cp", resolved.cp},
                          {"ep", resolved.ep},
                          {"expert_tp", resolved.etp()},
                          {"pp", resolved.pp},
                          {"dp", resolved.dp},
                          {"attention", std::string(toString(resolved.attention))},
                          {"moe_dispatcher", std::string(toString(resolved.moeDispatcher))},
                          {"moe_routing", std::string(toString(resolved.moeRouting))},
                          {"label", resolved.label()}};
  extra.update(trainingSummaryJson(facts));
  std::string detail =
      choice.preset->id + " on " + choice.device.id + " (" + resolved.label() + ")";
  if (facts.batch) detail += ", " + batchText(*facts.batch);
  if (facts.memory.use) {
    detail += ", " + formatFixed(facts.memory.use->total() / 1e9, 1) +
              (facts.memory.capacityBytes > 0
                   ? " of " + formatFixed(facts.memory.capacityBytes / 1e9, 1) + " GB"
                   : std::string(" GB")) +
              " per NPU";
  }
  printWrittenProject(context.out, args.output, project, args.json, extra, detail);
}

// Searches the executions the flags leave open (execution.hpp) and sets the
// fastest that fits into `choice` and `options`; a note says which, of how many.
void chooseExecution(Context& context, const NewArgs& args, const Network& network,
                     ProjectOptions& options, PresetChoice& choice,
                     std::vector<std::string>& notes) {
  // A constraint that does not compile is the user's mistake, not the search's:
  // said before it starts, as makeProject's check would.
  Problem dims;
  dims.dimNames = network.names();
  dims.costPerBandwidth = costPerBandwidth(network, options.costModel);
  for (const std::string& c : options.constraints) {
    try {
      (void)dims.compile(c);
    } catch (const InputError& e) {
      throw InputError(std::string("--constraint: ") + e.what());
    }
  }
  ExecutionSearchOptions so;
  so.choices = executionChoices(args.preset, choice);
  so.device = choice.device;
  so.generator = choice.generator;
  so.project = options;
  so.ignoreMemory = choice.ignoreMemory;
  so.keep = 1;
  ProgressBar bar(context.err, isatty(STDERR_FILENO) == 1, "executions");
  so.progress = [&](std::int64_t done, std::int64_t total) { bar.update(done, total); };
  const ExecutionSearch found = searchExecutions(*choice.preset, network, so);
  bar.clear();
  const std::string what = choice.preset->id + " on " + choice.device.id;
  if (found.designs.empty()) {
    if (found.leastMemory) {
      throw InputError("no execution of " + what + " on this network fits the device's memory (" +
                       std::to_string(found.overMemory) + " tried; the least needs " +
                       found.leastMemory->describe() +
                       "); more NPUs, a device with more memory, a smaller --global-batch or "
                       "--ignore-memory");
    }
    throw InputError("no execution of " + what + " runs on this network" +
                     (found.firstFailure.empty() ? std::string() : ": " + found.firstFailure));
  }
  const ExecutionDesign& best = found.designs.front();
  choice.parallelism = best.execution.parallelism;
  if (args.preset.placements != "all") {
    choice.parallelism.clearGroups();
  }
  options.generator = generatorOf(best.execution, choice.generator);
  notes.push_back("chose " + best.execution.label() + ": the fastest of " +
                  std::to_string(found.evaluated) + " executions solved (" +
                  std::to_string(found.pruned) + " pruned by their compute time, " +
                  std::to_string(found.overMemory) + " beyond the device's memory)" +
                  (args.preset.placements == "all" ? ", every placement of the groups"
                                                   : ", groups laid by the automatic mapping") +
                  "; --execution given takes the flags and the preset's defaults as they are");
}

int runNew(const NewArgs& args, Context& context) {
  PresetChoice choice = resolvePresetFlags(args.preset);
  std::optional<Objective> objective;
  if (!args.objective.empty()) objective = parseObjectiveFlag(args.objective);
  requireInputFile(args.network, "--network");
  NetworkFile network;
  try {
    network = readNetworkFileWithBudget(args.network);
  } catch (const InputError& e) {
    const std::string message = e.what();
    throw InputError(message.find(args.network) != std::string::npos
                         ? message
                         : "--network '" + args.network + "': " + message);
  }
  checkPrices(network.network, choice.costModel, args);
  requireWritableTarget(args.output);

  ProjectOptions options;
  options.name = args.name;
  options.trainingLoop = choice.trainingLoop;
  options.costModel = choice.costModel;
  options.objective = objective.value_or(Objective::Performance);
  options.generator = choice.generator;
  options.constraints.clear();  // checked below with messages that name the flag

  std::vector<std::string> notes;
  std::vector<std::string> constraints = args.constraints;
  if (constraints.empty()) {
    if (network.totalBandwidth) {
      constraints.push_back("total == " + formatExact(*network.totalBandwidth));
      notes.push_back("no --constraint given: added '" + constraints.back() +
                      "' from the network file's total-bandwidth (GB/s per NPU)");
    } else {
      constraints.emplace_back(kDefaultBudget);
      notes.push_back(std::string("no --constraint given: added '") + kDefaultBudget +
                      "' (GB/s per NPU, the LIBRA paper's budget)");
    }
  }

  // The execution: searched (the default), or as the flags and the preset give it.
  if (searchesExecution(args.preset)) {
    options.constraints = constraints;
    chooseExecution(context, args, network.network, options, choice, notes);
    options.constraints.clear();
  }

  // Throws the engine's message for a parallelism that does not fit (it names the
  // degree and the dimension) and for invalid generator options.
  Project project =
      makeProject(*choice.preset, choice.parallelism, choice.device, network.network, options);
  (void)buildProblemFor(project, "new project", constraints);
  project.constraints = std::move(constraints);
  const TrainingFacts facts = trainingFacts(project);
  if (!facts.memory.fits()) {
    const Parallelism resolved = resolveDegrees(choice.parallelism, project.network.npuCount());
    const std::string what =
        choice.preset->id + " on " + choice.device.id + " (" + resolved.label() + ")";
    if (!choice.ignoreMemory) refuseMemory(what, facts.memory);
    notes.push_back(
        what + " does not fit the device's memory (--ignore-memory): " + facts.memory.describe());
  }

  saveProjectFile(project, args.output);
  for (const std::string& note : notes) context.err << "note: " << messageLine(note) << '\n';
  context.err.flush();
  printWritten(context, args, project, choice);
  return kExitSuccess;
}

}  // namespace

void registerNew(CLI::App& app, Context& context) {
  auto args = std::make_shared<NewArgs>();
  CLI::App* cmd = addCommand(app, context, "new",
                             "Write a project file with a workload generated from a model preset");
  if (cmd == nullptr) return;
  cmd->add_option("--network", args->network, "Network file (LIBRA .yml or SC22 .json)")
      ->required()
      ->type_name("FILE");
  addPresetFlags(cmd, args->preset, /*withDataParallel=*/true);
  addExecutionFlags(cmd, args->preset);
  cmd->add_option("--constraint", args->constraints,
                  "Constraint stored in the project (repeatable; default 'total == 500')")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_option(
         "--name", args->name,
         "Project name (default: '<preset> on a <K>D network (<shape>)', which then follows\n"
         "edits in libra-studio)")
      ->type_name("TEXT");
  cmd->add_option("--objective", args->objective,
                  "performance (default) or perf-per-cost, stored in the project")
      ->type_name("NAME");
  cmd->add_option("-o,--output", args->output, "Project file to write (JSON)")
      ->required()
      ->type_name("PROJECT.json");
  cmd->add_flag("--json", args->json, "Print a JSON summary of what was written");
  cmd->footer(std::string(kNewFooter) + "\n\n" + kPresetHelp + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runNew(*args, context); });
}

}  // namespace libra::cli
