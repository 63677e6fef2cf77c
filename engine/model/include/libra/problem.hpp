// A solvable problem: the compiled time model, the cost per unit of bandwidth and
// the linear constraints, all over the bandwidth vector bw (GB/s per NPU per dim).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libra/constraints.hpp"
#include "libra/time_model.hpp"

namespace libra {

enum class Objective { Performance, PerfPerCost };
std::string_view toString(Objective objective);  // "performance", "perf-per-cost"
std::optional<Objective> parseObjective(std::string_view text);

// What "cost" counts: the network alone (LIBRA's model) or the whole system,
// the NPUs' list price plus the network. It decides the perf-per-cost optimum,
// the Pareto front's cost axis and what a `cost` constraint bounds.
enum class CostScope { Network, System };
std::string_view toString(CostScope scope);  // "network", "system"
std::optional<CostScope> parseCostScope(std::string_view text);

struct Problem {
  std::vector<std::string> dimNames;
  TimeModel time;
  std::vector<double> costPerBandwidth;  // $ per GB/s of bw_d: N * price_d
  // The cost no bandwidth changes: N * the NPU price in the system scope, else 0.
  double fixedCostUsd = 0;
  std::vector<LinearConstraint> constraints;

  int dims() const { return static_cast<int>(dimNames.size()); }
  // cost = fixedCostUsd + networkCost(bw): what perf-per-cost and budgets use.
  double cost(std::span<const double> bw) const;
  double networkCost(std::span<const double> bw) const;
  // Compiles a constraint expression against this problem's dimensions and costs.
  LinearConstraint compile(std::string_view expression) const;
  // Time breakdown and cost of a bandwidth vector.
  Evaluation evaluate(std::span<const double> bw) const;
  // Sets e's costUsd and networkCostUsd for bw (after a time model's evaluation).
  void price(Evaluation& e, std::span<const double> bw) const;
  // Throws InputError when bw has the wrong length or holds NaN or negative values.
  void checkBandwidth(std::span<const double> bw) const;
};

}  // namespace libra
