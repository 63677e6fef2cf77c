// Solvers for the two objectives, and the Pareto front of time against cost.
//
// Performance (minimize T) is convex and solved directly by a backend.
// Performance per cost (minimize T * cost) is not convex; its optimum lies on
// the Pareto front (least time for each cost budget), so it is found globally by
// scanning the front and refining between the neighbours of its best point.
//
// All functions are re-entrant. The IPOPT backend serializes its own calls
// (IPOPT 3.11 with MUMPS is not thread-safe); the native backend has no shared state.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libra/problem.hpp"

namespace libra {

enum class SolveStatus { Optimal, Infeasible, Unbounded, Cancelled, Error };
std::string_view toString(SolveStatus status);  // "optimal", "infeasible", ...

enum class Backend { Native, Ipopt };
std::string_view toString(Backend backend);  // "native", "ipopt"
std::optional<Backend> parseBackend(std::string_view text);

// Limits of one backend run (each sub-solve of a Pareto scan or of an "auto"
// chunk round has its own). Reaching one ends the solve with status Error and a
// message that says which limit stopped which backend, after how long, and what
// the other backend does with the same problem (the native solver with its
// default limits; IPOPT within the same time limit).
struct SolveLimits {
  double seconds = 60;  // wall-clock seconds, checked between iterations
  int iterations = 0;   // 0: the backend's own (native 150 per attempt, IPOPT 3000)
};

struct SolveOptions {
  Backend backend = Backend::Native;
  // Checked between iterations; when it becomes true the solve returns Cancelled.
  const std::atomic<bool>* cancel = nullptr;
  SolveLimits limits;
};

struct Solution {
  SolveStatus status = SolveStatus::Error;
  std::string message;  // why, when status is not Optimal
  Objective objective = Objective::Performance;
  std::vector<double> bandwidth;  // GB/s per NPU per dimension
  Evaluation eval;                // time breakdown and cost at `bandwidth`
  int iterations = 0;             // solver iterations (summed over sub-solves)
  // With "auto" chunk counts: the model with the counts the answer was solved
  // at (its optimality conditions are this model's; the counts best at the
  // answer may differ). Empty otherwise.
  std::shared_ptr<const TimeModel> solvedModel;

  bool ok() const { return status == SolveStatus::Optimal; }
};

Solution solve(const Problem& problem, Objective objective, const SolveOptions& options = {});

// Least iteration time subject to the problem's constraints and cost <= budget.
Solution solveWithCostBudget(const Problem& problem, double costBudgetUsd,
                             const SolveOptions& options = {});

struct ParetoFront {
  SolveStatus status = SolveStatus::Error;
  std::string message;
  // Increasing cost; each the least time for its cost. One point when the cost
  // range is narrower than 1e-6 of the cost (the least-time design's cost is not
  // known better where the time is flat).
  std::vector<Solution> points;
  Solution perfPerCostOptimum;  // best time*cost over the front, refined
  double minCostUsd = 0;        // the reachable cost range scanned
  double maxCostUsd = 0;
};

ParetoFront paretoFront(const Problem& problem, int points = 50, const SolveOptions& options = {});

// The same front, given `leastTime` = solve(problem, Objective::Performance,
// options) (its last point), which the scan would otherwise solve again.
ParetoFront paretoFront(const Problem& problem, int points, const SolveOptions& options,
                        const Solution& leastTime);

}  // namespace libra
