#include "results_view.hpp"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <libra/report/units.hpp>
#include <libra/training.hpp>

#include "charts.hpp"
#include "format.hpp"
#include "sensitivity_view.hpp"
#include "trace.hpp"
#include "wrap_label.hpp"

namespace libra::studio {

namespace {

// What the design means for training (issue 9: work per iteration, throughput,
// MFU, memory per NPU against the device's), as the CLI prints it; empty for a
// workload without a preset (imported LIBRA files).
QString trainingLine(const Analysis& a) {
  const TrainingFacts& f = a.training;
  const Throughput& t = a.design.throughput;
  QStringList parts;
  if (f.tokensPerIteration) {
    parts << QObject::tr("%1 tokens per iteration").arg(formatCount(*f.tokensPerIteration));
  }
  if (t.tokensPerSecond) {
    parts << QObject::tr("<b>%1</b> tokens/s").arg(formatCount(*t.tokensPerSecond));
  }
  if (t.modelTflopsPerNpu) {
    parts << QObject::tr("%1 model TFLOP/s per NPU").arg(*t.modelTflopsPerNpu, 0, 'f', 1);
  }
  if (t.mfu) parts << QObject::tr("MFU %1 %").arg(100 * *t.mfu, 0, 'f', 1);
  if (f.pipelineBubble && *f.pipelineBubble > 0) {
    parts << QObject::tr("pipeline bubble %1 %").arg(100 * *f.pipelineBubble, 0, 'f', 1);
  }
  if (f.memory.use) {
    const QString use =
        QObject::tr("memory %1 GB per NPU").arg(formatFixed(f.memory.use->total() / 1e9, 1));
    if (f.memory.capacityBytes > 0) {
      const QString of =
          QObject::tr("%1 of %2 GB").arg(use).arg(formatFixed(f.memory.capacityBytes / 1e9, 0));
      parts << (f.memory.fits()
                    ? of
                    : QObject::tr("<span style='color:#b00020'><b>%1: does not fit</b></span>")
                          .arg(of));
    } else {
      parts << use;
    }
  }
  if (parts.isEmpty()) return {};
  return QStringLiteral("<br>") + parts.join(QStringLiteral(" &nbsp;·&nbsp; "));
}

}  // namespace

namespace {

QString statusName(SolveStatus status) {
  QString s = toQString(std::string(toString(status)));
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  return s;
}

// "1.073× faster" / "1.234× slower" / "the same (1.000×)" for a ratio old / new
// (> 1: the design is better): report::ratioWords.
QString comparison(double ratio, const QString& better, const QString& worse) {
  return toQString(report::ratioWords(ratio, toStd(better), toStd(worse), "×"));
}

// The summary line of a design: time, cost, split, the equal split, the model,
// training and buildability, as the engine's Analysis says.
QString designSummary(const Analysis& a, const QString& label) {
  const Evaluation& e = a.design.eval;
  const QString cost =
      a.costScope == CostScope::System
          ? QObject::tr("system cost <b>%1</b> (NPUs %2 + network %3)")
                .arg(formatCostUsd(e.costUsd), formatCostUsd(a.npuCostUsd),
                     formatCostUsd(e.networkCostUsd))
          : QObject::tr("network cost <b>%1</b>").arg(formatCostUsd(e.networkCostUsd));
  QString text = QObject::tr(
                     "<b>%1</b> (%2): iteration <b>%3</b> = compute %4 + communication %5"
                     " &nbsp;·&nbsp; %6 &nbsp;·&nbsp; %7")
                     .arg(label,
                          a.objective == Objective::Performance ? QObject::tr("performance")
                                                                : QObject::tr("perf per cost"),
                          formatTimeNs(e.iterationNs),
                          toQString(report::formatTimeLike(e.computeNs, e.iterationNs)),
                          toQString(report::formatTimeLike(e.communicationNs, e.iterationNs)), cost,
                          formatSplit(a.problem ? a.problem->dimNames : std::vector<std::string>{},
                                      a.design.bandwidth));
  if (a.baseline) {
    const Baseline& b = *a.baseline;
    QStringList against;
    if (b.speedup) against << comparison(*b.speedup, QObject::tr("faster"), QObject::tr("slower"));
    if (a.objective == Objective::PerfPerCost && b.timeCostGain) {
      against << QObject::tr("%1 in time × cost")
                     .arg(comparison(*b.timeCostGain, QObject::tr("better"), QObject::tr("worse")));
    }
    if (!against.isEmpty()) {
      text += QObject::tr(" &nbsp;·&nbsp; against the equal split of the same total: %1")
                  .arg(against.join(QObject::tr(", ")));
      if (!b.satisfiesConstraints())
        text += QObject::tr(" (which breaks %n constraint(s))", nullptr,
                            static_cast<int>(b.violated.size()));
    }
  }
  const ChunkSetting& chunks = a.model.collectives.chunks;
  if (chunks.isIdeal()) {
    text += QObject::tr(" &nbsp;·&nbsp; LIBRA's ideal collective model");
  } else {
    text += chunks.kind == ChunkSetting::Kind::Auto
                ? QObject::tr(" &nbsp;·&nbsp; chunks chosen per collective")
                : QObject::tr(" &nbsp;·&nbsp; %1 chunks per collective").arg(chunks.count);
    if (const auto gap = surrogateGap(e); gap && std::abs(*gap) >= 5e-5) {
      text += QObject::tr(" (the solver's convex surrogate is %1 % above the exact schedule)")
                  .arg(100 * *gap, 0, 'f', 2);
    }
  }
  text += trainingLine(a);
  for (const std::string& v : a.limitViolations) {
    text +=
        QObject::tr(" &nbsp;·&nbsp; <span style='color:#b00020'><b>not buildable:</b> %1</span>")
            .arg(toQString(v).toHtmlEscaped());
  }
  return text;
}

}  // namespace

ResultsView::ResultsView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("resultsView"));
  texts_ = new AfterFrame(
      kHeldTextIntervalMs, [this] { return pending_ != nullptr; },
      [this] {
        if (shown_ && !failed_)
          writeTexts(*shown_);
        else
          texts_->drop();
      },
      this);
  pareto_ = new ParetoChartView;
  bandwidth_ = new BandwidthChartView;
  breakdown_ = new BreakdownChartView;
  sensitivity_ = new SensitivityView;
  heading_ = new QLabel;
  heading_->setObjectName(QStringLiteral("resultsHeading"));
  QFont hf = heading_->font();
  hf.setPointSizeF(hf.pointSizeF() * 1.35);
  hf.setBold(true);
  heading_->setFont(hf);
  heading_->hide();
  summary_ = new WrapLabel;
  summary_->setObjectName(QStringLiteral("resultsSummary"));
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setText(tr("No result yet."));

  QSplitter* vertical = splitCharts();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(heading_);
  layout->addLayout(makeSummaryRow());
  layout->addWidget(vertical, 1);

  frameTimer_.setSingleShot(true);
  connect(&frameTimer_, &QTimer::timeout, this, &ResultsView::applyPending);
  connect(pareto_, &ResultChartView::framePainted, texts_, &AfterFrame::framePainted);
  staleDelay_.setSingleShot(true);
  staleDelay_.setInterval(150);
  connect(&staleDelay_, &QTimer::timeout, this, [this] {
    if (shown_ && shown_->generation < requested_ && !failed_)
      setChartsStale(true, tr("Updating…"));
  });
}

