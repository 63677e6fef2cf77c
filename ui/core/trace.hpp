// Tracing of the steps from a change to a painted frame, on every thread.
#pragma once

namespace libra::studio {

// With LIBRA_STUDIO_TRACE set, prints "<ms since start> <thread CPU ms> <what>" to
// stderr: the steps from a slider change to a painted frame (setTotal,
// submitted, job start/design/front on the solver thread, result, frame,
// applied, texts, status, paint <chart>, painted <chart>), for finding where
// latency goes. Off, it costs one branch.
void traceEvent(const char* what);
bool traceOn();
// CPU time of the calling thread (ms): what it spends, apart from waiting,
// whatever else the machine runs.
double threadCpuMs();

}  // namespace libra::studio
