// Executions: the ways one workload can run on one network, and the search for
// the best one that fits the device's memory (issue 25, docs/workloads.md
// section 8). Enumerate, bound, evaluate, in separate pieces:
//
//   enumerateExecutions   every combination of tensor, pipeline (interleaved),
//                         expert and data parallelism, micro-batch at the fixed
//                         global batch, ZeRO stage, recomputation and sequence
//                         parallelism that the model and the NPU count allow,
//                         minus what the caller fixed;
//   placements            every way to lay the parallel groups onto the
//                         network's dimensions (the automatic mapping first);
//   executionBound        a lower bound on the iteration time that needs no
//                         workload: the compute of one NPU at the device's
//                         sustained rate, with the pipeline bubble;
//   searchExecutions      memory first (closed form), then in the order of the
//                         bound, each placement generated and its bandwidth split
//                         solved (or evaluated at given bandwidths); an execution
//                         whose bound is above the best time so far is pruned.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libra/presets.hpp"
#include "libra/solver.hpp"
#include "libra/training.hpp"

namespace libra {

enum class Recomputation { None, Selective, Full };
std::string_view toString(Recomputation r);  // "none", "selective", "full"

// One execution: resolved degrees (dp > 0) with their placement (the groups per
// dimension, Parallelism's tpGroups .. dpGroups), the batch split and the
// memory-saving choices.
struct Execution {
  Parallelism parallelism;
  int virtualStages = 1;
  std::int64_t microBatch = 1;  // samples per micro-batch of one replica

