// Turns every change of the document into a solve request and every result into a
// frame: the glue between Document, SolverController and ResultsView, and the
// owner of the status line text ("Solving…", "Solved in 3.1 ms", "Infeasible: …").
// It only copies the project (cheap: workloads are shared); validating, building
// and solving happen on the worker.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <libra/project.hpp>

#include "after_frame.hpp"
#include "solver_controller.hpp"

namespace libra::studio {

class Document;
class ResultsView;

class ExplorerController : public QObject {
  Q_OBJECT

 public:
  // While a control is dragged, fronts have at most this many points (a
  // quarter of the default's cost in the bundled example, chunks "auto"): the
  // front keeps up with the pointer at 60 frames a second. The project's own
  // number follows when the drag ends.
  static constexpr int kDragFrontPoints = 16;
  // A change whose front is expected to take longer than this after its design
  // is solved with kDragFrontPoints first, and the project's front follows at
  // once: the change is on screen within a frame (the design, the apply and
  // the paint take the rest of it), the finer front a few ms later.
  static constexpr int kCoarseFirstAboveMs = 6;
  // ... and the status line changes at most this often.
  static constexpr int kDragStatusIntervalMs = 100;

  ExplorerController(Document* document, ResultsView* results, QObject* parent = nullptr);

  SolverController* solver() { return &solver_; }

  QString statusText() const { return status_; }
  // The newest result delivered by the solver (may not be on screen yet).
  SolveResultPtr latestResult() const { return latest_; }
  // Every job pauses this long first, as a slow solve would (tests, measurements).
  void setArtificialDelayMs(int ms) { artificialDelayMs_ = ms; }

 public Q_SLOTS:
  void requestSolve();

 Q_SIGNALS:
  void statusChanged(const QString& text);

 private:
  enum class Front {
    Fitting,   // coarse during a drag, or first when the project's is slow
    Projects,  // the project's number of points
  };
  // Asks for the document's analysis; `newInputs`: the inputs changed (what is
  // on screen is out of date until it comes), else only a finer front.
  void submit(Front front, bool newInputs);
  void onResult(const SolveResultPtr& result);
  void setStatus(const QString& text);
  void emitStatus();

  Document* document_;
  ResultsView* results_;
  SolverController solver_;
  SolveResultPtr latest_;
  QString status_;
  QTimer solvingDelay_;
  int artificialDelayMs_ = 0;
  int requestedPoints_ = 0;   // the front points of the last request
  quint64 finerFrontOf_ = 0;  // the last request for a finer front of the same inputs
  bool dragging_ = false;
  bool projectReset_ = false;  // the next request is another project's first
  // The status line: at once, or after a frame during a drag.
  AfterFrame* statusLine_ = nullptr;
};

}  // namespace libra::studio
