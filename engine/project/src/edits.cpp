#include "libra/edits.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "text.hpp"

namespace libra {

void EditReport::append(const EditReport& other) {
  removedConstraints.insert(removedConstraints.end(), other.removedConstraints.begin(),
                            other.removedConstraints.end());
  notes.insert(notes.end(), other.notes.begin(), other.notes.end());
}

namespace {

// Calls `onGroups` on every list of group sizes (communicator and phases) and
// `onStrides` on every non-empty list of strides, each indexed by dimension.
template <typename G, typename S>
void forEachGroupAndStrideList(Project& project, G&& onGroups, S&& onStrides) {
  for (Workload& w : project.workloads) {
    for (auto& groups : w.communicator.groups) onGroups(groups);
    for (auto& strides : w.communicator.strides) {
      if (!strides.empty()) onStrides(strides);
    }
    // Layers are shared between project copies: copy them only when a phase has
    // its own groups to change.
    const bool overrides = std::any_of(w.layers.begin(), w.layers.end(), [](const Layer& l) {
      return std::any_of(l.phases.begin(), l.phases.end(),
                         [](const Phase& p) { return !p.groups.empty(); });
    });
    if (!overrides) continue;
    for (Layer& layer : w.layers.mutate()) {
      for (Phase& phase : layer.phases) {
        if (!phase.groups.empty()) onGroups(phase.groups);
        if (!phase.strides.empty()) onStrides(phase.strides);
      }
    }
  }
}

// The same change of the dimensions' order or number on groups and strides.
template <typename F>
void forEachGroupList(Project& project, F&& f) {
  forEachGroupAndStrideList(project, f, f);
}

void regenerateAll(Project& project) {
  for (Workload& w : project.workloads) regenerateForNetwork(w, project.network);
}

std::string quotedName(const std::vector<std::string>& names, int index) {
  const std::string& name = names[index];
  return name.empty() ? std::to_string(index) : "'" + name + "'";
}

std::string removalNote(const std::string& constraint, const std::vector<int>& removed,
                        const std::vector<std::string>& oldNames) {
  std::string dims;
  for (std::size_t i = 0; i < removed.size(); ++i) {
    if (i > 0) dims += i + 1 == removed.size() ? " and " : ", ";
    dims += quotedName(oldNames, removed[i]);
  }
  const bool one = removed.size() == 1;
  return "removed constraint '" + std::string(text::trim(constraint)) + "': it referred to " +
         (one ? "dimension " : "dimensions ") + dims + ", which " + (one ? "was" : "were") +
         " removed";
}

// Applies a change of the dimension list to the constraints: `before` and the
// project's current network give the names, `newIndex` the mapping.
EditReport remapAfter(Project& project, std::vector<std::string> oldNames,
                      std::vector<std::optional<int>> newIndex) {
  DimensionMapping mapping;
  mapping.oldNames = std::move(oldNames);
  mapping.newIndex = std::move(newIndex);
  mapping.newNames = project.network.names();
  return remapConstraints(project.constraints, mapping);
}

}  // namespace

EditReport remapConstraints(std::vector<std::string>& constraints,
                            const DimensionMapping& mapping) {
  EditReport report;
  std::vector<std::string> kept;
  kept.reserve(constraints.size());
  for (std::string& c : constraints) {
    RewrittenConstraint r;
    try {
      r = rewriteDimensionReferences(c, mapping);
    } catch (const ConstraintError&) {
      kept.push_back(std::move(c));  // not an expression; validateProject says why
      continue;
    }
    if (!r.removedDimensions.empty()) {
      report.notes.push_back(removalNote(c, r.removedDimensions, mapping.oldNames));
      report.removedConstraints.push_back(std::move(c));
      continue;
    }
    kept.push_back(std::move(r.text));
  }
  constraints = std::move(kept);
  return report;
}

std::string freshDimensionName(const Network& network) {
  for (int k = network.size();; ++k) {
    std::string name = "dim" + std::to_string(k);
    if (!network.indexOf(name)) return name;
  }
}

EditReport insertDimension(Project& project, int index) {
  Network& net = project.network;
  const std::vector<std::string> oldNames = net.names();
  index = std::clamp(index, 0, net.size());
  Dimension dim;
  dim.name = freshDimensionName(net);
  dim.block = BuildingBlock::Ring;
  dim.npus = 2;
  // A neighbour's cost level is the likeliest right one; the cost model's first
  // level is the fallback for an empty network.
  if (!net.dims.empty()) {
    dim.costLevel = net.dims[std::min(index, net.size() - 1)].costLevel;
  } else if (!project.costModel.levels.empty()) {
    dim.costLevel = project.costModel.levels.begin()->first;
  }
  net.dims.insert(net.dims.begin() + index, dim);
  forEachGroupList(project, [index](std::vector<int>& g) {
    if (static_cast<int>(g.size()) >= index) g.insert(g.begin() + index, 1);
  });
  regenerateAll(project);
  std::vector<std::optional<int>> newIndex;
  newIndex.reserve(oldNames.size());
  for (int d = 0; d < static_cast<int>(oldNames.size()); ++d) {
    newIndex.emplace_back(d < index ? d : d + 1);
  }
  return remapAfter(project, oldNames, std::move(newIndex));
}

EditReport removeDimension(Project& project, int index) {
  Network& net = project.network;
  if (index < 0 || index >= net.size()) return {};
  const std::vector<std::string> oldNames = net.names();
  net.dims.erase(net.dims.begin() + index);
  forEachGroupList(project, [index](std::vector<int>& g) {
    if (index < static_cast<int>(g.size())) g.erase(g.begin() + index);
  });
  regenerateAll(project);
  std::vector<std::optional<int>> newIndex;
  for (int d = 0; d < static_cast<int>(oldNames.size()); ++d) {
    if (d == index) {
      newIndex.emplace_back(std::nullopt);
    } else {
      newIndex.emplace_back(d < index ? d : d - 1);
    }
  }
  return remapAfter(project, oldNames, std::move(newIndex));
}

EditReport moveDimension(Project& project, int from, int to) {
  Network& net = project.network;
  if (from < 0 || from >= net.size() || to < 0 || to >= net.size() || from == to) return {};
  const std::vector<std::string> oldNames = net.names();
  auto move = [from, to](auto& v) {
    if (from >= static_cast<int>(v.size()) || to >= static_cast<int>(v.size())) return;
    auto item = v[from];
    v.erase(v.begin() + from);
    v.insert(v.begin() + to, item);
  };
  move(net.dims);
  forEachGroupList(project, move);
  regenerateAll(project);
  // The old index of each new position, moved the same way, inverted.
  std::vector<int> order(oldNames.size());
  for (int d = 0; d < static_cast<int>(order.size()); ++d) order[d] = d;
  move(order);
  std::vector<std::optional<int>> newIndex(oldNames.size());
  for (int k = 0; k < static_cast<int>(order.size()); ++k) newIndex[order[k]] = k;
  return remapAfter(project, oldNames, std::move(newIndex));
}

EditReport setDimensionCount(Project& project, int count) {
  count = std::max(count, 1);
  EditReport report;
  while (project.network.size() < count) {
    report.append(insertDimension(project, project.network.size()));
  }
  while (project.network.size() > count) {
    report.append(removeDimension(project, project.network.size() - 1));
  }
  return report;
}

EditReport setDimensionNpus(Project& project, int index, int npus) {
  Network& net = project.network;
  if (index < 0 || index >= net.size()) return {};
  const int old = net.dims[index].npus;
  net.dims[index].npus = npus;
  forEachGroupAndStrideList(
      project,
      [&](std::vector<int>& g) {
        if (index >= static_cast<int>(g.size())) return;
        if (g[index] == old) {
          g[index] = g[index] > 1 ? npus : 1;
        } else {
          g[index] = std::clamp(g[index], 1, std::max(npus, 1));
        }
      },
      // The groups' layout on the dimension is gone with its size: consecutive
      // (a preset workload is generated again below, with its own).
      [&](std::vector<int>& s) {
        if (index < static_cast<int>(s.size())) s[index] = 1;
      });
  regenerateAll(project);
  return {};
}

EditReport renameDimension(Project& project, int index, const std::string& name) {
  Network& net = project.network;
  if (index < 0 || index >= net.size()) return {};
  const std::vector<std::string> oldNames = net.names();
  net.dims[index].name = name;
  DimensionMapping mapping = DimensionMapping::identity(oldNames);
  mapping.newNames = net.names();
  return remapConstraints(project.constraints, mapping);
}

// ---------------------------------------------------------------------------------
// Budgets

std::optional<double> totalBudgetOf(std::string_view expression) {
  ConstraintStructure s;
  try {
    s = analyzeConstraint(expression);
  } catch (const ConstraintError&) {
    return std::nullopt;
  }
  if (!s.references.empty() || s.hasCost || s.totalCoefficient == 0 ||
      s.relation != Relation::Equal) {
    return std::nullopt;
  }
  return s.rhs / s.totalCoefficient + 0.0;  // + 0.0: no "-0" for `0 == total`
}

std::optional<double> costBudgetOf(std::string_view expression) {
  ConstraintStructure s;
  try {
    s = analyzeConstraint(expression);
  } catch (const ConstraintError&) {
    return std::nullopt;
  }
  if (!s.references.empty() || s.hasTotal || s.costCoefficient == 0) return std::nullopt;
  // a*cost <= r with a > 0, or a*cost >= r with a < 0, is cost <= r / a.
  const Relation upper = s.costCoefficient > 0 ? Relation::LessEqual : Relation::GreaterEqual;
  if (s.relation != upper) return std::nullopt;
  return s.rhs / s.costCoefficient + 0.0;
}

namespace {

// Where the budget expressions are in a constraint list.
struct BudgetPositions {
  std::optional<std::size_t> total;
  std::optional<std::size_t> cost;
};

BudgetPositions findBudgets(const std::vector<std::string>& constraints) {
  BudgetPositions at;
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    if (!at.total && totalBudgetOf(constraints[i])) {
      at.total = i;
    } else if (!at.cost && costBudgetOf(constraints[i])) {
      at.cost = i;
    }
  }
  return at;
}

std::string budgetNumber(double value, const char* what) {
  if (!std::isfinite(value)) {
    throw InputError(std::string(what) + " must be a finite number, not " +
                     text::formatNumber(value));
  }
  return text::formatNumber(value);
}

}  // namespace

