// The analysis of a design: everything a view or a command shows about it,
// computed in one place. The GUI, `libra solve`, `evaluate`, `pareto` and every
// JSON, CSV and chart export read an Analysis; none computes its own numbers.
//
// A design is either optimized (the project's objective under its constraints)
// or evaluated (a bandwidth vector given by the user). Its baseline is always
// the same: the design's total bandwidth split equally over the dimensions,
// flagged when that split breaks a constraint.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libra/network.hpp"
#include "libra/problem.hpp"
#include "libra/project.hpp"
#include "libra/sensitivity.hpp"
#include "libra/solver.hpp"
#include "libra/training.hpp"

namespace libra {

struct Analysis;

// One dimension at a design point.
struct DimensionResult {
  std::string name;
  BuildingBlock block = BuildingBlock::Ring;
  int npus = 0;
  double bandwidthGbps = 0;
  double busyNs = 0;     // how long the dimension is busy per iteration
  double exposedNs = 0;  // exposed communication attributed to it (sums to the total)
  double costUsd = 0;    // its share of the network cost
  double costShare = 0;  // costUsd / network cost (0 when the network costs nothing)
};

// A bandwidth vector and what it gives.
struct DesignResult {
  std::vector<double> bandwidth;  // GB/s per NPU per dimension
  Evaluation eval;                // time breakdown and cost (network, or NPUs + network)
  std::vector<DimensionResult> dims;
  // Tokens per second, model TFLOP/s per NPU, MFU, time to train (analyze()
  // fills it from Analysis::training; empty for a workload without a preset).
  Throughput throughput;

  double totalBandwidth() const;
  // Iteration time x cost (ns x $, the cost in the analysis' scope); nullopt when
  // the time is not finite.
  std::optional<double> timeCost() const;
};

// Evaluates `bandwidth` (which must fit the problem, see Problem::checkBandwidth).
DesignResult describeDesign(const Problem& problem, const Network& network,
                            std::vector<double> bandwidth);

// The equal split of a design's total bandwidth, and how the design compares.
// Ratios are > 1 when the design is better; nullopt when not defined (a time
// that is infinite or zero).
struct Baseline {
  DesignResult design;
  std::vector<std::string> violated;           // constraints the equal split breaks (as written)
  std::optional<double> speedup;               // baseline iteration time / design's
  std::optional<double> communicationSpeedup;  // baseline exposed communication / design's
  std::optional<double> timeCostGain;          // baseline time x cost / design's

  bool satisfiesConstraints() const { return violated.empty(); }
};
// nullopt when the design has no bandwidth at all.
std::optional<Baseline> equalSplitBaseline(const Problem& problem, const Network& network,
                                           const DesignResult& design);

// The constraints `bandwidth` breaks (their text), within 1e-9 relative.
std::vector<std::string> violatedConstraints(const Problem& problem,
                                             std::span<const double> bandwidth);

struct AnalysisOptions {
  std::optional<Objective> objective;         // default: the project's
  std::vector<std::string> extraConstraints;  // added to the project's
  bool projectConstraints = true;             // false: only extraConstraints apply
  ModelOverrides model;                       // --chunks, --latency over the project's
  Backend backend = Backend::Native;
  SolveLimits limits;  // of each solver run (--time-limit, --max-iterations)
  // Pareto front: 0 points for none, else at least 2.
  int paretoPoints = 0;
  // Whether a cost budget among the constraints limits the front (`libra
  // pareto`), or the front spans the whole cost range and the budget is only
  // marked on it (the GUI's chart).
  bool frontWithinCostBudget = false;
  // Re-solve around the optimum for its sensitivity (sensitivityAt); off where
  // nothing shows it (`libra pareto`, `compare`, `export-astra-sim`): the
  // re-solves are most of a front's solves.
  bool sensitivity = true;
  // Evaluate this design instead of optimizing.
  std::optional<std::vector<double>> design;
  const std::atomic<bool>* cancel = nullptr;
  // Called once the design is known, before the front is computed (progressive
  // display). Gets the analysis so far (no front yet).
  std::function<void(const Analysis&)> onDesign;
};

struct Analysis {
  SolveStatus status = SolveStatus::Error;
  std::string message;     // why, when the status is not optimal
  bool evaluated = false;  // a given design, not an optimum
  Objective objective = Objective::Performance;
  Backend backend = Backend::Native;

  std::string projectName;
  std::string scenarioName;              // the active scenario's; empty for a lone unnamed one
  std::vector<std::string> constraints;  // the expressions in force, as written
  std::optional<double> costBudgetUsd;   // the `cost <= C` among them
  std::shared_ptr<const Problem> problem;
  ModelOptions model;             // the model in force (after the overrides)
  std::vector<double> latencyNs;  // link latency per dimension in force
  double endpointDelayNs = 0;     // per message bundle, every NPU, in force
  // What "cost" counts (Problem::fixedCostUsd): in the system scope every cost
  // includes npuCostUsd, N times the NPU price from npuPriceSource.
  CostScope costScope = CostScope::Network;
  double npuCostUsd = 0;
  std::string npuPriceSource;
  // Dimensions beyond their building block's physical limits (BlockLimits):
  // the design is solved, but cannot be built as given.
  std::vector<std::string> limitViolations;

