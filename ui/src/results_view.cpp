#include "results_view.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "charts.hpp"
#include "format.hpp"

namespace libra::studio {

ResultsView::ResultsView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("resultsView"));
  pareto_ = new ParetoChartView;
  bandwidth_ = new BandwidthChartView;
  breakdown_ = new BreakdownChartView;
  heading_ = new QLabel;
  heading_->setObjectName(QStringLiteral("resultsHeading"));
  QFont hf = heading_->font();
  hf.setPointSizeF(hf.pointSizeF() * 1.35);
  hf.setBold(true);
  heading_->setFont(hf);
  heading_->hide();
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("resultsSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setText(tr("No result yet."));

  auto* bottom = new QSplitter(Qt::Horizontal);
  bottom->addWidget(bandwidth_);
  bottom->addWidget(breakdown_);
  bottom->setChildrenCollapsible(false);
  auto* vertical = new QSplitter(Qt::Vertical);
  vertical->addWidget(pareto_);
  vertical->addWidget(bottom);
  vertical->setStretchFactor(0, 3);
  vertical->setStretchFactor(1, 2);
  vertical->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(heading_);
  layout->addWidget(summary_);
  layout->addWidget(vertical, 1);

  frameTimer_.setSingleShot(true);
  connect(&frameTimer_, &QTimer::timeout, this, &ResultsView::applyPending);
  staleDelay_.setSingleShot(true);
  staleDelay_.setInterval(150);
  connect(&staleDelay_, &QTimer::timeout, this, [this] {
    if (shown_ && shown_->generation < requested_) setChartsStale(true, tr("Updating…"));
  });
}

void ResultsView::setHeading(const QString& heading) {
  heading_->setText(heading);
  heading_->setVisible(!heading.isEmpty());
}

quint64 ResultsView::shownGeneration() const {
  return shown_ ? shown_->generation : 0;
}

bool ResultsView::isMarkedStale() const {
  return pareto_->isStale();
}

QString ResultsView::summaryText() const {
  return summary_->text();
}

void ResultsView::setRequestedGeneration(quint64 generation) {
  requested_ = std::max(requested_, generation);
  if (pending_ && pending_->generation < requested_) pending_.reset();
  if (!staleDelay_.isActive()) staleDelay_.start();
}

void ResultsView::submitResult(SolveResultPtr result) {
  if (!result || result->generation < requested_) return;  // stale: never painted
  pending_ = std::move(result);
  scheduleFrame();
}

void ResultsView::scheduleFrame() {
  if (frameTimer_.isActive()) return;
  // Leading edge at once, then at most one frame per interval.
  const qint64 since = sinceLastFrame_.isValid() ? sinceLastFrame_.elapsed() : kMinFrameIntervalMs;
  frameTimer_.start(static_cast<int>(std::max<qint64>(0, kMinFrameIntervalMs - since)));
}

void ResultsView::applyPending() {
  SolveResultPtr result = std::move(pending_);
  pending_.reset();
  if (!result || result->generation < requested_) return;  // superseded while waiting
  apply(result);
}

void ResultsView::showResultNow(SolveResultPtr result) {
  requested_ = std::max(requested_, result->generation);
  pending_.reset();
  frameTimer_.stop();
  apply(result);
}

void ResultsView::markStale(const QString& reason) {
  staleDelay_.stop();
  setChartsStale(true, reason);
}

void ResultsView::setChartsStale(bool stale, const QString& reason) {
  pareto_->setStale(stale, reason);
  bandwidth_->setStale(stale, stale ? tr("Updating…") : QString());
  breakdown_->setStale(stale, stale ? tr("Updating…") : QString());
}

void ResultsView::apply(const SolveResultPtr& result) {
  staleDelay_.stop();
  const bool showable = result->optimum.ok() || result->hasFront;
  if (!showable) {
    // Keep the last good picture; say why there is no new one.
    setChartsStale(true, tr("No solution: %1").arg(toQString(result->optimum.message)));
    summary_->setText(tr("<b>No solution</b> (%1): %2")
                          .arg(toQString(std::string(toString(result->optimum.status))),
                               toQString(result->optimum.message).toHtmlEscaped()));
    return;
  }
  sinceLastFrame_.restart();
  shown_ = result;
  pareto_->showResult(*result);
  bandwidth_->showResult(*result);
  breakdown_->showResult(*result);

  if (result->optimum.ok()) {
    const Evaluation& e = result->optimum.eval;
    QString text = tr("<b>Optimum</b> (%1): iteration <b>%2</b> = compute %3 + communication %4"
                      " &nbsp;·&nbsp; network cost <b>%5</b> &nbsp;·&nbsp; %6")
                       .arg(result->objective == Objective::Performance ? tr("performance")
                                                                        : tr("perf per cost"),
                            formatTimeNs(e.iterationNs), formatTimeNs(e.computeNs),
                            formatTimeNs(e.communicationNs), formatCostUsd(e.costUsd),
                            formatSplit(result->dimNames, result->optimum.bandwidth));
    if (result->equalSplitEval.finite && result->equalSplitEval.communicationNs > 0 &&
        e.communicationNs > 0) {
      text += tr(" &nbsp;·&nbsp; communication %1× faster than the equal split")
                  .arg(result->equalSplitEval.communicationNs / e.communicationNs, 0, 'f', 2);
    }
    summary_->setText(text);
    setChartsStale(false, {});
  } else {
    summary_->setText(tr("<b>No optimum</b> (%1): %2")
                          .arg(toQString(std::string(toString(result->optimum.status))),
                               toQString(result->optimum.message).toHtmlEscaped()));
    pareto_->setStale(true, tr("No optimum: %1").arg(toQString(result->optimum.message)));
    bandwidth_->setStale(false);
    breakdown_->setStale(false);
  }
  traceEvent("applied");
  Q_EMIT resultShown(result->generation);
}

}  // namespace libra::studio