QSplitter* ResultsView::splitCharts() {
  // The smallest charts whose titles, axes and legends are still whole: the
  // window's minimum height (about 650 px) follows from them.
  pareto_->setMinimumHeight(250);
  for (QWidget* w : std::initializer_list<QWidget*>{bandwidth_, breakdown_, sensitivity_})
    w->setMinimumHeight(230);
  auto* bottom = new QSplitter(Qt::Horizontal);
  bottom->addWidget(bandwidth_);
  bottom->addWidget(breakdown_);
  bottom->addWidget(sensitivity_);
  bottom->setStretchFactor(0, 4);
  bottom->setStretchFactor(1, 4);
  bottom->setStretchFactor(2, 3);
  bottom->setChildrenCollapsible(false);
  auto* vertical = new QSplitter(Qt::Vertical);
  vertical->addWidget(pareto_);
  vertical->addWidget(bottom);
  vertical->setStretchFactor(0, 3);
  vertical->setStretchFactor(1, 2);
  vertical->setChildrenCollapsible(false);
  // The summary wraps to about five lines at the window's minimum width; its
  // layout minimum is one line, so the charts would be cut below it.
  constexpr int kSummaryLines = 5;
  setMinimumHeight(pareto_->minimumHeight() + bandwidth_->minimumHeight() +
                   vertical->handleWidth() + kSummaryLines * fontMetrics().lineSpacing() + 24);
  return vertical;
}

