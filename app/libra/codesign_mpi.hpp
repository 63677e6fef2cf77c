// `mpirun -n P libra codesign ...` (built with -DLIBRA_WITH_MPI=ON): the
// co-design's work units (engine/analysis/include/libra/codesign.hpp, CodesignWork)
// spread over P processes. Rank 0 hands out units one at a time to whichever
// thread of whichever process asks next (dynamic load balancing), with the keys
// of the best designs merged so far for pruning, and merges the results; its
// own --jobs threads take units from the same counter. Every rank enumerates
// the shapes and prepares the executions itself (deterministic), so a unit
// travels as its index and a result as its designs. Rank 0 prints what one
// process prints; the counts evaluated and pruned and the wall time depend on
// the order the units ran in (docs/commands.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include "libra/codesign.hpp"

namespace libra::cli {

// Whether an MPI launcher (Open MPI's mpirun, or one that sets PMI_RANK /
// PMIX_RANK) started this process; false in a build without MPI.
bool launchedByMpi();

// The rank the launcher gave this process (0 without one).
int launcherRank();

// MPI from construction (MPI_Init_thread) to destruction (MPI_Finalize).
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Runs the co-design on every process, `jobs` threads each. Rank 0 returns
  // the result (progress and cancel work there as in runCodesign; the other
  // ranks finish the unit they have); the other ranks return nullopt.
  std::optional<CodesignResult> runCodesign(
      const CodesignOptions& options, int jobs,
      const std::function<void(std::int64_t, std::int64_t)>& progress = {},
      const std::atomic<bool>* cancel = nullptr);

 private:
  int rank_ = 0;
  int size_ = 1;
  bool threadsMayCallMpi_ = false;  // MPI_THREAD_SERIALIZED provided
};

}  // namespace libra::cli
