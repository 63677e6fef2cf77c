// Readers for the reference LIBRA inputs (yml network, cost model and
// communicator, workload txt) and the earlier ASTRA-sim 1.0 / SC22 inputs (json
// network and cost model, workload txt with two header lines).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
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

// The same readers from text already in memory (the file readers read the file
// and call these): `source` names the text in messages. YAML and JSON nested
// deeper than 64 levels are refused with the position of the level too many.
NetworkFile readNetworkText(std::string_view text, const std::string& source);
CostModel readCostModelText(std::string_view text, const std::string& source);
Communicator readCommunicatorText(std::string_view text, const std::string& source,
                                  const Network& network);

struct WorkloadFile {
  Workload workload;
  // From an ASTRA-sim 1.0 header: the parallelism line and the model-parallel
  // (tensor-parallel) group size, when present.
  std::optional<std::string> parallelism;
  std::optional<int> modelParallelGroup;
};
WorkloadFile readWorkloadFile(const std::filesystem::path& path);
// The same from text: `file` names it in messages, `name` becomes the workload's.
WorkloadFile readWorkloadText(std::string_view text, const std::string& file,
                              const std::string& name);

// The ASTRA-sim 1.0 text form of a workload, the format readWorkloadFile reads:
// the parallelism line, the layer count, then one layer per line. The parallelism
// line says how the collectives map onto the network, as readWorkloadFile and
// importLibra derive the communicator back from it:
//   DATA                      weight-gradient collectives over every NPU (no tensor
//                             parallelism);
//   MODEL                     forward and input-gradient collectives over every NPU;
//   HYBRID_TRANSFORMER model_parallel_NPU_group: T
//                             tensor parallel over T NPUs from the inside out, data
//                             parallel over the rest (deriveCommunicator).
// Compute times, sizes and update times are written as whole ns and bytes (ASTRA-sim
// and Chakra's text converter read integers); whitespace in a layer name becomes '_'.
struct AstraSim1Workload {
  std::string text;
  std::string parallelism;                // DATA, MODEL or HYBRID_TRANSFORMER
  std::optional<int> modelParallelGroup;  // T, for HYBRID_TRANSFORMER
  int roundedValues = 0;                  // values that were not whole numbers
  int renamedLayers = 0;                  // layer names that had to change
};
// Why `workload` cannot be written in that format on `network` (nullopt when it
// can): a phase with its own group sizes (the format has one communicator per
// file), or a communicator that no parallelism line describes.
std::optional<std::string> astraSim1Limitation(const Workload& workload, const Network& network);
// Throws InputError with astraSim1Limitation's reason, or naming the layer whose
// value does not fit a 64-bit integer.
AstraSim1Workload writeAstraSim1Workload(const Workload& workload, const Network& network);

// Tensor parallel over `tensorParallel` NPUs from the inside out (forward and
// input gradient), data parallel over the rest from the outside in (weight gradient),
// splitting a dimension between them when needed. Throws InputError when the
// degree does not divide the network.
Communicator deriveCommunicator(const Network& network, std::int64_t tensorParallel);

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
