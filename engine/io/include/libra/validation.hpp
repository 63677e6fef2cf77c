// Validation of the collective model against simulator runs: a data set of
// single collectives with the time ASTRA-sim 2 simulated for each
// (tests/data/astra-sim/validation.json, see its README), and the time this
// engine's chunked schedule gives for the same case.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "libra/network.hpp"
#include "libra/workload.hpp"

namespace libra {

struct ValidationCase {
  int index = 0;                      // position in the data set
  std::string set;                    // e.g. "zero-latency", "latency", "endpoint-delay-10"
  std::string networkName;            // e.g. "R4-FC8"
  Network network;                    // blocks, NPUs and link latencies
  std::vector<double> bandwidthGbps;  // our per-NPU bandwidth per dimension
  CollectiveType collective = CollectiveType::AllReduce;
  double sizeBytes = 0;  // model.md's S (All-Gather: the per-NPU shard)
  int chunks = 1;
  double endpointDelayNs = 0;
  double simulatedNs = 0;
};

struct ValidationData {
  std::string description;  // metadata.description
  std::string simulator;    // metadata.astra_sim: the simulator's sources
  std::vector<ValidationCase> cases;
};

// Reads a data set. Throws InputError naming the file, the case and the key.
ValidationData readValidationData(const std::filesystem::path& path);

// The time of the case's collective by this engine's chunked schedule
// (collectiveStages + Schedule::time with the case's chunk count), all groups
// spanning their whole dimension.
double modelTime(const ValidationCase& c);
// LIBRA's ideal model for the same case: max over dimensions of V_d / bw_d.
double idealTime(const ValidationCase& c);

}  // namespace libra
