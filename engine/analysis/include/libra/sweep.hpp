// Design-space sweep: every network shape for a number of NPUs, solved for both
// objectives with a workload generated from a preset, and ranked.
//
// Shapes: ordered factorizations N = n_0 * ... * n_{D-1} with every n_d >= 2, for
// D = minDims..maxDims, times one building block per dimension from the allowed
// list. Cost levels by position: a D-dimensional shape takes the outermost D of
// `costLevels` in order, so its last dimension always gets the last level
// (InterPod with the reference prices). See docs/workloads.md section 7.
//
// Shapes that cannot hold the preset's parallelism, that put a Switch on a level
// without Switch and Nic prices, whose constraints do not apply, or whose solve
// fails are skipped and counted by reason; they never fail the sweep.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "libra/cost.hpp"
#include "libra/network.hpp"
#include "libra/presets.hpp"
#include "libra/solver.hpp"
#include "libra/training.hpp"

namespace libra {

struct SweepOptions {
  Preset preset;
  Parallelism parallelism;  // dp = 0: derived per shape; hand-given groups are not allowed
  Device device;
  GeneratorOptions generator;
  std::int64_t npus = 0;
  int minDims = 2;
  int maxDims = 4;
  std::vector<BuildingBlock> blocks{BuildingBlock::Ring, BuildingBlock::FullyConnected,
                                    BuildingBlock::Switch};
  CostModel costModel = referenceCostModel();
  CostScope costScope = CostScope::Network;  // "system" adds N * the NPU price to every cost
  std::optional<double> npuPriceUsd;         // else the device's list price
  // Innermost first; a D-dimensional shape uses the last D entries.
  std::vector<std::string> costLevels{"InterChiplet", "InterPackage", "InterNode", "InterPod"};
  std::vector<std::string> constraints;  // empty: {"total == 500"}
  // Recompute is realized by the generator, as in makeProject.
  TrainingLoop loop = TrainingLoop::NoOverlap;
  // The collective model, as in makeProject; each dimension's link latency is
  // its building block's default (defaultLinkLatencyNs) unless `latencyNs`
  // gives one value for all dimensions (a list of one; per-dimension values do
  // not fit shapes of different dimension counts).
  CollectiveModel collectives = defaultCollectiveModel();
  std::optional<double> latencyNs;
  // Every shape's endpoint delay per message bundle; none: defaultEndpointDelayNs.
  std::optional<double> endpointDelayNs;
  // Shapes beyond a building block's physical limits are skipped, with the reason.
  BlockLimits limits;
  // The memory per NPU depends on the degrees and the batch only, the same for
  // every shape: unless this is set, a parallelism that does not fit the
  // device's memory fails the sweep before it starts (InputError).
  bool ignoreMemory = false;
  int jobs = 0;  // worker threads; 0 = std::thread::hardware_concurrency()
};

struct SweepShape {
  Network network;
  std::string label;                 // e.g. "Ring 16 x FC 8 x Switch 32"
  Solution performance;              // least iteration time
  Solution perfPerCost;              // least iteration time x cost
  Throughput performanceThroughput;  // of `performance` (SweepResult::training)
  Throughput perfPerCostThroughput;
  std::vector<std::string> dimensionsWithoutTraffic;  // names of dims no collective uses
};

struct SweepResult {
  std::vector<SweepShape> shapes;  // solved shapes, in enumeration order
  int enumerated = 0;              // shapes enumerated (solved + skipped + not run)
  int skipped = 0;
  std::map<std::string, int> skipReasons;          // reason -> count
  std::map<std::string, std::string> skipExample;  // reason -> one full message
  std::vector<int> byTime;      // indices into shapes, least iteration time first
  std::vector<int> byTimeCost;  // indices into shapes, least time x cost first
  bool cancelled = false;       // shapes not run are neither solved nor skipped
  double wallSeconds = 0;
  TrainingFacts training;  // tokens per iteration, model FLOPs, memory: every shape's
};

// The training facts every shape of the sweep shares (sweepTrainingFacts is what
// runSweep reports in SweepResult::training). Throws InputError when the preset
// cannot use the parallelism at all.
TrainingFacts sweepTrainingFacts(const SweepOptions& options);

// Ordered factorizations of n into exactly `dims` factors, each >= 2, in
// lexicographic order.
std::vector<std::vector<int>> orderedFactorizations(std::int64_t n, int dims);

// The shapes runSweep visits, in its order. Throws InputError for invalid options.
std::vector<Network> enumerateShapes(const SweepOptions& options);

// Runs the sweep on `jobs` threads (one native solve per thread at a time).
// `progress(done, total)` is called on the calling thread, at most ~10 times a
// second and once at the end. Setting *cancel stops the sweep; the result then
// holds what was finished. Throws InputError when the options themselves are
// invalid (unknown constraint syntax, a parallelism the preset cannot use at all).
SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int done, int total)>& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

}  // namespace libra
