#include "explorer_controller.hpp"

#include <algorithm>
#include <exception>
#include <libra/edits.hpp>
#include <libra/project.hpp>

#include "document.hpp"
#include "format.hpp"
#include "project_edits.hpp"
#include "results_view.hpp"

namespace libra::studio {

ExplorerController::ExplorerController(Document* document, ResultsView* results, QObject* parent)
    : QObject(parent), document_(document), results_(results) {
  connect(document_, &Document::projectChanged, this, &ExplorerController::requestSolve);
  connect(&solver_, &SolverController::resultReady, this, &ExplorerController::onResult);
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

void ExplorerController::setBackend(Backend backend) {
  if (backend == backend_) return;
  backend_ = backend;
  requestSolve();
}

bool ExplorerController::makeRequest(const Project& project, Backend backend, SolveRequest& request,
                                     QString& error) {
  try {
    request.problem = std::make_shared<const Problem>(buildProblem(project));
    const BudgetConstraints budget = splitConstraints(project.constraints);
    if (budget.costBudget) {
      Project unbudgeted = project;
      unbudgeted.constraints = constraintsWithoutCostBudget(project.constraints);
      request.frontProblem = std::make_shared<const Problem>(buildProblem(unbudgeted));
    } else {
      request.frontProblem = request.problem;
    }
    request.costBudgetUsd = budget.costBudget;
    request.objective = project.objective;
    request.backend = backend;
    request.paretoPoints = paretoPointsOf(project);
    return true;
  } catch (const std::exception& e) {
    error = toQString(e.what());
    return false;
  }
}

void ExplorerController::requestSolve() {
  SolveRequest request;
  QString error;
  if (!makeRequest(document_->project(), backend_, request, error)) {
    solver_.cancelAll();
    results_->setRequestedGeneration(solver_.latestGeneration());
    results_->markStale(tr("Not solved: %1").arg(error));
    setStatus(tr("Invalid input: %1").arg(error));
    return;
  }
  const quint64 generation = solver_.submit(std::move(request));
  traceEvent("submitted");
  results_->setRequestedGeneration(generation);
}

void ExplorerController::onResult(SolveResultPtr result) {
  traceEvent("result");
  latest_ = result;
  results_->submitResult(result);
  const Solution& s = result->optimum;
  if (s.ok()) {
    setStatus(tr("Solved in %1 ms (optimum and a %2-point Pareto front)")
                  .arg(result->solveMs, 0, 'f', result->solveMs < 10 ? 2 : 1)
                  .arg(result->hasFront ? static_cast<int>(result->front.points.size()) : 0));
  } else {
    QString status = toQString(std::string(toString(s.status)));
    if (!status.isEmpty()) status[0] = status[0].toUpper();
    setStatus(tr("%1: %2").arg(status, toQString(s.message)));
  }
}

void ExplorerController::setStatus(const QString& text) {
  if (text == status_) return;
  status_ = text;
  Q_EMIT statusChanged(text);
}

}  // namespace libra::studio
