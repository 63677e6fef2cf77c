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

struct Problem {
  std::vector<std::string> dimNames;
  TimeModel time;
  std::vector<double> costPerBandwidth;  // $ per GB/s of bw_d: N * price_d
  std::vector<LinearConstraint> constraints;

  int dims() const { return static_cast<int>(dimNames.size()); }
  double cost(std::span<const double> bw) const;
  // Time breakdown and cost of a bandwidth vector.
  Evaluation evaluate(std::span<const double> bw) const;
  // Throws InputError when bw has the wrong length or holds NaN or negative values.
  void checkBandwidth(std::span<const double> bw) const;
};

}  // namespace libra
