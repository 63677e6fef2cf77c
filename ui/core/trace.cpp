#include "trace.hpp"

#include <QElapsedTimer>
#include <QtGlobal>
#include <cstdio>
#include <ctime>

namespace libra::studio {

double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

bool traceOn() {
  static const bool on = qEnvironmentVariableIsSet("LIBRA_STUDIO_TRACE");
  return on;
}

void traceEvent(const char* what) {
  if (!traceOn()) return;
  // One clock for every thread; started by the first event, whichever thread
  // sends it (a function-local static is initialized once, thread-safely).
  static const QElapsedTimer clock = [] {
    QElapsedTimer t;
    t.start();
    return t;
  }();
  // The calling thread's CPU time beside the wall time: what a step costs even
  // on a loaded machine.
  std::fprintf(stderr, "%10.3f %10.3f %s\n", static_cast<double>(clock.nsecsElapsed()) / 1e6,
               threadCpuMs(), what);
}

}  // namespace libra::studio
