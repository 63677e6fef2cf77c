#include "explorer_controller.hpp"

#include <algorithm>

#include "charts.hpp"
#include "document.hpp"
#include "format.hpp"
#include "project_edits.hpp"
#include "results_view.hpp"
#include "trace.hpp"

namespace libra::studio {

ExplorerController::ExplorerController(Document* document, ResultsView* results, QObject* parent)
    : QObject(parent), document_(document), results_(results) {
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    // The view state alone (log axes, ...) changes no request unless it is the
    // number of front points; nor do the scenarios' names and the inactive
    // scenarios (a switch between two alike scenarios changes nothing else).
    const Document::Parts noRequest = Document::ViewState | Document::Scenarios;
    if (!(parts & ~noRequest) && latest_ &&
        paretoPointsOf(document_->project()) == requestedPoints_)
      return;
    requestSolve();
  });
  // Reset comes before the change it brings: the next request is the new project's.
  connect(document_, &Document::documentReset, this, [this] { projectReset_ = true; });
  connect(&solver_, &SolverController::resultReady, this, &ExplorerController::onResult);
  // During a drag the line would change twice a frame ("Optimum in …",
  // "Solved in …"), unreadably, and each change lays the status bar and the
  // window out again: it follows at most every kDragStatusIntervalMs, after a
  // frame is painted.
  statusLine_ = new AfterFrame(
      kDragStatusIntervalMs, [this] { return results_->framePending(); }, [this] { emitStatus(); },
      this);
  connect(results_->paretoChart(), &ResultChartView::framePainted, statusLine_,
          &AfterFrame::framePainted);
  connect(results_, &ResultsView::axesHeldChanged, this, [this](bool held) {
    dragging_ = held;
    statusLine_->setHeld(held);  // the drag ended: the line catches up now
    // The drag's last front was a coarse one: the project's follows.
    if (!held && latest_ && requestedPoints_ < paretoPointsOf(document_->project()))
      submit(Front::Projects, true);
  });
  // "Solving…" only for solves long enough to notice: a drag must not make the
  // status line flicker at every step.
  solvingDelay_.setSingleShot(true);
  solvingDelay_.setInterval(120);
  connect(&solvingDelay_, &QTimer::timeout, this, [this] {
    if (solver_.isBusy()) setStatus(tr("Solving…"));
  });
  connect(&solver_, &SolverController::solveStarted, this, [this](quint64) {
    if (!solvingDelay_.isActive()) solvingDelay_.start();
  });
}

void ExplorerController::requestSolve() {
  submit(Front::Fitting, true);
}

void ExplorerController::submit(Front front, bool newInputs) {
  SolveRequest request = makeRequest(document_->project());
  const int points = request.options.paretoPoints;
  const bool coarseFirst = front == Front::Fitting && points > kDragFrontPoints &&
                           solver_.frontMsAt(points) > kCoarseFirstAboveMs;
  if (dragging_ || coarseFirst) request.options.paretoPoints = std::min(points, kDragFrontPoints);
  requestedPoints_ = request.options.paretoPoints;
  request.artificialDelayMs = artificialDelayMs_;
  const quint64 generation = solver_.submit(std::move(request));
  traceEvent("submitted");
  if (!newInputs) finerFrontOf_ = generation;
  if (projectReset_) results_->setProjectStart(generation);
  projectReset_ = false;
  // A finer front of the same inputs does not make the screen out of date.
  if (newInputs) results_->setRequestedGeneration(generation);
}

void ExplorerController::onResult(const SolveResultPtr& result) {
  traceEvent("result");
  // A finer front's design is the one on screen: only its front is news.
  if (!result->complete && result->generation == finerFrontOf_) return;
  latest_ = result;
  results_->submitResult(result);
  // A coarse front of the newest request, outside a drag: the project's follows.
  if (result->complete && result->ok() && !dragging_ &&
      result->generation == solver_.latestGeneration() &&
      requestedPoints_ < paretoPointsOf(document_->project())) {
    submit(Front::Projects, false);
  }
  const Analysis& a = result->a();
  if (result->invalidInput) {
    setStatus(tr("Invalid input: %1").arg(toQString(a.message)));
  } else if (a.ok()) {
    const int points = static_cast<int>(a.front.points.size());
    if (!result->complete) {
      setStatus(tr("Optimum in %1 ms; computing the Pareto front…")
                    .arg(result->elapsedMs, 0, 'f', result->elapsedMs < 10 ? 2 : 1));
    } else {
      setStatus(tr("Solved in %1 ms (optimum and a %2-point Pareto front)")
                    .arg(result->elapsedMs, 0, 'f', result->elapsedMs < 10 ? 2 : 1)
                    .arg(a.hasFront() ? points : 0));
    }
  } else {
    QString status = toQString(std::string(toString(a.status)));
    if (!status.isEmpty()) status[0] = status[0].toUpper();
    setStatus(tr("%1: %2").arg(status, toQString(a.message)));
  }
}

void ExplorerController::setStatus(const QString& text) {
  if (text == status_) return;
  status_ = text;
  statusLine_->changed();
}

void ExplorerController::emitStatus() {
  statusLine_->written();
  traceEvent("status");
  Q_EMIT statusChanged(status_);
  traceEvent("status shown");
}

}  // namespace libra::studio
