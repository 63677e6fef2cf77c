// `libra export-astra-sim`: the optimum (or a given design) as ASTRA-sim 2 input
// files. The engine (astra_export.hpp) makes the contents; this only checks the
// flags and the directory and writes the files.
#include <cmath>
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "libra/analysis.hpp"
#include "libra/astra_export.hpp"
#include "libra/error.hpp"
#include "libra/project_io.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

constexpr const char* kExportFooter =
    "Writes the design as input for ASTRA-sim 2's analytical network backend\n"
    "(congestion-unaware) into DIR:\n"
    "  network.yml          topology, NPUs, bandwidth of one link (ASTRA-sim GB/s, 1 GB = 2^30 B)\n"
    "                       and latency (ns) per dimension\n"
    "  system.json          chunks per collective (the count nearest the model's that divides\n"
    "                       every collective size), one algorithm per dimension\n"
    "  remote_memory.json   no remote memory\n"
    "  iteration/NAME.json  each workload's training iteration as a node list (collectives\n"
    "                       with the dimensions their groups use, compute in whole us), and\n"
    "  iteration/chakra_traces.py  which turns one into Chakra traces (one .et per NPU)\n"
    "  workload/NAME.txt    each workload in the ASTRA-sim 1.0 text format (for Chakra's text\n"
    "                       converter)\n"
    "  README.md            the design, the times this tool predicts at the chunk count\n"
    "                       written, and the commands that make the traces and run them\n"
    "Without --bandwidth the design is the optimum of the project's objective under its\n"
    "constraints (with --constraint, --objective, --no-project-constraints and --solver as for\n"
    "solve); with it, the given bandwidths. DIR is written as a whole: into a hidden folder\n"
    "beside it, renamed into place once every file is written, so a failure leaves nothing.\n"
    "DIR must be new or empty; --force replaces an earlier export there as a whole (a folder\n"
    "holding the .libra-export file this command writes), never any other folder, and never\n"
    "through a symbolic link.\n"
    "What the files cannot express is printed as a warning on stderr and noted in README.md.\n"
    "\n"
    "Examples:\n"
    "  libra export-astra-sim gpt3.json -o astra/\n"
    "  libra export-astra-sim gpt3.json --bandwidth 400,300,200,100 --chunks 16 -o astra/ --force\n"
    "\n"
    "Exit codes: 0 written; 1 infeasible or unbounded (nothing is written); 2 bad usage or bad\n"
    "input (the message names the file or flag).";

struct ExportArgs {
  std::string project;
  std::string scenario;
  std::string bandwidth;
  std::string output;
  bool force = false;
  std::string objective;
  std::vector<std::string> constraints;
  bool noProjectConstraints = false;
  std::string solver = "native";
  ModelFlags model;
  bool json = false;
};

// Refuses -o before anything is solved (the engine checks again when it writes);
// the hint says what --force does about the folder there.
void checkOutputDirectory(const ExportArgs& args) {
  ExportDirectory target{};
  try {
    target = inspectExportDirectory(args.output);
    (void)checkExportDirectory(args.output, args.force);
  } catch (const InputError& e) {
    const char* hint = target == ExportDirectory::NotEmpty
                           ? " (--force replaces only an earlier export)"
                       : target == ExportDirectory::EarlierExport ? "; --force replaces it"
                                                                  : "";
    throw InputError(std::string("-o ") + e.what() + hint);
  }
}

