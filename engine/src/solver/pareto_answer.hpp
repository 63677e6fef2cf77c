// The Pareto front whose perf-per-cost optimum is the answer (solve with
// Objective::PerfPerCost, analyze), not only the front's marker.
#pragma once

#include "libra/solver.hpp"

namespace libra::detail {

// Where the scalar search for the perf-per-cost optimum stops, relative to the
// front's cost range. The front's marker needs no more than 1e-6 (time x cost
// is flat there); the answer is searched to 1e-10, because its split and its
// sensitivity are only as exact as its cost: at 1e-6 the multipliers came out
// 1.7-4.3 % off re-solves (RapidCheck seeds 2178411554921782789,
// 14264328667996339242, 6108923032145602705), and at 1e-8 `bw[d2] == 2.309`
// was worth -37887 ns per GB/s where the central difference is -37119 (seed
// 8834034631107634348: two dimensions of 0.9 GB/s with slopes of 1e7 ns per
// GB/s move their gradients far for a small move of the budget). Brent's
// search takes about 10 more solves for it (84 to 94 native solves for the
// 3D example's answer, 107 to 117 for the 4D one).
inline constexpr double kPerfPerCostMarkerTolerance = 1e-6;
inline constexpr double kPerfPerCostAnswerTolerance = 1e-10;

// paretoFront(problem, points, options) with its perf-per-cost optimum
// searched to kPerfPerCostAnswerTolerance.
ParetoFront paretoFrontForAnswer(const Problem& problem, int points, const SolveOptions& options);

}  // namespace libra::detail