  // What the workload means for training (tokens per iteration, model FLOPs,
  // memory per NPU against the device's, the pipeline bubble): the same for
  // every design of the analysis.
  TrainingFacts training;
  // Dimensions over which no collective moves bytes: they need no bandwidth,
  // so an optimum may give them none.
  std::vector<std::string> dimensionsWithoutTraffic;

  DesignResult design;                // the optimum, or the evaluated design
  std::optional<Baseline> baseline;   // its equal split
  std::vector<std::string> violated;  // constraints an evaluated design breaks
  // What one more unit of each constraint and one more GB/s on each dimension
  // is worth at the optimum (libra/sensitivity.hpp); not computed, with a note,
  // for an evaluated design.
  Sensitivity sensitivity;
  int iterations = 0;  // solver iterations
  double solveNs = 0;  // wall time of the optimization (0 when evaluated)

  ParetoFront front;  // status Optimal when computed (see frontWithinCostBudget)
  bool hasFront() const { return front.status == SolveStatus::Optimal && !front.points.empty(); }
  // The design is known (optimal or evaluated).
  bool ok() const { return evaluated || status == SolveStatus::Optimal; }
};

// Builds the problem (throws InputError / ConstraintError for bad input, as
// buildProblem) and analyzes it. A problem without solution is an Analysis
// with that status and message, not an exception.
Analysis analyze(const Project& project, const AnalysisOptions& options = {});

// A point of a front as a design of its own. `analysis` is the analysis of
// `project` with `options` (its front spanning the whole cost range, or within
// the budget); `index` picks analysis.front.points[index]. Each point is the least
// iteration time at its cost, i.e. the optimum of the project with the
// performance objective and its cost budget set to that cost (setCostBudget):
// that is the analysis returned, described as analyze() describes an optimum
// (breakdown, equal-split baseline, throughput, sensitivity at the point, where
// the cost budget's multiplier is the front's slope) without solving again. It
// keeps `analysis`'s front. (With "auto" chunk counts the front's warm-started
// points come within ~0.2 % of a fresh solve at the same budget, which may be
// slightly faster.) Throws InputError for an index out of range or a
// point that is not a design.
Analysis analyzeFrontPoint(const Project& project, const AnalysisOptions& options,
                           const Analysis& analysis, std::size_t index);

// --- the one writer of results ---------------------------------------------------
// No output ever holds NaN or infinity: a time that is not finite is written as
// null with "finite": false.

// The relative gap between the convex surrogate the solvers minimize and the
// exact schedule's time at the design: (surrogate - exact) / exact; 0 for
// LIBRA's ideal model; nullopt when a time is not finite or zero.
std::optional<double> surrogateGap(const Evaluation& eval);

// `solve --json` / `evaluate --json` (spec/cli.md keys first), or the failure
// object {"status", "message", ...} when the analysis has no design. With
// `withFront` and a front, the object also holds "pareto": paretoJson's object
// (the GUI's JSON export: one file with everything the window shows).
std::string analysisJson(const Analysis& analysis, bool withFront = false);
// `pareto --json`: {"status", "points": [...], "perf_per_cost_optimum": {...}, ...}.
std::string paretoJson(const Analysis& analysis);
// `pareto --csv`: network_cost_usd (system_cost_usd in the system cost scope),
// iteration_time_ns, bw_<name>_gbps...,
// perf_per_cost_optimum (1 on the scanned point nearest the optimum),
// tokens_per_second, model_tflops_per_npu, mfu, time_to_train_s (empty when unknown).
std::string paretoCsv(const Analysis& analysis);
// Every design of the analysis, one row each: kind (optimum, perf_per_cost_optimum,
// pareto, equal_split), the cost column of paretoCsv, iteration_time_ns, compute_time_ns,
// communication_time_ns, bw_<name>_gbps..., and the throughput columns of
// paretoCsv (the GUI's CSV export). Rows whose
// time or cost is not finite are left out: they are not designs.
std::string designsCsv(const Analysis& analysis);
// A failure as a JSON object: {"status", "objective"?, "message", "solver"?}.
std::string failureJson(const std::string& status, const std::string& message,
                        std::optional<Objective> objective = std::nullopt,
                        std::optional<Backend> backend = std::nullopt);
// The status word of the JSON output: optimal, evaluated, infeasible,
// unbounded, or error (cancelled and failed solves).
std::string statusWord(const Analysis& analysis);
std::string statusWord(SolveStatus status);
// Index of the scanned front point with the least time x cost.
std::size_t nearestFrontPoint(const ParetoFront& front);

}  // namespace libra
