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
// when that lower bound on its key (time, or time x cost) is no better than
// the last of the best 4 x --top designs found; a placement is skipped on a
// stronger bound from its traffic and the shape's bandwidth ceilings. So the
// best --top designs are those of the exhaustive search, and so is the Pareto
// front of cost against time where it is faster than the last of them;
// `prune = false` (--exhaustive) gives the whole front (docs/workloads.md
// section 9).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
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

// Runs the co-design on `jobs` threads (options.shapes.jobs; 0 = every core).
// `progress(done, total)` counts shapes, on the calling thread. *cancel stops
// it with what was found. Throws InputError for invalid options.
CodesignResult runCodesign(const CodesignOptions& options,
                           const std::function<void(std::int64_t, std::int64_t)>& progress = {},
                           const std::atomic<bool>* cancel = nullptr);

}  // namespace libra
