// Reading the charts (issue 10, item 1): the glue between the Pareto chart's
// gestures and the document.
//  - A click on a front point selects it: its analysis (the engine's
//    analyzeFrontPoint: breakdown, equal split, sensitivity) is computed on the
//    thread pool, never on the GUI thread, and shown in the bandwidth and
//    breakdown charts, the sensitivity view and the summary.
//  - "Use this design" (a double click, the context menu, the button beside the
//    summary) makes the point the current design: one undoable edit sets the
//    performance objective and the point's cost as the cost budget, whose
//    optimum the point is.
//  - The logarithmic axes are the project's view state (uiState), edited through
//    the undo stack like any other edit.
//  - While a mouse button is held on a control outside the charts (a slider
//    drag, a spin box's arrow), the charts' axes hold still; they fit the data
//    when it is released.
#pragma once

#include <QFutureWatcher>
#include <QObject>

#include "solver_controller.hpp"

namespace libra::studio {

class Document;
class ResultsView;

class ChartController : public QObject {
  Q_OBJECT

 public:
  ChartController(Document* document, ResultsView* results, QObject* parent = nullptr);
  ~ChartController() override;

  // Selects point `index` of the front on screen (-1: back to the optimum).
  void selectFrontPoint(int index);
  // Makes point `index` of the front on screen the current design (an undoable edit).
  void useFrontPoint(int index);
  // A selection being analyzed.
  bool isBusy() const { return watcher_.isRunning(); }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void syncAxes();

  Document* document_;
  ResultsView* results_;
  QFutureWatcher<SolveResultPtr> watcher_;
  int pendingIndex_ = -1;
  bool held_ = false;
};

}  // namespace libra::studio
