// Readers for the reference LIBRA inputs (yml network, cost model and
// communicator, workload txt) and the earlier ASTRA-sim 1.0 / SC22 inputs (json
// network and cost model, workload txt with two header lines).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "libra/project.hpp"

namespace libra {

// Network from LIBRA yml (Topology / NpusCount / CostDimension) or SC22 json
// (npus-count / topology / network-type), chosen by content.
Network readNetworkFile(const std::filesystem::path& path);

struct NetworkFile {
  Network network;
  // The bandwidth budget an SC22 json network carries ("total-bandwidth", GB/s per
  // NPU summed over the dimensions); LIBRA yml networks have none.
  std::optional<double> totalBandwidth;
};
// readNetworkFile plus what the file says beyond the network itself.
NetworkFile readNetworkFileWithBudget(const std::filesystem::path& path);

// Cost model from yml or json: one map per level with Link / Switch / Nic.
CostModel readCostModelFile(const std::filesystem::path& path);
// Communicator yml: Forward / InputGrad / WeightGrad, one group size per dim (-1 = unused).
Communicator readCommunicatorFile(const std::filesystem::path& path, const Network& network);

struct WorkloadFile {
  Workload workload;
  // From an ASTRA-sim 1.0 header: the parallelism line and the model-parallel
  // (tensor-parallel) group size, when present.
  std::optional<std::string> parallelism;
  std::optional<int> modelParallelGroup;
};
WorkloadFile readWorkloadFile(const std::filesystem::path& path);

// Tensor parallel over `tensorParallel` NPUs from the inside out (forward and
// input gradient), data parallel over the rest from the outside in (weight gradient),
// splitting a dimension between them when needed. Throws InputError when the
// degree does not divide the network.
Communicator deriveCommunicator(const Network& network, int tensorParallel);

struct ImportOptions {
  std::filesystem::path network;
  std::filesystem::path workload;
  std::optional<std::filesystem::path> communicator;
  std::optional<std::filesystem::path> costModel;
  TrainingLoop trainingLoop = TrainingLoop::NoOverlap;
  std::optional<std::string> name;
};
// Builds a validated project from the reference inputs. What the inputs leave open
// is filled with stated defaults (a communicator derived from the workload
// header, the reference unit prices, a bandwidth budget); when `notes` is given,
// one human-readable sentence per such decision is appended to it, for the
// caller to show.
Project importLibra(const ImportOptions& options, std::vector<std::string>* notes = nullptr);

}  // namespace libra