QHBoxLayout* ResultsView::makeSummaryRow() {
  auto* summaryRow = new QHBoxLayout;
  summaryRow->setContentsMargins(0, 0, 0, 0);
  summaryRow->addWidget(summary_, 1);
  // A selected front point can be made the current design, or let go of.
  for (QAction* action : {pareto_->useSelectedAction(), pareto_->showOptimumAction()}) {
    auto* button = new QToolButton;
    button->setObjectName(action->objectName() + QStringLiteral("Button"));
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setVisible(false);
    connect(action, &QAction::changed, button,
            [button, action] { button->setVisible(action->isEnabled()); });
    summaryRow->addWidget(button, 0, Qt::AlignTop);
  }
  return summaryRow;
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
  const SolveResult* latest = failed_ ? failed_.get() : shown_.get();
  const bool wasCurrent = !latest || latest->generation >= requested_;
  if (wasCurrent && generation > requested_) outdatedSince_.restart();
  requested_ = std::max(requested_, generation);
  if (!staleDelay_.isActive()) staleDelay_.start();
}

void ResultsView::setProjectStart(quint64 generation) {
  projectStart_ = std::max(projectStart_, generation);
}

bool ResultsView::isOlderThanShown(const SolveResult& result) const {
  const SolveResult* latest = failed_ ? failed_.get() : shown_.get();
  if (!latest) return false;
  if (result.generation != latest->generation) return result.generation < latest->generation;
  return latest->complete || !result.complete;  // the same generation: only its completion is new
}

bool ResultsView::completesShown(const SolveResult& result) const {
  return shown_ && !failed_ && result.complete && !shown_->complete &&
         result.generation == shown_->generation;
}

bool ResultsView::shouldDrop(const SolveResult& result) const {
  if (isOlderThanShown(result)) return true;  // never paint something older
  if (result.generation >= requested_) return false;
  return !(outdatedSince_.isValid() && outdatedSince_.elapsed() >= kShowSupersededAfterMs);
}

void ResultsView::submitResult(const SolveResultPtr& result) {
  if (!result || shouldDrop(*result)) return;
  if (!result->complete) {
    designArrived_ = result->generation;
    sinceDesignArrived_.start();
  } else if (result->generation == designArrived_ && sinceDesignArrived_.isValid() &&
             result->a().ok()) {
    frontLagMs_ = sinceDesignArrived_.elapsed();
  }
  pending_ = result;
  scheduleFrame();
}

qint64 ResultsView::frontHoldMs() const {
  if (frontLagMs_ < 0 || frontLagMs_ > kHoldForFrontMs) return -1;
  return std::min<qint64>(kHoldForFrontMs, frontLagMs_ * 3 / 2 + 2);
}

void ResultsView::scheduleFrame() {
  // The front of the design on screen (or of the design held back for it)
  // completes that frame: it is not a new frame of a drag, so it is not held back.
  const bool completion =
      pending_ && (completesShown(*pending_) || (holdingForFront_ && pending_->complete));
  if (completion) {
    holdingForFront_ = false;
    frameTimer_.start(0);
    return;
  }
  if (frameTimer_.isActive()) return;
  // Leading edge at once, then at most one frame per interval.
  const qint64 since = sinceLastFrame_.isValid() ? sinceLastFrame_.elapsed() : kMinFrameIntervalMs;
  qint64 wait = std::max<qint64>(0, kMinFrameIntervalMs - since);
  if (pending_ && !pending_->complete && pending_->a().ok() && frontHoldMs() >= 0) {
    holdingForFront_ = true;  // its front is due: wait for it, at most a little longer
    wait = std::max(wait, frontHoldMs());
  }
  frameTimer_.start(static_cast<int>(wait));
}

void ResultsView::applyPending() {
  traceEvent("frame");
  holdingForFront_ = false;
  SolveResultPtr result = std::move(pending_);
  pending_.reset();
  if (!result || shouldDrop(*result)) return;
  apply(result);
}

void ResultsView::showResultNow(const SolveResultPtr& result) {
  requested_ = std::max(requested_, result->generation);
  pending_.reset();
  holdingForFront_ = false;
  frameTimer_.stop();
  apply(result);
}

void ResultsView::showSelection(const SolveResultPtr& point, int index) {
  if (!point || !point->a().ok() || !front_ || !shown_ || failed_ ||
      point->generation != front_->generation || shown_->generation != front_->generation ||
      index < 0 || index >= static_cast<int>(front_->a().front.points.size()))
    return;  // not of the front on screen (a newer result came meanwhile)
  selected_ = point;
  const QString label = tr("Front point %1").arg(index + 1);
  pareto_->setSelectedIndex(index);
  bandwidth_->setDesignLabel(label);
  // A category of the breakdown no longer than "Equal split": in a narrow
  // chart Qt Charts gives the axis no more room than that, and cut "Front
  // point 2" to "ront point 2".
  breakdown_->setDesignLabel(tr("Point %1").arg(index + 1));
  bandwidth_->showResult(*point);
  breakdown_->showResult(*point);
  texts_->drop();
  sensitivity_->showResult(*point);
  summary_->setText(designSummary(
      point->a(),
      tr("Selected: front point %1 of %2").arg(index + 1).arg(front_->a().front.points.size())));
  Q_EMIT selectionChanged(index);
}

