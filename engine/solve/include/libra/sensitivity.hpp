// What the constraints cost at an optimum, and what one more GB/s on a single
// dimension would give: each rate is a difference of re-solves of the same
// objective, one step up and one step down (as HiGHS's ranging reports both
// directions), divided by the step. The one place this is computed; the
// analysis carries it to the command line, the GUI and the report.
//
// docs/sensitivity.md states the steps and the resolution. In short:
//  - the objective v is the reported iteration time (the exact schedule's for
//    chunked models), or for perf per cost the time x cost divided by the
//    optimum's cost (ns of iteration time at the optimum's cost);
//  - a constraint `a . bw (rel) b` as written is re-solved at b + h and b - h,
//    h = kSensitivityStep of the size of its terms at the optimum; a
//    dimension is given h GB/s beyond what the constraints allow (they bound
//    the bandwidth bought, the gift comes on top), or loses h;
//  - every re-solve starts from the optimum (resolveNear: its bandwidths moved
//    onto the changed constraints; for perf per cost a local search of the
//    cost budgets near the optimum's cost);
//  - a direction that cannot be solved (tightening `total == 500` beside
//    `bw[0] + bw[1] == 500`) has no rate (nullopt); a constraint with slack
//    larger than the step has rate 0 both ways (the optimum stays optimal).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libra/problem.hpp"
#include "libra/solver.hpp"

namespace libra {

// The step of each re-solve, relative to the size of the right-hand side's
// terms at the optimum (max(|b|, sum_d |a_d| bw_d)); for a dimension, of
// max(bw_d, 1e-3 of the total bandwidth).
inline constexpr double kSensitivityStep = 1e-4;
// A change of the objective below this share of it is below the solvers'
// accuracy: its rate is 0.
inline constexpr double kSensitivityResolution = 1e-9;

struct ConstraintSensitivity {
  std::string constraint;  // its text, as written (Problem::constraints order)
  std::string unit;        // the unit of its right-hand side: "GB/s" or "$"
  bool binding = false;    // holds with equality at the optimum (an `==` always does)
  double step = 0;         // h, in `unit`
  // The change of the objective in ns per unit of the right-hand side as
  // written, for more (b + h) and for less (b - h): (v(b + h) - v(b)) / h and
  // (v(b) - v(b - h)) / h. Negative where more helps; equal where v is smooth.
  // nullopt where that direction has no solution.
  std::optional<double> nsPerUnit;
  std::optional<double> nsPerUnitDown;
};

struct DimensionSensitivity {
  std::string name;
  double step = 0;  // h, in GB/s
  // The change of the objective in ns per GB/s given to this dimension alone
  // (and, down, taken from it), beyond what the constraints allow. nullopt
  // down for a dimension with less than the step.
  std::optional<double> nsPerGbps;
  std::optional<double> nsPerGbpsDown;
  // It carries traffic and an extra GB/s there helps the most (within 1 %).
  bool bottleneck = false;
};

struct Sensitivity {
  bool computed = false;
  std::string note;  // why not, when !computed; what failed, when a re-solve did
  Objective objective = Objective::Performance;
  std::vector<ConstraintSensitivity> constraints;
  std::vector<DimensionSensitivity> dims;
  int resolves = 0;  // how many re-solves it took

  std::vector<std::string> bottlenecks() const;
};

// Where the two directions of a rate differ beyond the steps' own curvature
// (relative 1e-3): shown separately only then.
bool directionsDiffer(std::optional<double> up, std::optional<double> down);

// The sensitivity of a solver's answer to `problem` (solution.objective; its
// bandwidths must be an optimum, as solve() and the fronts return). Not
// computed, with a note, when there is no optimum, its time is not finite, or
// for perf per cost when the design costs nothing. Cancelled with options.cancel.
Sensitivity sensitivityAt(const Problem& problem, const Solution& solution,
                          const SolveOptions& options = {});

}  // namespace libra
