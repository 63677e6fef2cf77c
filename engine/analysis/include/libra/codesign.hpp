// Co-design (issue 25): the best network shape together with the best way to
// run the workload on it. For each NPU count, every shape the sweep enumerates
// (sweep.hpp) gets the execution search (execution.hpp): every execution that
// fits the device's memory, every placement of its groups, each with its
// bandwidth split solved under the constraints.
//
// Pruning uses valid lower bounds only. An execution's compute time alone
// (executionBound) is a lower bound on its iteration time on every shape, and
// a shape's least cost under the constraints (an LP) one on its cost. An
// execution on a shape is skipped, with every execution of a larger bound,
// when that lower bound on its key (time, or time x cost) is above the last of
// the best 4 x --top designs found; a placement is skipped on a stronger bound
// from its traffic and the shape's bandwidth ceilings. So every design whose
// key is at most that of the last of the 4 x --top best is evaluated: the best
// designs are those of the exhaustive search, and so is the Pareto front of
// cost against time up to that key, where the front listed stops (beyond, what
// was found depended on the order of the search). `prune = false`
// (--exhaustive) gives the whole front (docs/workloads.md section 9). The
// result does not depend on the number of threads or processes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libra/execution.hpp"
#include "libra/project.hpp"
#include "libra/sweep.hpp"

