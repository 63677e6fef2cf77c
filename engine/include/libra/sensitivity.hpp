// What the constraints cost at an optimum: the Lagrange multiplier of every
// constraint in user units ("ns of iteration time per extra GB/s of total
// bandwidth", "ns per extra $"), and what one more GB/s on a single dimension
// is worth (the bottlenecks). The one place this is computed; the analysis
// carries it to the command line and the GUI.
//
// How (docs/sensitivity.md): at the optimum bw*, the KKT conditions of the
// convex problem hold,
//
//   0 = g + kappa * price + sum_i lambda_i a_i - sigma,   g in dT(bw*),
//
// where dT is T's subdifferential (T is a sum of maxima: a subgradient is a
// convex combination of the gradients of the parts that set each maximum),
// lambda_i the multipliers of the constraints that hold with equality (>= 0
// for `<=`, <= 0 for `>=`, free for `==`) and sigma >= 0 those of the
// bandwidths at 0. These conditions are linear in the multipliers, so the set
// of all multipliers is a polyhedron, and small linear programs over it give
// the exact one-sided derivative of the optimal value in the rhs of each
// constraint (convex perturbation theory: the optimal value is convex in the
// right-hand sides, and its subgradients are the negated multipliers):
//
//   d v / d b_i (one more unit) = max over the multipliers of -lambda_i,
//
// which is the derivative itself where the multiplier is unique, and +inf where
// the other constraints keep the constraint's left side from moving (relaxing
// it alone changes nothing it can use, tightening it is infeasible: nullopt).
// The multipliers need nothing of the solver but its answer, so they are the
// same for both backends.
//
// Objectives:
//  - performance: v is the least iteration time, kappa = 0; ns per unit.
//  - perf per cost: v is the least T x cost. At its optimum (T*, C*), bw* also
//    minimizes the convex T + kappa C with kappa = T* / C* (AM-GM:
//    T + kappa C >= 2 sqrt(kappa T C) >= 2 T*), and d(T x cost)/db =
//    C* d(T + kappa C)/db where it is differentiable (a lower bound on the
//    one-sided rate otherwise): the numbers are the change of time x cost
//    divided by the optimum's cost, i.e. ns of iteration time at the optimum's
//    cost (for a cost budget, the money it lets the design spend included).
//  - a chunked collective model: the solvers minimize a convex surrogate of the
//    exact schedule, so the multipliers are those of the surrogate (with "auto"
//    chunk counts, at the counts of the solver's last solve). They are exact for
//    LIBRA's ideal model.
//  - ties: a part within 1e-6 of its maximum sets it. Where the conditions
//    then fit only roughly (or the row of a dimension with almost no bandwidth
//    is off), they are tried again with ties that allow for the answer's error
//    in the bandwidths (1e-8 of the largest). When the conditions do not hold
//    at the answer (residual above 1e-4), nothing is computed and the note
//    says so;
//  - size: the conditions are solved by a dense LP; when so many collectives tie
//    that it would take more than about a second per LP, nothing is computed and
//    the note says so.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "libra/problem.hpp"
#include "libra/solver.hpp"

namespace libra {

struct ConstraintSensitivity {
  std::string constraint;  // its text, as written (Problem::constraints order)
  std::string unit;        // the unit of its right-hand side: "GB/s" or "$"
  bool binding = false;    // holds with equality at the optimum (an `==` always does)
  // The change of the objective in ns per unit increase of the right-hand side
  // as written (`total == 500` -> 501; `bw[0] >= bw[1]` -> bw[0] - bw[1] >= 1):
  // negative where more helps, 0 for a constraint that does not bind. nullopt
  // when the other constraints hold its left side fixed (no finite rate).
  std::optional<double> nsPerUnit;
};

struct DimensionSensitivity {
  std::string name;
  // The change of the objective in ns per GB/s given to this dimension alone,
  // beyond what the constraints allow (with its price in perf per cost): how
  // much the dimension holds the design back. <= 0 for the performance objective.
  double nsPerGbps = 0;
  // It carries traffic and an extra GB/s there helps the most (within 1 %).
  bool bottleneck = false;
};

struct Sensitivity {
  bool computed = false;
  std::string note;  // why not, when !computed
  Objective objective = Objective::Performance;
  std::vector<ConstraintSensitivity> constraints;
  std::vector<DimensionSensitivity> dims;
  // How well the KKT conditions hold at the answer: the least residual of the
  // stationarity rows, relative to the size of the gradient, each row weighted
  // by its dimension's share of the bandwidth (a first-order optimality gap; ~1e-9
  // at a solver's optimum). Above 1e-4 nothing is computed.
  double residual = 0;

  std::vector<std::string> bottlenecks() const;
};

// The sensitivity of the optimum `bw` of `problem` for `objective` (bw must be
// an optimum of it, as solve() returns; the result describes the KKT point
// nearest to it otherwise). Not computed, with a note, when the time at bw is
// not finite, or for perf per cost when the network costs nothing.
// `solvedModel`: the model the solver solved at (Solution::solvedModel, for
// "auto" chunk counts); by default the problem's, with "auto" counts fixed at bw.
Sensitivity sensitivityAt(const Problem& problem, Objective objective, std::span<const double> bw,
                          const TimeModel* solvedModel = nullptr);
// The same for a solver's answer (its objective, bandwidth and solved model):
// what callers should use. Where the conditions fit only roughly at a
// performance optimum, the native solver's optimum (solved with `options`) is
// tried too: the multipliers are the problem's, the same at each optimum.
Sensitivity sensitivityAt(const Problem& problem, const Solution& solution,
                          const SolveOptions& options = {});

}  // namespace libra
