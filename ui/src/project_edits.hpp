// Edits of a project value that keep it consistent: the dimension list and every
// workload's communicator change together, the budget constraints are found among
// the project's constraint expressions. Pure functions over libra::Project, so the
// undo commands and the tests share them.
#pragma once

#include <libra/presets.hpp>
#include <libra/project.hpp>
#include <optional>
#include <string>
#include <vector>

namespace libra::studio {

// The budget panel's view of Project::constraints: `total == B` is the bandwidth
// budget per NPU, `cost <= C` the cost budget; every other expression is "extra".
struct BudgetConstraints {
  std::optional<double> totalBandwidth;
  std::optional<double> costBudget;
  std::vector<std::string> extra;

  bool operator==(const BudgetConstraints&) const = default;
};
BudgetConstraints splitConstraints(const std::vector<std::string>& constraints);
// Budget lines first (total, then cost), then the extra expressions in order.
std::vector<std::string> joinConstraints(const BudgetConstraints& budget);
// The project's constraints without the cost budget line (the Pareto front spans the
// whole cost range; the budget is drawn on it).
std::vector<std::string> constraintsWithoutCostBudget(const std::vector<std::string>& constraints);

void setTotalBandwidth(Project& project, std::optional<double> gbps);
void setCostBudget(Project& project, std::optional<double> usd);
void setExtraConstraints(Project& project, std::vector<std::string> extra);

// Dimension list edits. Communicators and per-phase group overrides gain a 1
// (unused) for a new dimension and lose the entry of a removed one; a workload
// generated from a preset is then generated again for the new network (keeping its
// TP/EP/PP, deriving DP) when its parallelization still fits.
void insertDimension(Project& project, int index);
void removeDimension(Project& project, int index);
void moveDimension(Project& project, int from, int to);
void setDimensionCount(Project& project, int count);
// Changes n_d and keeps each workload mapped: a group that spanned the whole
// dimension keeps spanning it, a smaller one is clamped to the new size.
void setDimensionNpus(Project& project, int index, int npus);
// Renames a dimension and the `bw[old]` references in the constraints.
void renameDimension(Project& project, int index, const std::string& name);

// View state kept in Project::uiState (JSON text owned by the GUI):
// {"pareto_points": 50}. Unknown keys are kept.
inline constexpr int kDefaultParetoPoints = 50;
int paretoPointsOf(const Project& project);
void setParetoPoints(Project& project, int points);

// What a workload was generated from, read back from Workload::origin.
struct PresetChoice {
  std::string preset;
  std::string device;
  Parallelism parallelism;
  GeneratorOptions generator;
};
std::optional<PresetChoice> presetChoiceOf(const Workload& workload);
// Regenerates a preset workload for `network` (after the network changed), with the
// data-parallel degree derived again. Returns false and leaves it unchanged when
// the workload has no origin or its parallelization no longer fits.
bool regenerateForNetwork(Workload& workload, const Network& network, std::string* error = nullptr);

// A name not used by any dimension: "dim4", "dim5", ...
std::string freshDimensionName(const Network& network);

}  // namespace libra::studio