namespace libra {

struct CodesignOptions {
  // The preset, device, generator, dimension range, blocks, cost model and
  // levels, constraints (empty: total == 500), training loop, collective model,
  // latency, block limits, cost scope and NPU price of every shape; `npus` and
  // `parallelism` are not read (see below).
  SweepOptions shapes;
  std::vector<std::int64_t> npus;  // one or more NPU counts
  ExecutionChoices choices;        // what is fixed; the rest is searched
  // Performance: least iteration time (= least time to train: the global batch
  // and the token budget are fixed). PerfPerCost: least time x cost in the cost
  // scope; each design's split is then its perf-per-cost optimum.
  Objective objective = Objective::Performance;
  bool prune = true;  // false: every execution and placement (the whole front)
  int top = 10;       // designs listed besides the Pareto front
  // Every design solved (pruned ones are never solved) is kept in
  // CodesignResult::points, up to this many (0: none); for a design-space plot.
  std::size_t keepPoints = 0;
};

// One solved design, as a design-space plot shows it: where it lies (cost,
// time to train) and what it is (shape, execution, bandwidths), so that it can
// be opened as a project (designProject).
struct CodesignPoint {
  std::size_t shape = 0;  // its shape's index in the enumeration
  std::int64_t npus = 0;
  Network network;
  std::string label;  // the shape, "Ring 4 x FC 8 x Switch 128"
  Execution execution;
  std::vector<double> bandwidth;  // GB/s per NPU per dimension
  double iterationNs = 0;
  double costUsd = 0;  // in the cost scope
  double networkCostUsd = 0;
  double timeToTrainS = 0;  // NaN when the workload has no token budget
};

struct CodesignDesign {
  std::int64_t npus = 0;
  Network network;
  std::string label;                          // "Ring 4 x FC 8 x Switch 128"
  std::vector<std::string> equivalentShapes;  // same time and cost, other blocks
  Execution execution;                        // with its placement
  Solution solution;
  MemoryEstimate memory;
  double networkCostUsd = 0;
  double systemCostUsd = 0;  // network + N x the NPU price; = network when unknown
  double costUsd = 0;        // in the cost scope: what the objective and the front use
  Throughput throughput;
  double timeToTrainS() const;  // from throughput, else NaN
};

// Whether a solved point has `design`'s time (to 1e-12 of it) and cost: how a
// plot of the points finds the front's designs among them.
bool sameTimeAndCost(const CodesignPoint& point, const CodesignDesign& design);

struct CodesignResult {
  std::vector<CodesignDesign> designs;  // best first by the objective
  std::vector<int> pareto;              // indices into designs: the front, cheapest first
  std::int64_t shapes = 0;              // shapes enumerated over every NPU count
  std::int64_t shapesSearched = 0;      // shapes whose search ran
  std::int64_t evaluated = 0;           // designs solved (execution x placement x shape)
  std::int64_t pruned = 0;              // designs skipped by dominance
  std::int64_t overMemory = 0;          // executions refused by the memory check
  std::int64_t failed = 0;              // designs whose generation or solve failed
  std::map<std::string, std::int64_t> skipReasons;  // shapes skipped, by reason
  std::map<std::string, std::string> skipExample;
  std::string firstFailure;
  std::optional<MemoryEstimate> leastMemory;  // when no execution fits
  bool cancelled = false;
  double wallSeconds = 0;
  std::vector<CodesignPoint> points;  // with keepPoints: the designs solved, in no order
  std::int64_t pointsLeftOut = 0;     // solved beyond keepPoints
  // Whether designs[k] is on the front.
  bool onFront(std::size_t k) const;
};

// The co-design of a project's first workload as the project poses it: its
// model, device, batch and run settings (precision, attention, dispatcher) with
// every degree searched, on its NPU count, with its cost model and scope, NPU
// price, training loop and chunks, and its constraint on the total bandwidth
// per NPU when it has one ("total ..."; else none: total == 500). Dimension
// counts 2 to the project's. Throws InputError when the workload was not
// generated from a model (a trace has no model to search executions of).
CodesignOptions codesignOptionsOf(const Project& project);

// The project of one design: the options' workload run with `execution` on
// `network`, with the options' constraints (total == 500 when none), objective,
// cost model and scope; its solve gives the design's bandwidths. What
// `--save-scenarios` writes and the GUI opens.
Project designProject(const CodesignOptions& options, const Network& network,
                      const Execution& execution);

// "TP on node (8); PP on pod (8); DP on package (16) x pod (4 of 8)": where the
// groups of each parallel axis lie on `network`; "one NPU" when no group spans two.
std::string placementText(const Network& network, const Parallelism& parallelism);

// The designs listed (result.designs, best first), one CSV row each, with their
// rank and whether they are on the front (`libra codesign --csv`).
std::string codesignCsv(const CodesignResult& result);
// Every design solved (result.points), one CSV row each, with whether it has the
// time and cost of a design on the front: what the GUI's Design Space tab draws.
std::string designSpaceCsv(const CodesignResult& result);

// Runs the co-design on `jobs` threads (options.shapes.jobs; 0 = every core).
// `progress(done, total)` counts shapes, on the calling thread. *cancel stops
// it with what was found. Throws InputError for invalid options.
CodesignResult runCodesign(const CodesignOptions& options,
                           const std::function<void(std::int64_t, std::int64_t)>& progress = {},
                           const std::atomic<bool>* cancel = nullptr);

// --- the co-design as independent work units -------------------------------------
// runCodesign, and `libra codesign` under MPI (app/libra/codesign_mpi.cpp), run
// the same units: the shapes of one factorization each (they differ only in
// their blocks and share their workload tallies). A unit is searched with a
// collector of its own, which prunes against the 4 x --top-th best key of its
// own designs and those merged so far (possibly stale: every value that key
// ever had is a valid bound); what that collector keeps (its best designs and
// its front) is merged into the run's. Pruning is strict (a design is skipped
// only when a lower bound on its key is above the bound), so every design whose
// key is at most the final 4 x --top-th key is evaluated whatever the order of
// the units; merging is independent of the order (ties broken by shape, then the
// search's order), and the front listed stops at that key. So the designs and
// the front do not depend on the threads, the processes or the order the units
// ran in; the counts of designs evaluated, pruned and failed do.
struct CodesignCandidate {
  CodesignDesign design;   // npus, network and label are filled in by merge()
  std::size_t shape = 0;   // index of its shape in the enumeration
  std::int64_t order = 0;  // its place among the designs its shape's search found
};

struct CodesignUnitResult {
  std::size_t unit = 0;
  std::vector<CodesignCandidate> candidates;  // what the unit's collector kept
  std::int64_t shapesSearched = 0;
  std::int64_t evaluated = 0;
  std::int64_t pruned = 0;
  std::int64_t failed = 0;
  std::string firstFailure;
  std::map<std::string, std::int64_t> skipReasons;
  std::map<std::string, std::string> skipExample;
  bool cancelled = false;
  // With CodesignOptions::keepPoints: the designs the unit solved (merge fills
  // in their networks); an in-process run's only (not sent between processes).
  std::vector<CodesignPoint> points;
};

class CodesignWork {
 public:
  // Enumerates the shapes and prepares the executions of every NPU count (each
  // process of a distributed run does the same, deterministically). A unit is
  // the shapes of one factorization; where that gives fewer than `minUnits`
  // units, a piece of at most shapes / minUnits of them (more units to spread
  // over many processes; each piece tallies its workloads itself). Throws
  // InputError for invalid options.
  explicit CodesignWork(const CodesignOptions& options, const std::atomic<bool>* cancel = nullptr,
                        std::size_t minUnits = 0);
  ~CodesignWork();
  CodesignWork(const CodesignWork&) = delete;
  CodesignWork& operator=(const CodesignWork&) = delete;

  std::size_t units() const;
  std::int64_t shapes() const;  // over every unit

  // Searches one unit. It prunes against the 4 x --top-th best key (iteration
  // time, or time x cost) of its own designs, those merged, those of the units
  // running here (shared once per shape) and `outside()` (may be empty; called
  // once per shape): the keys of the best designs found elsewhere, ascending. `shapesDone` (may be
  // null) is incremented per shape. Thread-safe.
  CodesignUnitResult run(std::size_t unit, const std::function<std::vector<double>()>& outside = {},
                         std::atomic<std::int64_t>* shapesDone = nullptr);
  // Adds a unit's result; the same units in any order give the same result.
  // Thread-safe.
  void merge(CodesignUnitResult result);
  // The keys of the best designs merged so far, ascending (at most 4 x --top):
  // what run() prunes against.
  std::vector<double> bestKeys() const;
  // The designs and the front of everything merged, with the counts.
  CodesignResult finish(bool cancelled);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace libra
