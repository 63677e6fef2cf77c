// The training iteration of a workload as Chakra execution traces for ASTRA-sim 2:
// a plain JSON node list that the export writes next to a small Python script
// (kAstraChakraScript) which turns it into one `.et` file per NPU with Chakra's own
// protobuf bindings. The engine needs neither protobuf nor Chakra.
//
// What ASTRA-sim 2 reads (astra-sim/workload/Workload.cc at the commits of
// tests/data/astra-sim/README.md): a COMP_NODE's `duration_micros` in whole
// microseconds (it multiplies by 1000; 0 becomes 1 ns), a COMM_COLL_NODE's
// `comm_type`, `comm_size` (bytes; for All-Gather the per-NPU shard) and
// `involved_dim` (one bool per dimension of network.yml), and `data_deps`.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "libra/network.hpp"
#include "libra/time_model.hpp"
#include "libra/workload.hpp"

namespace libra {

// A dimension of the network ASTRA-sim is given. A physical dimension on which
// the groups use parts (a group of g NPUs s apart, g s < n or s > 1) is written
// as several dimensions, one per part, innermost (stride 1) first: NPU numbering
// stays the same, and each part gets the bandwidth share and hop count the model
// gives that group (placementShare, placementHops of collective_model.hpp).
struct AstraLogicalDim {
  int physical = 0;  // index of the project's dimension
  int npus = 1;      // the part's size
  int stride = 1;    // NPUs of the physical dimension between neighbours of the part
};

struct AstraLogicalNetwork {
  std::vector<AstraLogicalDim> dims;  // innermost first
  Network network;                    // the dimensions as ASTRA-sim sees them
  std::vector<double> bandwidthGbps;  // per-NPU GB/s of each, as astraNetworkYml takes it
  bool split = false;                 // some physical dimension became several
};

// The logical network for the collectives of `workloads` on `network` at `bw`.
// Throws InputError naming the workload, layer, phase and dimension when a group
// uses a part of a dimension that does not fit the parts other groups use (two
// different sizes at one stride, or a whole dimension another group uses a part of).
AstraLogicalNetwork astraLogicalNetwork(const Network& network, std::span<const double> bw,
                                        std::span<const Workload> workloads);

struct AstraTraceNode {
  enum class Kind { Compute, Collective };
  Kind kind = Kind::Compute;
  std::string name;
  long long durationMicros = 0;  // Compute
  CollectiveType collective = CollectiveType::None;
  long long commSizeBytes = 0;
  std::vector<bool> involvedDims;  // one per logical dimension
  double predictedNs = 0;          // this tool's time for the collective alone
};

// One workload's iteration as a serial chain (each node depends on the one before),
// which is what the no-overlap and recompute training loops predict: compute plus
// every collective, one after another.
struct AstraTrace {
  std::string workload;
  std::vector<AstraTraceNode> nodes;
  double computeNs = 0;         // the exact compute of the iteration
  long long computeMicros = 0;  // what the compute nodes hold (|difference| <= 500 ns)
  double communicationNs = 0;   // the collectives' predicted times
  double predictedNs = 0;       // computeNs + communicationNs: this tool's iteration time
  int roundedSizes = 0;         // collective sizes that were not whole bytes
};

// Why `workload` cannot be written as such a trace, or nothing: the overlap loop
// (its weight-gradient queue is not a chain), point-to-point sends.
std::optional<std::string> astraTraceLimitation(const Workload& workload,
                                                const ModelOptions& options);

// The trace of `workload` with the collective model `options.collectives` (the
// export fixes its chunk count) at bandwidth `bw` on `network`, its dimensions
// mapped to `logical`. Compute between two collectives is one node, rounded to
// whole microseconds so that the sum of all compute nodes is the iteration's
// compute rounded (each node takes round(end) - round(start) of the running sum;
// nodes of 0 us are left out). Throws InputError with astraTraceLimitation's reason.
AstraTrace astraIterationTrace(const Workload& workload, const Network& network,
                               std::span<const double> bw, const ModelOptions& options,
                               const AstraLogicalNetwork& logical);

// The JSON node list kAstraChakraScript reads: format "libra-astra-iteration",
// npus, dimensions, the predicted times and `nodes` (id, name, type, deps,
// duration_micros or comm_type / comm_size / involved_dim / predicted_ns).
std::string astraTraceJson(const AstraTrace& trace, const AstraLogicalNetwork& logical);

// The chunk count (preferred-dataset-splits) nearest to `preferred` (by ratio; the
// smaller on a tie) in 1..kMaxChunks that divides every size in `sizes` and leaves
// chunks of at least `npus` bytes (ASTRA-sim enlarges smaller chunks, All-Gather
// aside), so that ASTRA-sim runs exactly that many chunks of
// equal size. Falls back to `preferred` when no count qualifies.
struct AstraChunkedSize {
  long long bytes = 0;
  bool allGather = false;  // ASTRA-sim takes All-Gather chunks of any size
};
int astraDivisibleSplits(int preferred, std::span<const AstraChunkedSize> sizes, long long npus);

// The Python 3 script written as iteration/chakra_traces.py: `chakra_traces.py
// NODES.json PREFIX` writes PREFIX.<npu>.et for every NPU (hard links to one file:
// every NPU runs the same trace). Run with PYTHONPATH=<astra-sim source tree>.
extern const char* const kAstraChakraScript;

}  // namespace libra