int runExport(const ExportArgs& args, Context& context) {
  AnalysisOptions options;
  options.backend = parseBackendFlag(args.solver);
  if (!args.objective.empty()) options.objective = parseObjectiveFlag(args.objective);
  if (!args.bandwidth.empty()) options.design = parseBandwidthList(args.bandwidth);
  options.extraConstraints = args.constraints;
  options.projectConstraints = !args.noProjectConstraints;
  options.model = parseModelFlags(args.model);
  options.sensitivity = false;  // the export holds the design, not its rates
  const Project project = loadProjectFile(args.project, args.scenario);
  checkProblemFor(project, args.project, options);
  checkOutputDirectory(args);

  const Analysis analysis = analyze(project, options);
  if (!analysis.ok()) {
    return reportNoSolution(context.out, context.err, statusWord(analysis), analysis.message,
                            analysisJson(analysis), args.json);
  }
  AstraExport exported;
  try {
    exported = exportAstraSim(project, analysis, args.project);
  } catch (const InputError& e) {
    const std::string message = e.what();
    // A design given on the command line is the flag's fault; an optimum is the project's.
    throw InputError((options.design ? "--" : args.project + ": the optimum's ") + message);
  }
  try {
    writeAstraExport(exported, args.output, args.force);
  } catch (const InputError& e) {
    throw InputError(std::string("-o ") + e.what());
  }

  for (const std::string& w : exported.warnings) context.err << "warning: " << w << '\n';
  if (args.json) {
    Json j;
    j["status"] = "written";
    j["output"] = args.output;
    j["design"] = statusWord(analysis);
    Json files = Json::array();
    for (const AstraExportFile& f : exported.files) files.push_back(f.path);
    j["files"] = files;
    j["bandwidth_gbps"] = analysis.design.bandwidth;
    j["latency_ns"] = analysis.latencyNs;
    j["chunks"] = analysis.model.collectives.chunks.toString();
    j["preferred_dataset_splits"] = exported.datasetSplits;
    const double t = analysis.design.eval.iterationNs;
    j["iteration_time_ns"] = std::isfinite(t) ? Json(t) : Json(nullptr);
    j["warnings"] = exported.warnings;
    context.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  } else {
    std::string names;
    for (const AstraExportFile& f : exported.files) names += (names.empty() ? "" : ", ") + f.path;
    context.out << "wrote " << exported.files.size() << " files to " << args.output << ": " << names
                << " (" << statusWord(analysis) << " design, " << exported.datasetSplits
                << " chunks per collective)\n";
  }
  return kExitSuccess;
}

}  // namespace

void registerExportAstraSim(CLI::App& app, Context& context) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = addCommand(app, context, "export-astra-sim",
                             "Write a design as ASTRA-sim 2 input (network, system, workload)");
  if (cmd == nullptr) return;
  cmd->add_option("PROJECT", args->project, "Project file (JSON)")->required()->type_name("FILE");
  addScenarioFlag(cmd, args->scenario);
  cmd->add_option("--bandwidth", args->bandwidth,
                  "Export these bandwidths (GB/s per NPU per dimension, innermost first, "
                  "comma-separated) instead of the optimum")
      ->type_name("B0,B1,...");
  cmd->add_option("-o,--output", args->output, "Directory to write into (created if missing)")
      ->required()
      ->type_name("DIR");
  cmd->add_flag("--force", args->force,
                "Replace an earlier export in DIR as a whole (only a folder this command wrote)");
  cmd->add_option("--objective", args->objective,
                  "performance or perf-per-cost; default: the project's")
      ->type_name("NAME");
  cmd->add_option("--constraint", args->constraints,
                  "Extra linear constraint for the optimum (repeatable)")
      ->type_name("EXPR")
      ->allow_extra_args(false);
  cmd->add_flag("--no-project-constraints", args->noProjectConstraints,
                "Ignore the project's constraints: only the --constraint expressions apply");
  cmd->add_option("--solver", args->solver, "Backend: native (default) or ipopt")
      ->type_name("NAME");
  addModelFlags(cmd, args->model);
  cmd->add_flag("--json", args->json, "Print what was written as one JSON object");
  cmd->footer(std::string(kExportFooter) + "\n\n" + kModelHelp);
  cmd->callback([args, &context] { context.exitCode = runExport(*args, context); });
}

}  // namespace libra::cli
