#include "libra/sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "libra/constraints.hpp"
#include "libra/solver_detail.hpp"

namespace libra {

namespace {

// Dimensions within this of the largest benefit of an extra GB/s are bottlenecks.
constexpr double kBottleneckShare = 0.01;
// A dimension's step is kSensitivityStep of its bandwidth, but of no less than
// this share of the total: a nearly idle dimension would otherwise get a step
// below the solvers' accuracy.
constexpr double kLeastDimensionShare = 1e-3;

// The unit of a constraint's right-hand side: $ when it has a `cost` term.
std::string rhsUnit(const std::string& text) {
  try {
    if (analyzeConstraint(text).hasCost) return "$";
  } catch (const std::exception&) {
    // The dimension bounds of a network ("bw[pod] <= 50 (maximum of ...)") are
    // not expressions; they are bandwidths.
  }
  return "GB/s";
}

// The size of a constraint's terms at bw: what its step is relative to.
double rowSize(const LinearConstraint& c, std::span<const double> bw) {
  double size = std::abs(c.rhs);
  double terms = 0;
  for (std::size_t d = 0; d < c.coefficients.size() && d < bw.size(); ++d) {
    terms += std::abs(c.coefficients[d] * bw[d]);
  }
  return std::max(size, terms);
}

double objectiveValue(const Solution& s, Objective objective) {
  return objective == Objective::Performance ? s.eval.iterationNs
                                             : s.eval.iterationNs * s.eval.costUsd;
}

// Re-solves changed problems from one optimum and turns the changes of the
// objective into rates.
class Resolver {
 public:
  Resolver(const Problem& problem, const Solution& at, const SolveOptions& options)
      : problem_(problem), at_(at), options_(options), objective_(at.objective) {}

  // The objective at the unchanged problem, re-solved from the optimum as every
  // change is, so that the differences compare like with like. False (with the
  // note set) when there is nothing to measure against.
  bool start(Sensitivity& out) {
    const Solution base = detail::resolveNear(problem_, objective_, at_, options_);
    ++out.resolves;
    const Solution& reference = base.ok() ? base : at_;
    base_ = objectiveValue(reference, objective_);
    // Perf per cost: ns of iteration time at the optimum's cost.
    divisor_ = objective_ == Objective::Performance ? 1.0 : at_.eval.costUsd;
    return std::isfinite(base_) && std::isfinite(divisor_) && divisor_ > 0;
  }

  // (v(changed) - v) / step for a change up (+1) or down (-1); nullopt when the
  // changed problem has no solution (or the re-solve failed: the note says so).
  std::optional<double> rate(const Problem& changed, double step, int sign, Sensitivity& out) {
    const Solution s = detail::resolveNear(changed, objective_, at_, options_);
    ++out.resolves;
    if (!s.ok()) {
      if (s.status == SolveStatus::Error && out.note.empty()) {
        out.note = "a re-solve failed: " + s.message;
      }
      return std::nullopt;
    }
    const double change = objectiveValue(s, objective_) - base_;
    if (std::abs(change) <= kSensitivityResolution * std::abs(base_)) return 0.0;
    return sign * change / step / divisor_;
  }

  bool cancelled() const { return options_.cancel && options_.cancel->load(); }

