// In-process measurement of solver speed and backend agreement, for
// `libra bench`. Times are medians of repeated runs in this process, so the
// ratios between them are meaningful on any machine.
#pragma once

#include <functional>
#include <string>

#include "libra/problem.hpp"

namespace libra {

struct BenchOptions {
  int solveRepetitions = 301;  // native performance solves
  int ipoptRepetitions = 21;   // IPOPT performance solves
  int paretoRepetitions = 11;  // 100-point Pareto fronts (native)
  int paretoPoints = 100;
  bool comparePerfPerCost = true;  // also compare both backends on perf-per-cost (slow with IPOPT)
};

struct BenchReport {
  double nativeSolveNs = 0;  // median wall time of one native performance solve
  double ipoptSolveNs = 0;   // median wall time of one IPOPT performance solve
  double pareto100Ns = 0;    // median wall time of a `paretoPoints`-point front (native)
  int nativeIterations = 0;
  int ipoptIterations = 0;
  int distinctCollectives = 0;
  // Largest |native - ipopt| / |ipopt| over the objectives compared: the iteration
  // time of the performance optimum, and time x cost of the perf-per-cost optimum.
  double maxRelativeDisagreement = 0;
  double performanceDisagreement = 0;
  double perfPerCostDisagreement = 0;
};

// Throws std::runtime_error with the solver's message when a backend cannot
// solve the problem (infeasible, unbounded, error). `progress` (may be empty)
// receives a short description of each phase as it starts.
BenchReport runBench(const Problem& problem, const BenchOptions& options = {},
                     const std::function<void(const std::string&)>& progress = {});

}  // namespace libra
