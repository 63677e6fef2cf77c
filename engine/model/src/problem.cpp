#include "libra/problem.hpp"

#include <algorithm>
#include <cmath>

#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

std::string_view toString(Objective objective) {
  return objective == Objective::Performance ? "performance" : "perf-per-cost";
}

std::optional<Objective> parseObjective(std::string_view textIn) {
  const std::string t = text::lower(text::trim(textIn));
  if (t == "performance" || t == "perf") return Objective::Performance;
  if (t == "perf-per-cost" || t == "perf_per_cost" || t == "performance-per-cost") {
    return Objective::PerfPerCost;
  }
  return std::nullopt;
}

std::string_view toString(CostScope scope) {
  return scope == CostScope::Network ? "network" : "system";
}

std::optional<CostScope> parseCostScope(std::string_view textIn) {
  const std::string t = text::lower(text::trim(textIn));
  if (t == "network") return CostScope::Network;
  if (t == "system") return CostScope::System;
  return std::nullopt;
}

double Problem::networkCost(std::span<const double> bw) const {
  double c = 0;
  for (int d = 0; d < dims(); ++d) c += costPerBandwidth[d] * bw[d];
  return c;
}

double Problem::cost(std::span<const double> bw) const {
  return fixedCostUsd + networkCost(bw);
}

LinearConstraint Problem::compile(std::string_view expression) const {
  return parseConstraint(expression, dimNames, costPerBandwidth, fixedCostUsd);
}

void Problem::price(Evaluation& e, std::span<const double> bw) const {
  e.networkCostUsd = networkCost(bw);
  e.costUsd = fixedCostUsd + e.networkCostUsd;
}

Evaluation Problem::evaluate(std::span<const double> bw) const {
  Evaluation e = time.evaluate(bw);
  price(e, bw);
  return e;
}

void Problem::checkBandwidth(std::span<const double> bw) const {
  if (static_cast<int>(bw.size()) != dims()) {
    throw InputError("bandwidth: " + std::to_string(bw.size()) +
                     " values given, but the network has " + std::to_string(dims()) +
                     " dimensions");
  }
  for (int d = 0; d < dims(); ++d) {
    if (std::isnan(bw[d]) || !std::isfinite(bw[d]) || bw[d] < 0) {
      throw InputError("bandwidth: value " + std::to_string(d) + " ('" + dimNames[d] + "') is " +
                       text::formatNumber(bw[d]) + "; it must be a finite number >= 0 GB/s");
    }
  }
  // Each price is at most kMaxCostPerBandwidth, but a bandwidth of 1e300 still
  // overflows the cost: no result shows an infinite cost.
  if (const double c = cost(bw); !std::isfinite(c)) {
    throw InputError("bandwidth: the network cost at these bandwidths is " + text::formatNumber(c) +
                     " (an overflow); give smaller bandwidths");
  }
}

}  // namespace libra
