// Helpers the commands share: reading projects, building problems with errors
// that name their source, parsing flag values strictly.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "libra/analysis.hpp"
#include "libra/project.hpp"
#include "libra/solver.hpp"

namespace libra::cli {

// Loads a project file. Every failure is an InputError whose message names the file.
Project loadProjectFile(const std::string& path);
// The same, with scenario `scenario` made the active one unless it is empty
// (--scenario); a name the file does not have is an InputError that lists the
// names it has.
Project loadProjectFile(const std::string& path, const std::string& scenario);
// --scenario NAME on the commands that read one project.
void addScenarioFlag(CLI::App* command, std::string& scenario);

// Checks that `path` names a readable regular file; `flag` (e.g. "--network")
// names where it came from in the message.
void requireInputFile(const std::string& path, const std::string& flag);

// Checks, before any work, that `path` can be the output file of `flag`: not
// empty, not a directory, in a directory that exists.
void requireWritableTarget(const std::string& path, const std::string& flag = "-o");

// saveProject (atomic) with a failure message that names the -o file.
void saveProjectFile(const Project& project, const std::string& path);

// buildProblem with messages that say where the bad part came from: `source`
// (the project file) for the project's own content and constraints,
// --constraint for the extra ones.
Problem buildProblemFor(const Project& project, const std::string& source,
                        std::span<const std::string> extraConstraints);
// The same check for what analyze(project, options) will build, so that bad input
// is reported with its source before any solving.
void checkProblemFor(const Project& project, const std::string& source,
                     const AnalysisOptions& options);

Objective parseObjectiveFlag(const std::string& text, const std::string& flag = "--objective");
Backend parseBackendFlag(const std::string& text);
TrainingLoop parseTrainingLoopFlag(const std::string& text);

// --chunks and --latency (spec/cli.md "Model options"), --cost-scope and
// --npu-price, on evaluate, solve, pareto and sweep; they override the
// project's settings for this run.
struct ModelFlags {
  std::string chunks;
  std::string latency;
  std::string endpointDelay;
  std::string costScope;
  std::optional<double> npuPrice;
};
void addModelFlags(CLI::App* command, ModelFlags& flags);
// Throws InputError naming the flag when a value is malformed.
ModelOverrides parseModelFlags(const ModelFlags& flags);
// The help paragraph on the model options.
extern const char* const kModelHelp;

// --time-limit SECONDS and --max-iterations N on solve and pareto: the limits
// of each solver run (SolveLimits; defaults 60 s, and the backend's count).
struct LimitFlags {
  std::string timeLimit;
  std::string maxIterations;
};
void addLimitFlags(CLI::App* command, LimitFlags& flags);
// Throws InputError naming the flag when a value is malformed or out of range.
SolveLimits parseLimitFlags(const LimitFlags& flags);

// "B0,B1,..." -> numbers, strictly: every item must be a whole number (no
// trailing text, no empty items). Range and length are checked by
// Problem::checkBandwidth.
std::vector<double> parseBandwidthList(const std::string& text);

// `[#####-----] 1234/4686 shapes, 12 s left`, redrawn in place on stderr (when
// `enabled`, i.e. on a terminal); `unit` names what is counted. update() is
// called from the thread that owns the stream.
class ProgressBar {
 public:
  ProgressBar(std::ostream& err, bool enabled, std::string unit);
  ~ProgressBar() { clear(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(std::int64_t done, std::int64_t total);
  void clear();

 private:
  std::ostream& err_;
  bool enabled_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_;
  bool drawn_ = false;
};

}  // namespace libra::cli
