// Flags and pieces shared by the commands that enumerate network shapes
// (`libra sweep` and `libra codesign`): the dimension range, the building
// blocks, the checks that refuse a range or a constraint no shape can take,
// Ctrl-C, and the JSON of a network.
#pragma once

#include <atomic>
#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "libra/network.hpp"
#include "libra/result_json.hpp"
#include "libra/sweep.hpp"
#include "output.hpp"

namespace libra::cli {

inline constexpr std::int64_t kMinNpus = 4;
inline constexpr std::int64_t kMaxNpus = std::int64_t{1} << 30;
inline constexpr int kMinDims = 2;
inline constexpr int kMaxJobs = 4096;

// --- Ctrl-C ----------------------------------------------------------------------

// Set by the SIGINT handler and read by the workers and solves. A lock-free
// atomic is safe to store to from a signal handler.
extern std::atomic<bool> gInterrupted;

// Installs the handler for the duration of a run. SA_RESETHAND restores the
// default action after the first Ctrl-C, so a second one ends the program at once.
class InterruptHandler {
 public:
  InterruptHandler();
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

// --- flags -----------------------------------------------------------------------

struct DimRange {
  int min = 0;
  int max = 0;
};

// --dims MIN..MAX or one count, each from kMinDims to maxDims.
DimRange parseDims(const std::string& text, int maxDims);
// --blocks Ring,FullyConnected,Switch (FC for short), each at most once.
std::vector<BuildingBlock> parseBlocks(const std::string& text);
// Refuses a range in which N has no shape at all; notes the counts without one.
void checkFactorizations(std::int64_t npus, const DimRange& dims, std::vector<std::string>& notes);
// Refuses a constraint that parses on no shape (bad syntax, or a dimension no
// shape has): it would skip every shape.
void checkConstraints(const SweepOptions& options);
// The model flags (--chunks, --latency, --endpoint-delay, --cost-scope,
// --npu-price) on every shape; --latency takes one value, as the shapes differ
// in dimension count.
void applyModelFlags(const ModelFlags& flags, SweepOptions& shapes);
// --jobs N (1 to kMaxJobs); empty: every core.
int parseJobs(const std::string& text);

// --- output ----------------------------------------------------------------------

std::string blockList(const std::vector<BuildingBlock>& blocks);  // "Ring, Switch"
std::string bandwidthText(const std::vector<double>& bw);         // "300.0 / 150.0"
// The JSON pieces of results (numbers as null when not finite, the network's
// dimensions, batch, memory and throughput keys): libra/result_json.hpp.
using result_json::networkJson;
using result_json::number;
using result_json::optionalNumber;

}  // namespace libra::cli
