#include "chart_controller.hpp"

#include <QApplication>
#include <QMouseEvent>
#include <QtConcurrent>
#include <libra/edits.hpp>
#include <libra/error.hpp>

#include "charts.hpp"
#include "document.hpp"
#include "project_edits.hpp"
#include "results_view.hpp"

namespace libra::studio {

ChartController::ChartController(Document* document, ResultsView* results, QObject* parent)
    : QObject(parent), document_(document), results_(results) {
  ParetoChartView* pareto = results_->paretoChart();
  connect(pareto, &ParetoChartView::frontPointClicked, this, &ChartController::selectFrontPoint);
  connect(pareto, &ParetoChartView::frontPointActivated, this, &ChartController::useFrontPoint);
  connect(pareto, &ParetoChartView::logAxesRequested, this, [this](bool logCost, bool logTime) {
    document_->edit(tr("Logarithmic axes"), [&](Project& p) {
      setParetoAxes(p, ParetoAxes{logCost, logTime});
    });
    syncAxes();  // an edit that changes nothing still unchecks a stray toggle
  });
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & Document::ViewState) syncAxes();
  });
  connect(&watcher_, &QFutureWatcher<SolveResultPtr>::finished, this, [this] {
    const SolveResultPtr point = watcher_.result();
    if (point) results_->showSelection(point, pendingIndex_);
  });
  QApplication::instance()->installEventFilter(this);
  syncAxes();
}

ChartController::~ChartController() {
  // The job holds only its own copies; let it finish without us.
  watcher_.disconnect(this);
}

void ChartController::syncAxes() {
  const ParetoAxes axes = paretoAxesOf(document_->project());
  results_->paretoChart()->setLogAxes(axes.logCost, axes.logTime);
}

void ChartController::selectFrontPoint(int index) {
  const SolveResultPtr front = results_->shownFront();
  if (index < 0 || !front || !front->project || !front->a().hasFront()) {
    results_->clearSelection();
    return;
  }
  pendingIndex_ = index;
  // Built and evaluated on the pool: the GUI thread never poses a problem.
  watcher_.setFuture(QtConcurrent::run([front, index]() -> SolveResultPtr {
    try {
      auto result = std::make_shared<SolveResult>(*front);
      const AnalysisOptions options = makeRequest(*front->project).options;
      result->analysis = std::make_shared<const Analysis>(
          analyzeFrontPoint(*front->project, options, front->a(), static_cast<std::size_t>(index)));
      return result;
    } catch (const std::exception&) {
      return nullptr;  // the front changed under the click: nothing to show
    }
  }));
}

void ChartController::useFrontPoint(int index) {
  const SolveResultPtr front = results_->shownFront();
  if (!front || index < 0 || index >= static_cast<int>(front->a().front.points.size())) return;
  const Solution& point = front->a().front.points[static_cast<std::size_t>(index)];
  if (!point.ok()) return;
  const double cost = point.eval.costUsd;
  document_->edit(tr("Use front point %1").arg(index + 1), [cost](Project& p) {
    p.objective = Objective::Performance;
    setCostBudget(p, cost);
  });
}

bool ChartController::eventFilter(QObject* watched, QEvent* event) {
  // Hold the axes while a mouse button is down on a control of the window that
  // is not a chart (the charts' own drags pan them); fit when it is released.
  if (event->type() == QEvent::MouseButtonPress && !held_) {
    auto* widget = qobject_cast<QWidget*>(watched);
    if (widget && widget->window() == results_->window() && widget != results_ &&
        !results_->isAncestorOf(widget)) {
      held_ = true;
      results_->setAxesHeld(true);
    }
  } else if (event->type() == QEvent::MouseButtonRelease && held_ &&
             static_cast<QMouseEvent*>(event)->buttons() == Qt::NoButton) {
    held_ = false;
    results_->setAxesHeld(false);
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace libra::studio