void ResultsView::clearSelection() {
  if (!selected_) return;
  dropSelection();
  if (shown_ && !failed_) {
    bandwidth_->showResult(*shown_);
    breakdown_->showResult(*shown_);
    writeTexts(*shown_);
  }
}

void ResultsView::dropSelection() {
  selected_.reset();
  pareto_->setSelectedIndex(-1);
  bandwidth_->setDesignLabel(tr("Optimum"));
  breakdown_->setDesignLabel(tr("Optimum"));
  Q_EMIT selectionChanged(-1);
}

int ResultsView::selectedIndex() const {
  return selected_ ? pareto_->selectedIndex() : -1;
}

void ResultsView::setAxesHeld(bool held) {
  if (held == held_) return;
  held_ = held;
  pareto_->setAxesHeld(held);
  bandwidth_->setAxesHeld(held);
  breakdown_->setAxesHeld(held);
  texts_->setHeld(held);  // the drag ended: the texts catch up now
  Q_EMIT axesHeldChanged(held);
}

void ResultsView::markStale(const QString& reason) {
  staleDelay_.stop();
  setChartsStale(true, reason);
}

void ResultsView::setChartsStale(bool stale, const QString& reason) {
  pareto_->setStale(stale, reason);
  bandwidth_->setStale(stale, reason);
  breakdown_->setStale(stale, reason);
  sensitivity_->setStale(stale);
}

void ResultsView::writeTexts(const SolveResult& result) {
  texts_->written();
  const Analysis& a = result.a();
  traceEvent("texts");
  sensitivity_->showResult(result);
  summary_->setText(designSummary(a, a.evaluated ? tr("Design") : tr("Optimum")));
  traceEvent("texts written");
}

void ResultsView::apply(const SolveResultPtr& result) {
  staleDelay_.stop();
  const Analysis& a = result->a();
  if (!a.ok()) {
    // Keep the last good picture, say why there is no new one, and say that
    // what is shown no longer matches the inputs.
    failed_ = result;
    const QString what = result->invalidInput ? tr("Invalid input") : statusName(a.status);
    if (shown_ && shown_->generation < projectStart_) {
      // The last good picture is another project's: it goes, with its selection.
      if (selected_) dropSelection();
      shown_.reset();
      front_.reset();
    }
    QString text = tr("<b>%1</b>: %2").arg(what, toQString(a.message).toHtmlEscaped());
    if (shown_) {
      setChartsStale(true, tr("Not current: %1").arg(what));
      text += tr(" &nbsp;·&nbsp; <i>the charts show the last solved design</i>");
    } else {
      // Nothing of this project was solved yet: the charts are empty but for
      // the other scenarios' fronts, and the sensitivity says why.
      pareto_->showResult(*result, nullptr);
      bandwidth_->showResult(*result);
      breakdown_->showResult(*result);
      sensitivity_->showResult(*result);
      setChartsStale(true, what);
    }
    texts_->drop();
    summary_->setText(text);
    traceEvent("applied");
    Q_EMIT resultShown(result->generation);
    return;
  }
  // The front completing the design on screen changes only the Pareto chart:
  // the bars, the breakdown, the sensitivity and the summary show that design
  // already, and redrawing them would cost a frame for nothing.
  const bool completion = completesShown(*result);
  if (selected_ && selected_->generation != result->generation) dropSelection();
  failed_.reset();
  sinceLastFrame_.restart();
  shown_ = result;
  if (result->complete) front_ = result;
  pareto_->showResult(*result, front_);
  traceEvent("applied pareto");
  if (completion) {
    pareto_->setStale(false, {});
    traceEvent("applied");
    Q_EMIT resultShown(result->generation);
    return;
  }
  bandwidth_->showResult(*result);
  traceEvent("applied bandwidth");
  breakdown_->showResult(*result);
  traceEvent("applied breakdown");
  // During a drag the texts follow at most every kHeldTextIntervalMs, after a
  // frame is painted: laying out and painting the summary and the sensitivity
  // table takes about as long as the three charts together. The charts follow
  // every frame.
  texts_->changed();
  traceEvent("applied texts");
  setChartsStale(false, {});
  if (!result->complete) pareto_->setStale(true, tr("Updating the front…"));
  traceEvent("applied");
  Q_EMIT resultShown(result->generation);
}

}  // namespace libra::studio
