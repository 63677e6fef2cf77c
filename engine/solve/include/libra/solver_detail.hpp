// What the analysis, the sensitivity and the co-design ask of the solver beyond
// solver.hpp (the solve layer's detail header, public so that the layers above
// need none of its private headers): the Pareto front whose perf-per-cost optimum
// is the answer (solve with Objective::PerfPerCost, analyze), re-solves started
// from an answer, and the feasible cost range (codesign).
#pragma once

#include <string>

#include "libra/solver.hpp"

namespace libra::detail {

// Where the scalar search for the perf-per-cost optimum stops, relative to the
// front's cost range. The front's marker needs no more than 1e-6 (time x cost
// is flat there); the answer is searched to 1e-10, because its split is only
// as exact as its cost (two dimensions of 0.9 GB/s with slopes of 1e7 ns per
// GB/s move far for a small move of the budget). Brent's search takes about
// 10 more solves for it (84 to 94 native solves for the 3D example's answer,
// 107 to 117 for the 4D one).
inline constexpr double kPerfPerCostMarkerTolerance = 1e-6;
inline constexpr double kPerfPerCostAnswerTolerance = 1e-10;

// paretoFront(problem, points, options) with its perf-per-cost optimum
// searched to kPerfPerCostAnswerTolerance.
ParetoFront paretoFrontForAnswer(const Problem& problem, int points, const SolveOptions& options);

// The optimum of `problem` (a small change of the one `near` answers) for
// `objective`, started from `near`: its bandwidths moved onto the changed
// constraints as the warm start (with "auto" chunk counts, the counts best
// there), and for perf per cost the cost budgets searched within
// kResolveCostBracket of `near`'s cost (a local re-solve: the front is not
// scanned again).
inline constexpr double kResolveCostBracket = 1e-2;
Solution resolveNear(const Problem& problem, Objective objective, const Solution& near,
                     const SolveOptions& options);

// Cost range over the feasible set: [min, max] in $; max may be +inf.
struct CostRange {
  SolveStatus status = SolveStatus::Error;
  std::string message;
  double min = 0;
  double max = 0;
};
CostRange costRange(const Problem& problem);

}  // namespace libra::detail
