// Edits of a project that keep it consistent and keep the meaning of its
// constraints: the dimension list, every workload's communicator and the `bw[...]`
// references of the constraint expressions change together; the budget lines are
// found among the constraints by parsing them. Pure functions over Project, shared
// by the GUI's undo commands, the command line and the tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libra/constraints.hpp"
#include "libra/project.hpp"

namespace libra {

// What an edit did beyond what was asked, in words for the user.
struct EditReport {
  // Constraints the edit had to remove (as written) because they referred to a
  // dimension that is gone.
  std::vector<std::string> removedConstraints;
  // One sentence per such consequence, e.g. "removed constraint 'bw[2] <= 50': it
  // referred to dimension 'pod', which was removed".
  std::vector<std::string> notes;

  bool empty() const { return notes.empty(); }
  void append(const EditReport& other);
};

// ---------------------------------------------------------------------------------
// The dimension list. Indexes out of range leave the project unchanged.
//
// Communicators and per-phase group overrides gain a 1 (unused) for a new dimension
// and lose the entry of a removed one; a workload generated from a preset is then
// generated again for the new network (keeping its TP/EP/PP, deriving DP) when its
// parallelization still fits. Every constraint keeps its meaning: `bw[i]` follows
// its dimension to its new index, `bw[name]` keeps the name, `total` stays the sum
// of all bandwidths (a new dimension is in it), `cost` the network's cost. A
// constraint that refers to a removed dimension is removed and reported.

// Inserts a Ring of 2 NPUs named freshDimensionName() at `index` (clamped to
// 0..size), with its neighbour's cost level.
EditReport insertDimension(Project& project, int index);
EditReport removeDimension(Project& project, int index);
// Takes the dimension at `from` out and puts it back at `to`.
EditReport moveDimension(Project& project, int from, int to);
// Adds dimensions at the end, or removes the outermost ones, until there are
// `count` (at least 1).
EditReport setDimensionCount(Project& project, int count);
// Changes n_d and keeps each workload mapped: a group that spanned the whole
// dimension keeps spanning it, a smaller one is clamped to the new size.
// Constraints do not change (their coefficients are per-NPU bandwidths).
EditReport setDimensionNpus(Project& project, int index, int npus);
// Renames a dimension; `bw[old]` references become `bw[name]`.
EditReport renameDimension(Project& project, int index, const std::string& name);

// Rewrites every constraint through `mapping` (see rewriteDimensionReferences);
// removes and reports those that refer to a removed dimension. Expressions that
// do not parse are kept as they are (validateProject reports them).
EditReport remapConstraints(std::vector<std::string>& constraints, const DimensionMapping& mapping);

// A name not used by any dimension: "dim4", "dim5", ...
std::string freshDimensionName(const Network& network);

// ---------------------------------------------------------------------------------
// Budgets

// The budget view of a constraint list: the first expression that says
// `total == B` (however written: `500 == total`, `2*total == 1000`) is the
// bandwidth budget per NPU, the first that says `cost <= C` (or `C >= cost`) the
// cost budget; every other expression is "extra", in order.
struct BudgetConstraints {
  std::optional<double> totalBandwidth;
  std::optional<double> costBudget;
  std::vector<std::string> extra;

  bool operator==(const BudgetConstraints&) const = default;
};
BudgetConstraints splitConstraints(const std::vector<std::string>& constraints);
// B when `expression` says total == B, C when it says cost <= C; nullopt otherwise
// (also when it does not parse).
std::optional<double> totalBudgetOf(std::string_view expression);
std::optional<double> costBudgetOf(std::string_view expression);

// Sets the budget by replacing its expression in place (unchanged when it already
// says that value), or adds it when there is none: the total first in the list,
// the cost after the total. nullopt removes it. Numbers are written in the
// shortest form that reads back as the same double. Throws InputError for a value
// that is not finite.
void setTotalBandwidth(Project& project, std::optional<double> gbps);
void setCostBudget(Project& project, std::optional<double> usd);
// Replaces the extra expressions: the budget expressions come first (as written,
// in their order), then `extra`.
void setExtraConstraints(Project& project, std::vector<std::string> extra);
// The constraints without the cost budget's expression (the Pareto front spans the
// whole cost range; the budget is drawn on it).
std::vector<std::string> constraintsWithoutCostBudget(const std::vector<std::string>& constraints);

}  // namespace libra
