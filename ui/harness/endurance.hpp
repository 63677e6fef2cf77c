// libra-studio --endurance SECONDS [--json] [PROJECT]: drives the main window
// (offscreen) with continuous edits through its widgets (EditDriver) and reports
// memory and the solver's state before and after; exits 1 when a bound is broken.
//
//  1. warm-up: edits without pause until the undo stack is full
//     (Document::kUndoLimit steps), then a checkpoint; the resident set size
//     (VmRSS) then is the baseline;
//  2. SECONDS of edits at 60 per second (a drag's pace), with a checkpoint
//     every kCheckpointEvery edits;
//  3. a last checkpoint, VmRSS and the peak (VmHWM), the autosave written and
//     read back.
// Two memory figures: the resident set, what the system sees, which also holds
// memory the allocator keeps after it was freed; and the heap in use (bytes
// malloc handed out and not freed, glibc's mallinfo2), which grows only with
// objects that are kept: the leak detector.
// A checkpoint waits (at most kCheckpointTimeoutMs) until the solver is idle
// with nothing pending and the result of the newest request has been delivered
// and, when it solved, painted: the request was answered, no job is stuck.
#pragma once

#include <libra/project.hpp>

namespace libra::studio {

struct StudioOptions;

struct EnduranceBounds {
  // Growth from the end of the warm-up to the end of the run. Measured on the
  // bundled example: resident set +7.3 MB in 60 s and +9.3 MB in 240 s, the heap
  // in use flat (-0.7 MB in 240 s).
  static constexpr long kMaxRssGrowthKb = 16L * 1024;
  static constexpr long kMaxHeapGrowthKb = 4L * 1024;
  static constexpr int kCheckpointEvery = 120;
  static constexpr int kCheckpointTimeoutMs = 30000;
};

int runEndurance(const StudioOptions& options, const Project& project);

}  // namespace libra::studio