 private:
  const Problem& problem_;
  const Solution& at_;
  const SolveOptions& options_;
  Objective objective_;
  double base_ = 0;
  double divisor_ = 1;
};

// `problem` with constraint i's right-hand side moved by delta.
Problem withRightHandSide(const Problem& problem, std::size_t i, double delta) {
  Problem p = problem;
  p.constraints[i].rhs += delta;
  return p;
}

// `problem` with dimension d given `gift` GB/s (taken, when negative) beyond
// what the constraints allow: they bound bw - gift e_d, and bw_d >= gift.
Problem withGift(const Problem& problem, int d, double gift) {
  Problem p = problem;
  for (LinearConstraint& c : p.constraints) c.rhs += c.coefficients[d] * gift;
  if (gift > 0) {
    LinearConstraint floor;
    floor.coefficients.assign(problem.dims(), 0.0);
    floor.coefficients[d] = 1;
    floor.relation = Relation::GreaterEqual;
    floor.rhs = gift;
    floor.text = "bw[" + problem.dimNames[d] + "] >= the gift";
    p.constraints.push_back(std::move(floor));
  }
  return p;
}

void constraintRates(const Problem& problem, const Solution& at, Resolver& resolver,
                     Sensitivity& out) {
  const std::span<const double> bw = at.bandwidth;
  for (std::size_t i = 0; i < problem.constraints.size() && !resolver.cancelled(); ++i) {
    const LinearConstraint& c = problem.constraints[i];
    ConstraintSensitivity cs;
    cs.constraint = c.text;
    cs.unit = rhsUnit(c.text);
    const double size = rowSize(c, bw);
    cs.step = kSensitivityStep * (size > 0 ? size : 1.0);
    const double slack = -c.violation(bw);
    cs.binding = c.relation == Relation::Equal || slack <= 1e-6 * size;
    if (c.relation != Relation::Equal && slack > cs.step) {
      // Both changes leave the optimum feasible, and optimal: a convex problem
      // has no better point nearby (for perf per cost, none nearby).
      cs.nsPerUnit = cs.nsPerUnitDown = 0.0;
    } else {
      cs.nsPerUnit = resolver.rate(withRightHandSide(problem, i, cs.step), cs.step, +1, out);
      cs.nsPerUnitDown = resolver.rate(withRightHandSide(problem, i, -cs.step), cs.step, -1, out);
    }
    out.constraints.push_back(std::move(cs));
  }
}

void dimensionRates(const Problem& problem, const Solution& at, Resolver& resolver,
                    Sensitivity& out) {
  const std::vector<bool> used = problem.time.usedDims();
  const double total = std::accumulate(at.bandwidth.begin(), at.bandwidth.end(), 0.0);
  for (int d = 0; d < problem.dims() && !resolver.cancelled(); ++d) {
    DimensionSensitivity ds;
    ds.name = problem.dimNames[d];
    const double bw = at.bandwidth[d];
    ds.step = kSensitivityStep * std::max(bw, kLeastDimensionShare * total);
    if (!used[d] && out.objective == Objective::Performance) {
      // The time does not depend on it, and the constraints bound what is bought.
      ds.nsPerGbps = ds.nsPerGbpsDown = 0.0;
    } else {
      ds.nsPerGbps = resolver.rate(withGift(problem, d, ds.step), ds.step, +1, out);
      if (bw >= ds.step) {
        ds.nsPerGbpsDown = resolver.rate(withGift(problem, d, -ds.step), ds.step, -1, out);
      }
    }
    out.dims.push_back(std::move(ds));
  }
  double best = 0;
  for (int d = 0; d < problem.dims() && d < static_cast<int>(out.dims.size()); ++d) {
    if (used[d] && out.dims[d].nsPerGbps) best = std::min(best, *out.dims[d].nsPerGbps);
  }
  if (best >= 0) return;
  for (int d = 0; d < static_cast<int>(out.dims.size()); ++d) {
    const auto& rate = out.dims[d].nsPerGbps;
    out.dims[d].bottleneck = used[d] && rate && *rate <= (1 - kBottleneckShare) * best;
  }
}

}  // namespace

std::vector<std::string> Sensitivity::bottlenecks() const {
  std::vector<std::string> out;
  for (const DimensionSensitivity& d : dims) {
    if (d.bottleneck) out.push_back(d.name);
  }
  return out;
}

bool directionsDiffer(std::optional<double> up, std::optional<double> down) {
  if (!up || !down) return up.has_value() != down.has_value();
  return std::abs(*up - *down) > 1e-3 * std::max(std::abs(*up), std::abs(*down));
}

Sensitivity sensitivityAt(const Problem& problem, const Solution& solution,
                          const SolveOptions& options) {
  Sensitivity out;
  out.objective = solution.objective;
  if (!solution.ok() || static_cast<int>(solution.bandwidth.size()) != problem.dims()) {
    out.note = "there is no optimum";
    return out;
  }
  if (!std::isfinite(solution.eval.iterationNs)) {
    out.note = "the iteration time is not finite at this design";
    return out;
  }
  if (solution.objective == Objective::PerfPerCost && !(solution.eval.costUsd > 0)) {
    out.note = "the design costs nothing, so time x cost is 0 whatever the constraints";
    return out;
  }
  Resolver resolver(problem, solution, options);
  if (!resolver.start(out)) {
    out.note = "the objective at this design is not a finite number";
    return out;
  }
  constraintRates(problem, solution, resolver, out);
  dimensionRates(problem, solution, resolver, out);
  if (resolver.cancelled()) {
    out = Sensitivity{};
    out.objective = solution.objective;
    out.note = "cancelled";
    return out;
  }
  out.computed = true;
  return out;
}

}  // namespace libra
