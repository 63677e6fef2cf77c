// Waiting in the harness's runs (headless latency, endurance) for what the
// window does, without spinning.
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

namespace libra::studio {

// Spins the event loop until `done` holds or `timeoutMs` pass.
template <typename Predicate>
bool waitUntil(Predicate done, int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  // Sleeps until an event comes, as the window's own event loop does; the
  // ticks wake it to look again. (processEvents with a time limit would spin:
  // it drops WaitForMoreEvents, and the spinning thread's CPU time would count
  // as the window's.)
  QTimer tick;
  tick.setTimerType(Qt::PreciseTimer);
  tick.start(1);
  while (!done()) {
    if (timer.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
  }
  return true;
}

}  // namespace libra::studio
