// `libra import-libra`: a project file from the reference LIBRA / ASTRA-sim 1.0 inputs.
#include <algorithm>
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/error.hpp"
#include "libra/libra_format.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

constexpr const char* kImportFooter =
    "Reads the reference LIBRA inputs (yml network, cost model and communicator, workload txt)\n"
    "or the earlier ASTRA-sim 1.0 / SC22 ones (json network and cost model, workload txt with\n"
    "two header lines) and writes one project file.\n"
    "  --network        Topology / NpusCount / CostDimension (yml) or npus-count / topology /\n"
    "                   network-type (json); dimensions innermost first\n"
    "  --workload       one layer per line: compute times in ns, collective sizes in bytes\n"
    "  --communicator   group size per dimension for Forward / InputGrad / WeightGrad; without\n"
    "                   it, tensor parallel from the inside (degree from the workload header)\n"
    "                   and data parallel over the remaining NPUs from the outside\n"
    "  --cost-model     Link / Switch / Nic prices per level in $ per GB/s; default: the\n"
    "                   reference unit prices\n"
    "  --constraint     replaces the default constraint 'total == 500' (GB/s); repeatable\n"
    "\n"
    "Examples:\n"
    "  libra import-libra --network 3d_network.yml --workload GPT_3.txt \\\n"
    "                     --communicator GPT_3_3d.yml --cost-model 3d_cost_model.yml -o gpt3.json\n"
    "  libra import-libra --network 4d.json --cost-model cost.json \\\n"
    "                     --workload transformer_175B.txt --constraint 'total == 1000' -o "
    "t175.json\n"
    "\n"
    "Exit codes: 0 written; 2 bad usage or bad input (the message names the file and line).";

struct ImportArgs {
  std::string network;
  std::string workload;
  std::string communicator;
  std::string costModel;
  std::string trainingLoop;
  std::string name;
  std::string objective;
  std::vector<std::string> constraints;
  std::string output;
  bool json = false;
};

int runImport(const ImportArgs& args, Context& context) {
  ImportOptions options;
  requireInputFile(args.network, "--network");
  options.network = args.network;
  requireInputFile(args.workload, "--workload");
  options.workload = args.workload;
  if (!args.communicator.empty()) {
    requireInputFile(args.communicator, "--communicator");
    options.communicator = args.communicator;
  }
  if (!args.costModel.empty()) {
    requireInputFile(args.costModel, "--cost-model");
    options.costModel = args.costModel;
  }
  if (!args.trainingLoop.empty()) options.trainingLoop = parseTrainingLoopFlag(args.trainingLoop);
  if (!args.name.empty()) options.name = args.name;
  std::optional<Objective> objective;
  if (!args.objective.empty()) objective = parseObjectiveFlag(args.objective);
  requireWritableTarget(args.output);

  std::vector<std::string> notes;
  Project project = importLibra(options, &notes);
  if (objective) project.objective = *objective;
  if (!args.constraints.empty()) {
    // The user's constraints replace the default budget; a note about a
    // constraint that is no longer there would mislead.
    std::erase_if(notes, [&](const std::string& note) {
      return std::any_of(
          project.constraints.begin(), project.constraints.end(),
          [&](const std::string& c) { return note.find("'" + c + "'") != std::string::npos; });
    });
    project.constraints.clear();
  }
  // Checks the whole project, and the user's constraints against its dimension
  // names, before anything is written.
  (void)buildProblemFor(project, "imported project", args.constraints);
  if (!args.constraints.empty()) project.constraints = args.constraints;

  saveProjectFile(project, args.output);

  for (const std::string& note : notes) context.err << "note: " << messageLine(note) << '\n';
  context.err.flush();

  printWrittenProject(context.out, args.output, project, args.json);
  return kExitSuccess;
}

}  // namespace

void registerImportLibra(CLI::App& app, Context& context) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = addCommand(app, context, "import-libra",
                             "Write a project file from LIBRA / ASTRA-sim 1.0 input files");
  if (cmd == nullptr) return;
  cmd->add_option("--network", args->network, "Network file (.yml or .json)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--workload", args->workload, "Workload file (.txt)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--communicator", args->communicator, "Communicator file (.yml)")
      ->type_name("FILE");
  cmd->add_option("--cost-model", args->costModel, "Cost model file (.yml or .json)")
      ->type_name("FILE");
  cmd->add_option("--training-loop", args->trainingLoop,
                  "no-overlap (default), recompute or overlap")
      ->type_name("NAME");
  cmd->add_option("--name", args->name, "Project name (default: from the input files)")
      ->type_name("TEXT");
  cmd->add_option("--objective", args->objective,
                  "performance (default) or perf-per-cost, stored in the project")
      ->type_name("NAME");
  cmd->add_option("--constraint", args->constraints,
                  "Constraint stored in the project, e.g. 'total == 500' (repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", args->output, "Project file to write (JSON)")
      ->required()
      ->type_name("PROJECT.json");
  cmd->add_flag("--json", args->json, "Print a JSON summary of what was written");
  cmd->footer(std::string(kImportFooter) + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runImport(*args, context); });
}

}  // namespace libra::cli
