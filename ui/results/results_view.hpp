// The results panel: the Pareto chart, bandwidth per dimension, the time
// breakdown, the sensitivity of the optimum and a one-line summary, all read
// from the engine's Analysis.
// Results arrive whenever the solver has one; they reach the screen at most
// every ~16 ms (a single-shot timer, PlotJuggler's pattern), never older than
// what is shown, and the previous result stays on screen (marked "Updating…"
// after a short delay) until a newer one comes. A design delivered ahead of its
// front is shown at once over the last front, which is marked as updating.
#pragma once

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include "after_frame.hpp"
#include "solver_controller.hpp"

QT_BEGIN_NAMESPACE
class QHBoxLayout;
class QLabel;
class QSplitter;
QT_END_NAMESPACE

namespace libra::studio {

class BandwidthChartView;
class BreakdownChartView;
class ParetoChartView;
class SensitivityView;
class WrapLabel;

class ResultsView : public QWidget {
  Q_OBJECT

 public:
  // A drag repaints at most once a frame.
  static constexpr int kMinFrameIntervalMs = kFrameMs;
  // A result superseded by a newer request is painted only once the screen has
  // been out of date this long (a drag whose solves are slower than its ticks);
  // otherwise the newer result is on its way and the superseded one is dropped.
  static constexpr int kShowSupersededAfterMs = kMinFrameIntervalMs;
  // A design whose front is expected within this time waits for it and both
  // are painted in one frame (painting the design alone would delay the front
  // by a frame); a slower front follows its design.
  static constexpr int kHoldForFrontMs = kFrameMs;
  // While a control is dragged (setAxesHeld), the summary and the sensitivity
  // are rewritten at most this often; the charts every frame. They catch up
  // when the drag ends.
  static constexpr int kHeldTextIntervalMs = 100;

  explicit ResultsView(QWidget* parent = nullptr);

  // How long a design whose front is due is held back for it (ms): 1.5x the
  // last front's lag plus 2, at most kHoldForFrontMs; -1 while fronts are slow
  // or not known yet.
  qint64 frontHoldMs() const;

  // The newest generation asked of the solver: what is shown is out of date
  // until a result of that generation arrives.
  void setRequestedGeneration(quint64 generation);
  // The first generation of another project (opened, or a new one): a
  // failure from then on shows nothing of the designs before it.
  void setProjectStart(quint64 generation);
  // A result for the next frame. One older than the shown result is ignored.
  void submitResult(const SolveResultPtr& result);
  // Shows a result at once (export, headless rendering), bypassing the throttle.
  void showResultNow(const SolveResultPtr& result);
  // Keeps the shown result and says why it no longer matches the inputs.
  void markStale(const QString& reason);
  // How long a solve may run before the shown result is marked "Updating…";
  // short solves then never make the charts flicker.
  void setStaleMarkDelay(int ms) { staleDelay_.setInterval(ms); }

  // The result on screen (its design; see shownFront() for the front drawn).
  SolveResultPtr shownResult() const { return shown_; }
  // A result waits for its frame (the frame timer runs).
  bool framePending() const { return pending_ != nullptr; }
  // The complete result whose Pareto front is drawn (the shown one once it is complete).
  SolveResultPtr shownFront() const { return front_; }
  quint64 shownGeneration() const;
  bool isMarkedStale() const;
  ParetoChartView* paretoChart() const { return pareto_; }
  BandwidthChartView* bandwidthChart() const { return bandwidth_; }
  BreakdownChartView* breakdownChart() const { return breakdown_; }
  SensitivityView* sensitivityView() const { return sensitivity_; }
  QString summaryText() const;

  // Shows the analysis of front point `index` (analyzeFrontPoint) in the
  // bandwidth and breakdown charts, the sensitivity view and the summary, the
  // point marked on the front. Ignored unless it is of the front on screen; the
  // next result of another generation lets go of it.
  void showSelection(const SolveResultPtr& point, int index);
  // Back to the shown result's own design.
  void clearSelection();
  int selectedIndex() const;  // -1: none
  SolveResultPtr selectedResult() const { return selected_; }
  // Holds the axes of the charts still (a control is being dragged), or lets
  // them fit the data again.
  void setAxesHeld(bool held);
  bool axesHeld() const { return held_; }

  // A heading above the charts; hidden when empty (the window shows its title bar instead).
  void setHeading(const QString& heading);

 Q_SIGNALS:
  // A result's data went into the charts (the paint follows in the same event loop turn).
  void resultShown(quint64 generation);
  void selectionChanged(int index);
  // A drag of a control began (true) or ended (false).
  void axesHeldChanged(bool held);

 private:
  // The charts in splitters, the Pareto chart above the other three (the
  // view's minimum height follows from theirs); the outer splitter.
  QSplitter* splitCharts();
  // The summary beside the buttons of the selected front point's actions.
  QHBoxLayout* makeSummaryRow();
  void scheduleFrame();
  void dropSelection();
  void applyPending();
  void apply(const SolveResultPtr& result);
  // The summary line and the sensitivity of the shown design.
  void writeTexts(const SolveResult& result);
  void setChartsStale(bool stale, const QString& reason);
  bool isOlderThanShown(const SolveResult& result) const;
  // Whether `result` is the front of the design on screen (same generation).
  bool completesShown(const SolveResult& result) const;
  bool shouldDrop(const SolveResult& result) const;

  ParetoChartView* pareto_;
  BandwidthChartView* bandwidth_;
  BreakdownChartView* breakdown_;
  SensitivityView* sensitivity_;
  QLabel* heading_;
  WrapLabel* summary_;
  QTimer frameTimer_;
  QTimer staleDelay_;
  // The texts of the shown design: at once, or after a frame during a drag.
  AfterFrame* texts_ = nullptr;
  bool held_ = false;
  QElapsedTimer sinceLastFrame_;
  // How long the last front took to follow its design (-1: not known yet).
  qint64 frontLagMs_ = -1;
  quint64 designArrived_ = 0;  // the generation whose design came last, and when
  QElapsedTimer sinceDesignArrived_;
  bool holdingForFront_ = false;
  QElapsedTimer outdatedSince_;  // since the screen last stopped matching the inputs
  SolveResultPtr pending_;
  SolveResultPtr shown_;
  SolveResultPtr front_;
  quint64 projectStart_ = 0;
  SolveResultPtr failed_;
  SolveResultPtr selected_;  // the selected front point's analysis, if any  // the newest failure
                             // shown over shown_, if any
  quint64 requested_ = 0;
};

}  // namespace libra::studio