BudgetConstraints splitConstraints(const std::vector<std::string>& constraints) {
  const BudgetPositions at = findBudgets(constraints);
  BudgetConstraints b;
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    if (at.total == i) {
      b.totalBandwidth = totalBudgetOf(constraints[i]);
    } else if (at.cost == i) {
      b.costBudget = costBudgetOf(constraints[i]);
    } else {
      b.extra.push_back(constraints[i]);
    }
  }
  return b;
}

void setTotalBandwidth(Project& project, std::optional<double> gbps) {
  std::vector<std::string>& list = project.constraints;
  const BudgetPositions at = findBudgets(list);
  if (!gbps) {
    if (at.total) list.erase(list.begin() + static_cast<std::ptrdiff_t>(*at.total));
    return;
  }
  const std::string text = "total == " + budgetNumber(*gbps, "the total bandwidth");
  if (!at.total) {
    list.insert(list.begin(), text);
  } else if (totalBudgetOf(list[*at.total]) != gbps) {
    list[*at.total] = text;
  }
}

void setCostBudget(Project& project, std::optional<double> usd) {
  std::vector<std::string>& list = project.constraints;
  const BudgetPositions at = findBudgets(list);
  if (!usd) {
    if (at.cost) list.erase(list.begin() + static_cast<std::ptrdiff_t>(*at.cost));
    return;
  }
  const std::string text = "cost <= " + budgetNumber(*usd, "the cost budget");
  if (!at.cost) {
    const std::size_t where = at.total ? *at.total + 1 : 0;
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(where), text);
  } else if (costBudgetOf(list[*at.cost]) != usd) {
    list[*at.cost] = text;
  }
}

void setExtraConstraints(Project& project, std::vector<std::string> extra) {
  const BudgetPositions at = findBudgets(project.constraints);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < project.constraints.size(); ++i) {
    if (at.total == i || at.cost == i) out.push_back(project.constraints[i]);
  }
  out.insert(out.end(), std::make_move_iterator(extra.begin()),
             std::make_move_iterator(extra.end()));
  project.constraints = std::move(out);
}

std::vector<std::string> constraintsWithoutCostBudget(const std::vector<std::string>& constraints) {
  std::vector<std::string> out = constraints;
  if (const auto at = findBudgets(constraints).cost) {
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(*at));
  }
  return out;
}

}  // namespace libra
