// Waiting for the window to show what the solver computed last: one rule for
// every GUI test.
#pragma once

#include <QElapsedTimer>
#include <QTest>

#include "charts.hpp"
#include "explorer_controller.hpp"
#include "main_window.hpp"
#include "results_view.hpp"
#include "solver_controller.hpp"

namespace libra::studio::test {

// True once, within `timeoutMs`, nothing is left to solve and the window shows
// the newest result (its front too, unless `withFront` is false: an infeasible
// answer has none) and, if `painted`, has painted it (a chart in a hidden tab
// is not painted). The generation waited for is read
// again each time: an edit whose front is slow is answered with a coarse front
// first and the project's own front in a newer generation.
inline bool waitForCurrentFrame(MainWindow& window, int timeoutMs, bool withFront = true,
                                bool painted = true) {
  SolverController* solver = window.explorer()->solver();
  ResultsView* results = window.results();
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < timeoutMs) {
    const quint64 want = solver->latestGeneration();
    const auto& frames = results->paretoChart()->paintedGenerations();
    const bool front =
        !withFront || (results->shownFront() && results->shownFront()->generation == want);
    const bool drawn = !painted || (!frames.isEmpty() && frames.back() == want);
    if (!solver->isBusy() && results->shownGeneration() == want && front && drawn) return true;
    QTest::qWait(5);
  }
  return false;
}

}  // namespace libra::studio::test