  Recomputation recomputation() const;
  // "TP 8 x PP 8 (v 2) x DP 64, micro-batch 1, ZeRO-1, selective recompute,
  // sequence parallel"
  std::string label() const;
  bool operator==(const Execution&) const = default;
};

// What the caller fixes; everything unset is searched. `base` carries what is
// never searched (attention kernel, MoE dispatcher and routing) and the
// preset's defaults for the rest when `searchAll` is false.
struct ExecutionChoices {
  std::optional<int> tp, cp, pp, ep;
  std::optional<int> expertTp;  // mixtures of experts; searched: 1 and TP
  std::optional<std::int64_t> dp;
  std::optional<int> zeroStage;  // 0..3
  std::optional<Recomputation> recomputation;
  std::optional<bool> sequenceParallel;
  std::optional<int> virtualStages;
  std::optional<std::int64_t> microBatch;
  bool searchPlacements = true;  // false: the automatic mapping only
  Parallelism base;
  // Bounds of the enumeration that keep it finite for any model.
  std::int64_t maxMicroBatch = 16;
  int maxVirtualStages = 8;
  int maxContextParallel = 16;
};

// Context parallelism is searched for sequences of this many tokens and more; below,
// only a fixed --cp tries it. NVIDIA's long-sequence benchmarks (NeMo,
// docs/source/performance/performance_long_sequence.md) find CP > 1 fastest from
// 32K tokens on (Llama 2 7B on H100, Llama 3 8B on B200); the search starts at half
// that. Below, CP adds as many executions again per degree (4x the search time for
// Llama 3 70B at 8K tokens) for runs that only trade data parallelism for a KV
// exchange.
inline constexpr std::int64_t kContextParallelFromTokens = 16384;

// Every execution of `preset` on `npus` NPUs (placement left automatic) that
// the model's shape allows (TP divides the heads and the hidden size, PP x v
// the blocks, EP the experts, expert TP the TP) and whose batch splits (the
// dense replicas DP x EP x ETP / TP divide the global batch). Sorted by
// degrees, then the other choices.
std::vector<Execution> enumerateExecutions(const Preset& preset, std::int64_t npus,
                                           const GeneratorOptions& generator,
                                           const ExecutionChoices& choices);

// Every placement of `execution`'s degrees onto `network`: per dimension, group
// sizes for TP, EP, PP and DP that multiply to its NPUs, and per axis to its
// degree. The automatic mapping (mapping.hpp) first; empty when the degrees do
// not fit the network.
std::vector<Parallelism> placements(const Execution& execution, const Network& network,
                                    int limit = 4096);

// A lower bound on the iteration time (ns) of every placement of `execution`
// on `network`: its compute time (the workload generated with the automatic
// placement), which no placement changes and every training loop adds
// communication to. Throws InputError when the execution cannot be generated.
double executionBound(const Preset& preset, const Execution& execution, const Device& device,
                      const Network& network, const GeneratorOptions& generator);

// The parallelism and generator options that generate `execution`.
Parallelism parallelismOf(const Execution& execution);
GeneratorOptions generatorOf(const Execution& execution, GeneratorOptions base);

struct ExecutionDesign;

// Workload tallies of executions (placeTally places one on any network), and for
// the executions whose traffic depends on the placement (tallyByAxes gives none)
// by execution, placement and dimension sizes. One per thread.
struct TallyCache {
  std::map<std::string, std::optional<AxisTally>> byExecution;
  std::map<std::string, WorkloadTally> tallies;
  std::size_t limit = 20000;  // entries kept per map; a map empties when full
};

struct ExecutionSearchOptions {
  ExecutionChoices choices;
  Device device;
  GeneratorOptions generator;
  ProjectOptions project;  // constraints, cost model, collective model of every design
  // Given: evaluate every design at these bandwidths instead of optimizing them.
  std::optional<std::vector<double>> bandwidth;
  bool ignoreMemory = false;
  bool prune = true;  // false: evaluate every execution (for tests)
  int keep = 10;      // designs kept, best first
  // The bandwidth split of each design: the performance optimum (LIBRA's), or
  // the perf-per-cost one.
  Objective objective = Objective::Performance;
  // When set, replaces the pruning rule "bound >= the best time so far": an
  // execution whose compute bound (ns) makes it dominated is skipped, with every
  // later one (they come in the order of their bounds). Must be monotone: true
  // for a bound means true for every larger one.
  std::function<bool(double boundNs)> dominated;
  // The most bandwidth each dimension can get under the constraints (+inf
  // where unbounded; empty: not known). With `dominated`, a design whose time
  // at these bandwidths is dominated is pruned before its solve.
  std::vector<double> bandwidthCeiling;
  // The most bandwidth all dimensions together can get under the constraints
  // (+inf: not known). Every dimension moves its bytes at no more than its
  // bandwidth, so with the ceilings it bounds a design's time from below too.
  double bandwidthTotalCeiling = std::numeric_limits<double>::infinity();
  // Reused tallies for the no-overlap loop (nullptr: none).
  TallyCache* tallies = nullptr;
  // Called with each design solved (codesign collects its fronts from these).
  std::function<void(const ExecutionDesign&)> found;
  SolveOptions solver;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};

struct ExecutionDesign {
  Execution execution;
  Solution solution;  // performance optimum (or the evaluation at the given bandwidths)
  MemoryEstimate memory;
  double boundNs = 0;
};

struct ExecutionSearch {
  std::vector<ExecutionDesign> designs;  // best first (least iteration time)
  std::int64_t enumerated = 0;           // executions x placements
  std::int64_t evaluated = 0;            // generated and solved
  std::int64_t pruned = 0;               // skipped by the bound
  std::int64_t overMemory = 0;           // refused by the memory check
  std::int64_t failed = 0;               // generation or solve failed (e.g. infeasible)
  std::string firstFailure;              // one such message
  bool cancelled = false;
  std::optional<MemoryEstimate> leastMemory;  // the smallest need, when nothing fits
};

// Searches the executions of `preset` on `network`. Throws InputError when the
// choices themselves are invalid (a fixed degree that does not divide the NPUs).
ExecutionSearch searchExecutions(const Preset& preset, const Network& network,
                                 const ExecutionSearchOptions& options);

// The part of the search that does not depend on the network's shape: the
// executions of `npus` NPUs that fit the memory, each with its compute bound,
// least bound first. `libra codesign` prepares once per NPU count and searches
// every shape with searchPrepared.
struct ExecutionCandidate {
  Execution execution;
  MemoryEstimate memory;
  double boundNs = 0;  // executionBound
  // Its tally for every placement (tallyByAxes) under the no-overlap loop;
  // empty otherwise, and where the traffic depends on the placement.
  std::optional<AxisTally> tally;
};
struct PreparedExecutions {
  std::vector<ExecutionCandidate> candidates;
  std::int64_t overMemory = 0;
  std::int64_t failed = 0;
  std::string firstFailure;
  std::optional<MemoryEstimate> leastMemory;
};
PreparedExecutions prepareExecutions(const Preset& preset, std::int64_t npus,
                                     const ExecutionSearchOptions& options);
ExecutionSearch searchPrepared(const Preset& preset, const Network& network,
                               const PreparedExecutions& prepared,
                               const ExecutionSearchOptions& options);

}  // namespace libra
