#include "charts.hpp"

#include <QAction>
#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QContextMenuEvent>
#include <QCursor>
#include <QFontMetrics>
#include <QGraphicsLayout>
#include <QHorizontalStackedBarSeries>
#include <QKeyEvent>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <libra/report/units.hpp>
#include <limits>
#include <tuple>

#include "format.hpp"
#include "trace.hpp"

namespace libra::studio {

namespace {

// One colour per dimension, the same in every chart (Tableau 10).
QColor dimensionColor(int d) {
  static const QColor colors[] = {
      QColor(0x4e79a7), QColor(0xf28e2b), QColor(0x59a14f), QColor(0xe15759), QColor(0x76b7b2),
      QColor(0xedc948), QColor(0xb07aa1), QColor(0xff9da7), QColor(0x9c755f), QColor(0xbab0ac)};
  return colors[d % 10];
}

const QColor kOptimumColor(0xd62728);
const QColor kPerfPerCostColor(0x2ca02c);
const QColor kEqualSplitColor(0x7f7f7f);
const QColor kFrontColor(0x1f77b4);
const QColor kSelectedColor(0xff7f0e);

// The other scenarios' fronts: none of the colours above (Tableau's and d3's
// remaining hues), dark enough for a thin line on white.
const QColor kScenarioColors[] = {QColor(0x9467bd), QColor(0x17becf), QColor(0xe377c2),
                                  QColor(0xbcbd22), QColor(0x393b79), QColor(0x8c6d31),
                                  QColor(0x637939), QColor(0x843c39)};

QChart* makeChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  QFont f = chart->titleFont();
  f.setBold(true);
  f.setPointSizeF(f.pointSizeF() + 1);
  chart->setTitleFont(f);
  chart->setAnimationOptions(QChart::NoAnimation);  // a drag must not queue animations
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setBackgroundRoundness(0);
  return chart;
}

// Extends [lo, hi] by a margin, and to a small span when it is a single value.
std::pair<double, double> padded(double lo, double hi, double fraction = 0.06) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  double span = hi - lo;
  if (span <= std::fabs(hi) * 1e-6) span = std::max(std::fabs(hi) * 0.1, 1e-3);
  return {lo - span * fraction, hi + span * fraction};
}

// Qt Charts 6.4 announces a label format as changed even when it is the same,
// and the chart then lays its axes out again (about 2 ms a frame).
template <typename Axis>
void setLabelFormatIfNew(Axis* axis, const QString& format) {
  if (axis->labelFormat() != format) axis->setLabelFormat(format);
}

// Sets [lo, hi] widened to whole multiples of a 1-2-2.5-5 step, about `ticks` of them,
// with labels showing just the decimals the step needs.
// `widen` false keeps [lo, hi] as given (a zoomed view) with ticks on the same steps.
void setNiceRange(QValueAxis* axis, double lo, double hi, int ticks = 6, bool widen = true) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo) {
    axis->setRange(0, 1);
    return;
  }
  const double raw = (hi - lo) / std::max(ticks - 1, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  const double niceLo = std::floor(lo / step + 1e-9) * step;
  const double niceHi = std::ceil(hi / step - 1e-9) * step;
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(step);
  axis->setRange(widen ? niceLo : lo, widen ? niceHi : hi);
  const int decimals = std::clamp(
      static_cast<int>(-std::floor(std::log10(step) + 1e-9)) + (step / magnitude == 2.5 ? 1 : 0), 0,
      6);
  const bool large = std::max(std::fabs(niceLo), std::fabs(niceHi)) >= report::kAxisScientificFrom;
  setLabelFormatIfNew(
      axis, large ? QString::fromLatin1(report::kAxisLabelFormatLarge)
                  : QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f"));
}

}  // namespace

// ---------------------------------------------------------------------------

ResultChartView::ResultChartView(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumSize(260, 200);
  staleLabel_ = new QLabel(this);
  staleLabel_->setObjectName(QStringLiteral("staleLabel"));
  staleLabel_->setStyleSheet(QStringLiteral(
      "QLabel { background: rgba(255, 244, 214, 230); color: #6b4b00; border: 1px solid #d9b55c;"
      " border-radius: 3px; padding: 2px 6px; }"));
  staleLabel_->hide();
}

void ResultChartView::adoptChart(QChart* chart) {
  // QChartView's constructor made a default chart; setChart() releases it
  // without deleting it (Qt's documentation: "to avoid memory leaks users need
  // to make sure the previous chart is deleted").
  QChart* previous = this->chart();
  setChart(chart);
  delete previous;
}

void ResultChartView::setStale(bool stale, const QString& reason) {
  const QString text = reason.isEmpty() ? tr("Updating…") : reason;
  if (stale == stale_ && staleLabel_->text() == text) return;
  stale_ = stale;
  staleLabel_->setText(text);
  placeBadge();
  staleLabel_->setVisible(stale);
  if (chart()) {
    for (QAbstractSeries* s : chart()->series()) s->setOpacity(stale ? 0.4 : 1.0);
  }
}

void ResultChartView::placeBadge() {
  if (chart() && chart() != badgeChart_) {
    badgeChart_ = chart();
    connect(chart(), &QChart::plotAreaChanged, this, &ResultChartView::placeBadge);
  }
  // The top right corner of the plot: below the title, clear of the legend.
  constexpr int kInset = 4;
  QRect area = rect().adjusted(kInset, kInset, -kInset, -kInset);
  if (chart() && chart()->plotArea().isValid()) {
    const QRect plot = mapFromScene(chart()->mapToScene(chart()->plotArea()))
                           .boundingRect()
                           .adjusted(kInset, kInset, -kInset, -kInset);
    if (plot.width() >= 80 && plot.height() >= 20) area = area.intersected(plot);
  }
  // One line when it fits, else wrapped to the plot's width: never cut off.
  staleLabel_->setWordWrap(false);
  int w = staleLabel_->sizeHint().width();
  if (w > area.width()) {
    staleLabel_->setWordWrap(true);
    w = std::max(area.width(), 60);
  }
  const int h =
      staleLabel_->wordWrap() ? staleLabel_->heightForWidth(w) : staleLabel_->sizeHint().height();
  staleLabel_->setGeometry(area.right() + 1 - w, area.top(), w, h);
}

void ResultChartView::layOutNow() {
  // QtCharts lays a chart out on a posted request, after the paint that follows
  // new data, and then paints it a second time: a frame's cost per change.
  if (chart() && chart()->layout()) chart()->layout()->activate();
}

void ResultChartView::setAxesHeld(bool held) {
  if (held == held_) return;
  held_ = held;
  if (!held) redraw();  // the hold ended: fit the data
}

QString ResultChartView::staleReason() const {
  return stale_ ? staleLabel_->text() : QString();
}

void ResultChartView::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  placeBadge();
}

void ResultChartView::paintEvent(QPaintEvent* event) {
  if (traceOn()) traceEvent(("paint " + objectName().toStdString()).c_str());
  QChartView::paintEvent(event);
  if (traceOn()) traceEvent(("painted " + objectName().toStdString()).c_str());
  if (shownGeneration_ != lastPainted_) {
    lastPainted_ = shownGeneration_;
    // The recent history only: a session paints frames for hours.
    if (painted_.size() >= 2 * kPaintedKept) painted_.remove(0, painted_.size() - kPaintedKept);
    painted_.append(shownGeneration_);
    Q_EMIT framePainted(shownGeneration_);
  }
}

// ---------------------------------------------------------------------------

QColor scenarioColor(int position) {
  constexpr int n = static_cast<int>(std::size(kScenarioColors));
  return kScenarioColors[((position % n) + n) % n];
}

QColor activeFrontColor() {
  return kFrontColor;
}

namespace {

// An overlay's front and optimum in $ and ns (empty without a result).
struct OverlayPoints {
  QList<QPointF> front;
  QList<QPointF> optimum;
};

OverlayPoints overlayPoints(const FrontOverlay& overlay) {
  OverlayPoints p;
  if (!overlay.result || !overlay.result->a().ok()) return p;
  const Analysis& a = overlay.result->a();
  if (a.hasFront()) {
    for (const Solution& s : a.front.points) {
      if (s.ok() && std::isfinite(s.eval.iterationNs) && std::isfinite(s.eval.costUsd))
        p.front.append({s.eval.costUsd, s.eval.iterationNs});
    }
  }
  if (a.design.eval.finite) p.optimum.append({a.design.eval.costUsd, a.design.eval.iterationNs});
  return p;
}

}  // namespace

// ---------------------------------------------------------------------------

ParetoChartView::ParetoChartView(QWidget* parent) : ResultChartView(parent) {
  setObjectName(QStringLiteral("paretoChart"));
  setFocusPolicy(Qt::StrongFocus);  // Escape and 0 reset the zoom
  QChart* chart = makeChart(tr("Iteration time against network cost"));

  createSeries();
  addAxesAndSeries(chart);
  chart->legend()->setToolTip(tr("Click “Equal split” to hide or show it"));
  adoptChart(chart);
  decorateLegend();
  createActions();
}

void ParetoChartView::createSeries() {
  frontLine_ = new QLineSeries;
  frontLine_->setName(tr("Pareto front"));
  frontLine_->setPen(QPen(kFrontColor, 2));
  frontPoints_ = new QScatterSeries;
  frontPoints_->setName(tr("front points"));
  frontPoints_->setMarkerSize(6);
  frontPoints_->setColor(kFrontColor);
  frontPoints_->setBorderColor(kFrontColor);
  budget_ = new QLineSeries;
  budget_->setName(tr("Cost budget"));
  budget_->setPen(QPen(QColor(0x8c564b), 1.5, Qt::DashLine));
  equalSplit_ = new QScatterSeries;
  equalSplit_->setName(tr("Equal split"));
  equalSplit_->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
  equalSplit_->setMarkerSize(14);
  equalSplit_->setColor(kEqualSplitColor);
  perfPerCost_ = new QScatterSeries;
  perfPerCost_->setName(tr("Best perf per cost"));
  perfPerCost_->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
  perfPerCost_->setMarkerSize(15);
  perfPerCost_->setColor(kPerfPerCostColor);
  optimum_ = new QScatterSeries;
  optimum_->setName(tr("Optimum"));
  optimum_->setMarkerShape(QScatterSeries::MarkerShapeStar);
  optimum_->setMarkerSize(20);
  optimum_->setColor(kOptimumColor);
  optimum_->setBorderColor(kOptimumColor.darker(140));
  selected_ = new QScatterSeries;
  selected_->setName(tr("Selected"));
  selected_->setMarkerShape(QScatterSeries::MarkerShapeCircle);
  selected_->setMarkerSize(16);
  selected_->setColor(Qt::transparent);
  selected_->setBorderColor(kSelectedColor);
  selected_->setPen(QPen(kSelectedColor, 3));
}

void ParetoChartView::addAxesAndSeries(QChart* chart) {
  axisX_ = new QValueAxis;
  axisX_->setTitleText(tr("Network cost (million $)"));
  axisX_->setLabelFormat(QStringLiteral("%.1f"));
  axisY_ = new QValueAxis;
  axisY_->setTitleText(tr("Iteration time (ms)"));
  axisY_->setLabelFormat(QStringLiteral("%.1f"));
  logAxisX_ = new QLogValueAxis(this);
  logAxisY_ = new QLogValueAxis(this);
  for (QLogValueAxis* axis : {logAxisX_, logAxisY_}) {
    axis->setBase(10);
    axis->setMinorTickCount(8);
    setLabelFormatIfNew(axis, QStringLiteral("%g"));
  }
  chart->addAxis(axisX_, Qt::AlignBottom);
  chart->addAxis(axisY_, Qt::AlignLeft);
  for (QXYSeries* s : std::initializer_list<QXYSeries*>{
           frontLine_, frontPoints_, budget_, equalSplit_, perfPerCost_, optimum_, selected_}) {
    chart->addSeries(s);
    s->attachAxis(axisX_);
    s->attachAxis(axisY_);
    if (s != selected_) connect(s, &QXYSeries::hovered, this, &ParetoChartView::showTooltip);
  }
}

void ParetoChartView::createActions() {
  resetZoom_ = new QAction(tr("Reset zoom"), this);
  resetZoom_->setObjectName(QStringLiteral("resetZoomAction"));
  resetZoom_->setShortcuts({QKeySequence(Qt::Key_Escape), QKeySequence(Qt::Key_0)});
  resetZoom_->setShortcutContext(Qt::WidgetShortcut);
  resetZoom_->setEnabled(false);
  connect(resetZoom_, &QAction::triggered, this, &ParetoChartView::resetZoom);
  addAction(resetZoom_);
  logCostAction_ = new QAction(tr("Logarithmic cost axis"), this);
  logCostAction_->setObjectName(QStringLiteral("logCostAction"));
  logCostAction_->setCheckable(true);
  logTimeAction_ = new QAction(tr("Logarithmic time axis"), this);
  logTimeAction_->setObjectName(QStringLiteral("logTimeAction"));
  logTimeAction_->setCheckable(true);
  // The choice is the project's view state: the controller asks the document,
  // whose change comes back through setLogAxes.
  connect(logCostAction_, &QAction::triggered, this,
          [this](bool on) { Q_EMIT logAxesRequested(on, logTime_); });
  connect(logTimeAction_, &QAction::triggered, this,
          [this](bool on) { Q_EMIT logAxesRequested(logCost_, on); });
  useSelected_ = new QAction(tr("Use this design"), this);
  useSelected_->setObjectName(QStringLiteral("useSelectedAction"));
  useSelected_->setToolTip(
      tr("Make the selected front point the current design: minimize the "
         "iteration time with its cost as the cost budget (undoable)"));
  useSelected_->setEnabled(false);
  connect(useSelected_, &QAction::triggered, this, [this] {
    if (selectedIndex_ >= 0) Q_EMIT frontPointActivated(selectedIndex_);
  });
  showOptimum_ = new QAction(tr("Show the optimum"), this);
  showOptimum_->setObjectName(QStringLiteral("showOptimumAction"));
  showOptimum_->setEnabled(false);
  connect(showOptimum_, &QAction::triggered, this, [this] { Q_EMIT frontPointClicked(-1); });
}

QAbstractAxis* ParetoChartView::shownCostAxis() const {
  return logCost_ ? static_cast<QAbstractAxis*>(logAxisX_) : axisX_;
}

QAbstractAxis* ParetoChartView::shownTimeAxis() const {
  return logTime_ ? static_cast<QAbstractAxis*>(logAxisY_) : axisY_;
}

void ParetoChartView::attachAxes() {
  QChart* c = chart();
  const std::pair<QAbstractAxis*, QAbstractAxis*> pairs[] = {{axisX_, logAxisX_},
                                                             {axisY_, logAxisY_}};
  const bool logs[] = {logCost_, logTime_};
  const Qt::Alignment sides[] = {Qt::AlignBottom, Qt::AlignLeft};
  for (int i = 0; i < 2; ++i) {
    QAbstractAxis* want = logs[i] ? pairs[i].second : pairs[i].first;
    QAbstractAxis* other = logs[i] ? pairs[i].first : pairs[i].second;
    if (c->axes().contains(want)) continue;
    for (QAbstractSeries* s : c->series()) s->detachAxis(other);
    c->removeAxis(other);
    other->setParent(this);  // removeAxis gives it back: keep it for the next toggle
    c->addAxis(want, sides[i]);
    for (QAbstractSeries* s : c->series()) s->attachAxis(want);
  }
}

void ParetoChartView::setLogAxes(bool logCost, bool logTime) {
  logCostAction_->setChecked(logCost);
  logTimeAction_->setChecked(logTime);
  if (logCost == logCost_ && logTime == logTime_) return;
  logCost_ = logCost;
  logTime_ = logTime;
  attachAxes();
  // The zoom was a range of the old scale: fit the data on the new one.
  zoomed_ = false;
  resetZoom_->setEnabled(false);
  hasRange_ = false;
  redraw();
}

void ParetoChartView::setEqualSplitShown(bool shown) {
  if (shown == equalSplitShown_) return;
  equalSplitShown_ = shown;
  equalSplit_->setVisible(shown);
  decorateLegend();
  redraw();
}

void ParetoChartView::decorateLegend() {
  QLegend* legend = chart()->legend();
  // The front's own markers, the selection ring and the other scenarios'
  // optima need no legend entry.
  QList<QXYSeries*> unlisted{frontPoints_, selected_};
  for (QXYSeries* s : overlayOptima_) unlisted << s;
  for (QXYSeries* s : unlisted) {
    for (QLegendMarker* m : legend->markers(s)) m->setVisible(false);
  }
  // A click on the equal split's legend entry hides it (it can sit far from the
  // front and squash it) and the axes fit what is left; another click shows it.
  // Hidden, its entry stays, greyed out, so that it can be clicked back.
  for (QLegendMarker* m : legend->markers(equalSplit_)) {
    connect(m, &QLegendMarker::clicked, this, &ParetoChartView::toggleEqualSplit,
            Qt::UniqueConnection);
    m->setVisible(true);
    QColor label = legend->labelColor();
    label.setAlphaF(equalSplitShown_ ? 1.0 : 0.4);
    m->setLabelBrush(label);
    QColor fill = kEqualSplitColor;
    fill.setAlphaF(equalSplitShown_ ? 1.0 : 0.25);
    m->setBrush(fill);
  }
  legend->layout()->invalidate();
}

void ParetoChartView::toggleEqualSplit() {
  setEqualSplitShown(!equalSplitShown_);
}

void ParetoChartView::setFrontName(const QString& name) {
  if (frontLine_->name() == name) return;
  frontLine_->setName(name);
  // The entry's text is set when the legend is laid out: now, not a frame later.
  chart()->legend()->layout()->invalidate();
  chart()->legend()->layout()->activate();
}

void ParetoChartView::setOverlays(const QList<FrontOverlay>& overlays) {
  if (overlays == overlays_) return;
  overlays_ = overlays;
  rebuildOverlaySeries();
  overlayUsdPerUnit_ = overlayNsPerUnit_ = 0;  // their points are put in at the next draw
  redraw();
}

void ParetoChartView::rebuildOverlaySeries() {
  QChart* c = chart();
  for (QXYSeries* s : overlayLines_) {
    c->removeSeries(s);
    delete s;
  }
  for (QXYSeries* s : overlayOptima_) {
    c->removeSeries(s);
    delete s;
  }
  overlayLines_.clear();
  overlayOptima_.clear();
  for (int i = 0; i < overlays_.size(); ++i) {
    const FrontOverlay& o = overlays_[i];
    QString name = o.name;
    if (o.result && !o.result->a().ok()) {
      name = tr("%1 (%2)").arg(o.name, toQString(statusWord(o.result->a())));
    } else if (o.stale || !o.result) {
      name = tr("%1 (updating…)").arg(o.name);
    }
    auto* line = new QLineSeries;
    line->setName(name);
    line->setPen(QPen(o.color, 2, o.stale ? Qt::DashLine : Qt::SolidLine));
    auto* optimum = new QScatterSeries;
    optimum->setName(tr("%1 optimum").arg(o.name));
    optimum->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    optimum->setMarkerSize(12);
    optimum->setColor(o.color);
    optimum->setBorderColor(o.color.darker(150));
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{line, optimum}) {
      c->addSeries(s);
      s->attachAxis(shownCostAxis());
      s->attachAxis(shownTimeAxis());
      if (isStale()) s->setOpacity(0.4);
      connect(s, &QXYSeries::hovered, this,
              [this, i](const QPointF& p, bool state) { showOverlayTooltip(i, p, state); });
    }
    overlayLines_.append(line);
    overlayOptima_.append(optimum);
  }
  // The shown design's markers stay on top of the other fronts: a chart draws
  // its series in the order they were added, so they go after the overlays.
  if (!overlays_.isEmpty()) {
    for (QXYSeries* s :
         std::initializer_list<QXYSeries*>{equalSplit_, perfPerCost_, optimum_, selected_}) {
      c->removeSeries(s);  // hands it back, connections and all
      c->addSeries(s);
      s->attachAxis(shownCostAxis());
      s->attachAxis(shownTimeAxis());
    }
  }
  decorateLegend();  // the markers re-added have new legend entries
  // A series added hides the legend's entries until its layout runs on a
  // posted request: lay it out now, or a frame (or a grab) shows no legend.
  c->legend()->layout()->activate();
}

void ParetoChartView::showOverlayTooltip(int overlay, const QPointF& point, bool state) {
  if (!state || overlay < 0 || overlay >= overlays_.size() || !overlays_[overlay].result) {
    QToolTip::hideText();
    return;
  }
  const FrontOverlay& o = overlays_[overlay];
  const Analysis& a = o.result->a();
  if (!a.ok()) return;
  const QPointF at = chart()->mapToPosition(point, frontLine_);
  const Evaluation* best = nullptr;
  const std::vector<double>* bestSplit = nullptr;
  QString label;
  double bestDistance = std::numeric_limits<double>::infinity();
  auto consider = [&](const std::vector<double>& split, const Evaluation& e, const QString& what) {
    if (!e.finite) return;
    const QPointF p = chart()->mapToPosition(units_.toChart(e.costUsd, e.iterationNs), frontLine_);
    const double d = std::hypot(p.x() - at.x(), p.y() - at.y());
    if (d < bestDistance - 1e-9) {
      bestDistance = d;
      best = &e;
      bestSplit = &split;
      label = what;
    }
  };
  consider(a.design.bandwidth, a.design.eval, tr("optimum"));
  if (a.hasFront()) {
    for (const Solution& s : a.front.points) {
      if (s.ok()) consider(s.bandwidth, s.eval, tr("Pareto point"));
    }
  }
  if (!best) return;
  const std::vector<std::string> names =
      a.problem ? a.problem->dimNames : std::vector<std::string>{};
  QToolTip::showText(
      QCursor::pos(),
      tr("<b>%1</b>: %2%3<br>iteration %4, cost %5<br>%6")
          .arg(o.name.toHtmlEscaped(), label, o.stale ? tr(" (of an earlier version)") : QString(),
               formatTimeNs(best->iterationNs), formatCostUsd(best->costUsd),
               formatSplit(names, *bestSplit)),
      this);
}

void ParetoChartView::redraw() {
  if (!lastResult_.analysis) return;
  const SolveResult result = lastResult_;  // showResult keeps a copy of what it gets
  showResult(result, lastFront_);
}

ChartUnits ChartUnits::forExtent(double maxCostUsd, double maxTimeNs) {
  // The rule is the report's (libra/report/units.hpp), so charts, tables and
  // reports agree.
  const report::Unit cost = report::costUnitFor(maxCostUsd);
  const report::Unit time = report::timeUnitFor(maxTimeNs);
  ChartUnits u;
  u.usdPerUnit = cost.size;
  u.costUnit = QString::fromStdString(cost.name);
  u.nsPerUnit = time.size;
  u.timeUnit = QString::fromStdString(time.name);
  return u;
}

namespace {

// [lo, hi] with a margin, on a log scale: a fraction of the decades spanned.
AxisRange paddedLog(double lo, double hi, double fraction) {
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) return {1, 10};
  double a = std::log10(lo), b = std::log10(hi);
  double span = b - a;
  if (span < 1e-6) span = 0.1;
  return {std::pow(10.0, a - span * fraction), std::pow(10.0, b + span * fraction)};
}

// What the Pareto chart draws of a result, in $ and ns.
struct ParetoPoints {
  QList<QPointF> line, opt, ppc, eq, sel;
};

ParetoPoints paretoPoints(const Analysis& a, const Analysis* frontOf, int selectedIndex,
                          bool equalSplitShown) {
  ParetoPoints p;
  const bool hasFront = frontOf && frontOf->hasFront();
  if (hasFront) {
    p.line.reserve(static_cast<qsizetype>(frontOf->front.points.size()));
    for (const Solution& s : frontOf->front.points) {
      if (!s.ok() || !std::isfinite(s.eval.iterationNs) || !std::isfinite(s.eval.costUsd)) continue;
      p.line.append({s.eval.costUsd, s.eval.iterationNs});
    }
    if (selectedIndex >= 0 && selectedIndex < static_cast<int>(frontOf->front.points.size())) {
      const Evaluation& e = frontOf->front.points[static_cast<std::size_t>(selectedIndex)].eval;
      if (e.finite) p.sel.append({e.costUsd, e.iterationNs});
    }
  }
  if (a.ok() && a.design.eval.finite)
    p.opt.append({a.design.eval.costUsd, a.design.eval.iterationNs});
  if (hasFront && frontOf->front.perfPerCostOptimum.ok()) {
    const auto& e = frontOf->front.perfPerCostOptimum.eval;
    p.ppc.append({e.costUsd, e.iterationNs});
  }
  if (equalSplitShown && a.baseline && a.baseline->design.eval.finite) {
    const Evaluation& e = a.baseline->design.eval;
    p.eq.append({e.costUsd, e.iterationNs});
  }
  return p;
}

// The bounds of the points a chart can show (a logarithmic axis cannot show
// zero); infinite when there are none.
struct Extent {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
};

Extent dataExtent(const std::vector<const QList<QPointF>*>& all, bool logCost, bool logTime) {
  Extent e;
  for (const QList<QPointF>* points : all) {
    for (const QPointF& p : *points) {
      if (!std::isfinite(p.x()) || !std::isfinite(p.y())) continue;
      if ((logCost && !(p.x() > 0)) || (logTime && !(p.y() > 0))) continue;
      e.xlo = std::min(e.xlo, p.x());
      e.xhi = std::max(e.xhi, p.x());
      e.ylo = std::min(e.ylo, p.y());
      e.yhi = std::max(e.yhi, p.y());
    }
  }
  return e;
}

// The ranges that fit `e`, in $ and ns, with a margin; a decade (log) or one
// unit (linear) below the units when there is no data.
std::pair<AxisRange, AxisRange> fittedRanges(const Extent& e, bool logCost, bool logTime,
                                             const ChartUnits& units) {
  AxisRange fitX{0, units.usdPerUnit}, fitY{0, units.nsPerUnit};
  if (std::isfinite(e.xlo)) {
    if (logCost) {
      fitX = paddedLog(e.xlo, e.xhi, 0.06);
    } else {
      std::tie(fitX.lo, fitX.hi) = padded(e.xlo, e.xhi);
      // Costs and times are never negative: the margin below stops at zero (a
      // slow equal split far above the front once pushed the axis to -100 s).
      if (e.xlo >= 0) fitX.lo = std::max(fitX.lo, 0.0);
    }
    if (logTime) {
      fitY = paddedLog(e.ylo, e.yhi, 0.1);
    } else {
      std::tie(fitY.lo, fitY.hi) = padded(e.ylo, e.yhi, 0.1);
      if (e.ylo >= 0) fitY.lo = std::max(fitY.lo, 0.0);
    }
  } else if (logCost || logTime) {
    if (logCost) fitX = {units.usdPerUnit / 10, units.usdPerUnit};
    if (logTime) fitY = {units.nsPerUnit / 10, units.nsPerUnit};
  }
  return {fitX, fitY};
}

}  // namespace

void ParetoChartView::setAxisTitles(bool systemCost) {
  const QString xTitle = systemCost ? tr("System cost: NPUs + network (%1)").arg(units_.costUnit)
                                    : tr("Network cost (%1)").arg(units_.costUnit);
  if (axisX_->titleText() != xTitle) {
    axisX_->setTitleText(xTitle);
    chart()->setTitle(systemCost ? tr("Iteration time against system cost")
                                 : tr("Iteration time against network cost"));
  }
  if (logAxisX_->titleText() != xTitle) logAxisX_->setTitleText(xTitle);
  const QString yTitle = tr("Iteration time (%1)").arg(units_.timeUnit);
  if (axisY_->titleText() != yTitle) axisY_->setTitleText(yTitle);
  if (logAxisY_->titleText() != yTitle) logAxisY_->setTitleText(yTitle);
}

void ParetoChartView::showResult(const SolveResult& result, const SolveResultPtr& front) {
  const Analysis& a = result.a();
  lastResult_ = result;
  lastFront_ = front;
  const Analysis* frontOf = front ? front->analysis.get() : nullptr;

  // Every point in dollars and ns first: the units follow the largest.
  ParetoPoints pts = paretoPoints(a, frontOf, selectedIndex_, equalSplitShown_);
  QList<OverlayPoints> overlaid;
  for (const FrontOverlay& o : overlays_) overlaid.append(overlayPoints(o));
  std::vector<const QList<QPointF>*> all{&pts.line, &pts.opt, &pts.ppc, &pts.eq};
  for (const OverlayPoints& o : overlaid) {
    all.push_back(&o.front);
    all.push_back(&o.optimum);
  }
  const Extent e = dataExtent(all, logCost_, logTime_);
  units_ = ChartUnits::forExtent(
      std::isfinite(e.xhi) ? std::max(std::fabs(e.xlo), std::fabs(e.xhi)) : 0,
      std::isfinite(e.yhi) ? std::max(std::fabs(e.ylo), std::fabs(e.yhi)) : 0);
  for (QList<QPointF>* points : {&pts.line, &pts.opt, &pts.ppc, &pts.eq, &pts.sel}) {
    for (QPointF& p : *points) p = units_.toChart(p.x(), p.y());
  }
  traceEvent("pareto points");
  frontLine_->replace(pts.line);
  frontPoints_->replace(pts.line);
  optimum_->replace(pts.opt);
  perfPerCost_->replace(pts.ppc);
  equalSplit_->replace(pts.eq);
  selected_->replace(pts.sel);
  if (units_.usdPerUnit != overlayUsdPerUnit_ || units_.nsPerUnit != overlayNsPerUnit_) {
    overlayUsdPerUnit_ = units_.usdPerUnit;
    overlayNsPerUnit_ = units_.nsPerUnit;
    for (qsizetype i = 0; i < overlaid.size() && i < overlayLines_.size(); ++i) {
      for (QList<QPointF>* points : {&overlaid[i].front, &overlaid[i].optimum}) {
        for (QPointF& p : *points) p = units_.toChart(p.x(), p.y());
      }
      overlayLines_[i]->replace(overlaid[i].front);
      overlayOptima_[i]->replace(overlaid[i].optimum);
    }
  }
  setAxisTitles(a.costScope == CostScope::System);

  const auto [fitX, fitY] = fittedRanges(e, logCost_, logTime_, units_);
  // Zoomed: the user's ranges. Held: the ranges on screen while the data stay in them.
  const bool inside =
      !std::isfinite(e.xlo) || (xRange_.contains(e.xlo, e.xhi) && yRange_.contains(e.ylo, e.yhi));
  if (!zoomed_ && !(axesHeld() && hasRange_ && inside)) {
    xRange_ = fitX;
    yRange_ = fitY;
  }
  hasRange_ = true;
  fitX_ = fitX;
  fitY_ = fitY;
  budgetUsd_ = a.costBudgetUsd;
  traceEvent("pareto replaced");
  applyRanges();
  traceEvent("pareto ranges");
  // The chart shows a generation once its front is drawn too: a design over an
  // older front is not yet the chart of that change.
  if (front && front->generation == result.generation) setShownGeneration(result.generation);
  layOutNow();
}

namespace {

// A log axis over [lo, hi]: labels at the powers of ten when it spans two
// decades or more, else at about five steps of equal ratio (a range within a
// decade would show one label, or none).
void setLogRange(QLogValueAxis* axis, double lo, double hi) {
  const double decades = std::log10(hi / lo);
  if (decades >= 2 || !std::isfinite(decades)) {
    axis->setBase(10);
    axis->setMinorTickCount(8);
    setLabelFormatIfNew(axis, QStringLiteral("%g"));
  } else {
    axis->setBase(std::pow(10.0, std::max(decades, 1e-3) / 5));
    axis->setMinorTickCount(0);
    setLabelFormatIfNew(axis, QStringLiteral("%.3g"));
  }
  axis->setRange(lo, hi);
}

}  // namespace

void ParetoChartView::applyRanges() {
  // Times and costs are never negative: a zoom or a pan stops at 0 (it showed
  // negative iteration times and costs, issue 28 item 5).
  if (zoomed_) {
    const auto floorAtZero = [](AxisRange& r) {
      if (r.lo < 0) {
        r.hi -= r.lo;
        r.lo = 0;
      }
    };
    if (!logCost_) floorAtZero(xRange_);
    if (!logTime_) floorAtZero(yRange_);
  }
  const double x0 = xRange_.lo / units_.usdPerUnit, x1 = xRange_.hi / units_.usdPerUnit;
  const double y0 = yRange_.lo / units_.nsPerUnit, y1 = yRange_.hi / units_.nsPerUnit;
  if (logCost_) {
    setLogRange(logAxisX_, x0, x1);
  } else {
    setNiceRange(axisX_, x0, x1, 8, !zoomed_);  // zoomed: the user's range, nice ticks
  }
  if (logTime_) {
    setLogRange(logAxisY_, y0, y1);
  } else {
    setNiceRange(axisY_, y0, y1, 6, !zoomed_);
  }
  // The budget spans the plot's height as shown.
  const double top = logTime_ ? logAxisY_->max() : axisY_->max();
  const double bottom = logTime_ ? logAxisY_->min() : axisY_->min();
  QList<QPointF> budget;
  const double left = logCost_ ? logAxisX_->min() : axisX_->min();
  const double right = logCost_ ? logAxisX_->max() : axisX_->max();
  if (budgetUsd_ && (!logCost_ || *budgetUsd_ > 0)) {
    const double b = *budgetUsd_ / units_.usdPerUnit;
    if (b >= left && b <= right) budget = {QPointF(b, bottom), QPointF(b, top)};
  }
  budget_->replace(budget);
  // Its legend entry only while the line is on the chart (it stayed when a
  // zoom or a far budget left the line off it).
  bool legendChanged = false;
  for (QLegendMarker* m : chart()->legend()->markers(budget_)) {
    if (m->isVisible() != !budget.isEmpty()) {
      m->setVisible(!budget.isEmpty());
      legendChanged = true;
    }
  }
  // A marker shown or hidden does not lay the legend out again by itself: its
  // entries overlapped, or left a gap where the hidden one was.
  if (legendChanged) chart()->legend()->layout()->invalidate();
}

QPointF ParetoChartView::valueAt(const QPointF& at) const {
  const QPointF v =
      chart()->mapToValue(chart()->mapFromScene(mapToScene(at.toPoint())), frontLine_);
  return {v.x() * units_.usdPerUnit, v.y() * units_.nsPerUnit};
}

void ParetoChartView::zoomAt(const QPointF& at, double factor) {
  if (!hasRange_ || !(factor > 0)) return;
  const QPointF c = valueAt(at);
  auto scale = [factor](AxisRange r, double centre, bool log) {
    if (log && centre > 0 && r.lo > 0) {
      const double lc = std::log10(centre);
      return AxisRange{std::pow(10.0, lc - (lc - std::log10(r.lo)) * factor),
                       std::pow(10.0, lc + (std::log10(r.hi) - lc) * factor)};
    }
    return AxisRange{centre - (centre - r.lo) * factor, centre + (r.hi - centre) * factor};
  };
  const AxisRange x = scale(xRange_, c.x(), logCost_), y = scale(yRange_, c.y(), logTime_);
  // Not below a millionth of the value, not past what a double tells apart.
  if (!(x.hi - x.lo > 1e-6 * std::fabs(x.hi)) || !(y.hi - y.lo > 1e-6 * std::fabs(y.hi))) return;
  xRange_ = x;
  yRange_ = y;
  zoomed_ = true;
  resetZoom_->setEnabled(true);
  applyRanges();
  keepUnder(at, c);
}

void ParetoChartView::keepUnder(const QPointF& at, const QPointF& value) {
  // New tick labels can change the plot's width: lay out, then shift the
  // ranges so that `value` is under `at` again (twice at most: the labels of
  // the shifted range are as wide).
  auto shift = [](AxisRange r, double want, double got, bool log) {
    if (log && want > 0 && got > 0) return AxisRange{r.lo * want / got, r.hi * want / got};
    return AxisRange{r.lo + want - got, r.hi + want - got};
  };
  for (int i = 0; i < 3; ++i) {
    layOutNow();
    const QPointF now = valueAt(at);
    xRange_ = shift(xRange_, value.x(), now.x(), logCost_);
    yRange_ = shift(yRange_, value.y(), now.y(), logTime_);
    applyRanges();
  }
  layOutNow();
}

void ParetoChartView::resetZoom() {
  if (!zoomed_) return;
  zoomed_ = false;
  resetZoom_->setEnabled(false);
  redraw();
}

void ParetoChartView::setSelectedIndex(int index) {
  if (index == selectedIndex_) return;
  selectedIndex_ = index;
  useSelected_->setEnabled(index >= 0);
  showOptimum_->setEnabled(index >= 0);
  redraw();
}

QPoint ParetoChartView::frontPointPosition(int index) const {
  if (index < 0 || index >= frontPoints_->count()) return {-1, -1};
  const QPointF scene =
      chart()->mapToScene(chart()->mapToPosition(frontPoints_->at(index), frontPoints_));
  return mapFromScene(scene);
}

int ParetoChartView::frontPointAt(const QPoint& at, double radius) const {
  int best = -1;
  double bestDistance = radius;
  for (int i = 0; i < frontPoints_->count(); ++i) {
    const QPoint p = frontPointPosition(i);
    const double d = std::hypot(p.x() - at.x(), p.y() - at.y());
    if (d <= bestDistance) {
      bestDistance = d;
      best = i;
    }
  }
  return best;
}

void ParetoChartView::mousePressEvent(QMouseEvent* event) {
  dragging_ = false;
  pressAt_.reset();
  if (event->button() == Qt::LeftButton && chart()->plotArea().contains(chart()->mapFromScene(
                                               mapToScene(event->position().toPoint())))) {
    pressAt_ = event->position().toPoint();
    lastDragAt_ = *pressAt_;
  }
  ResultChartView::mousePressEvent(event);
}

void ParetoChartView::mouseMoveEvent(QMouseEvent* event) {
  if (pressAt_ && (event->buttons() & Qt::LeftButton)) {
    const QPoint at = event->position().toPoint();
    if (!dragging_ && (at - *pressAt_).manhattanLength() >= QApplication::startDragDistance())
      dragging_ = true;
    if (dragging_ && hasRange_) {
      // The value under the press stays under the cursor.
      const QPointF grabbed = valueAt(lastDragAt_);
      zoomed_ = true;
      resetZoom_->setEnabled(true);
      keepUnder(at, grabbed);
      lastDragAt_ = at;
      setCursor(Qt::ClosedHandCursor);
    }
  }
  ResultChartView::mouseMoveEvent(event);
}

void ParetoChartView::mouseReleaseEvent(QMouseEvent* event) {
  const bool click = pressAt_ && !dragging_ && event->button() == Qt::LeftButton;
  if (dragging_) unsetCursor();
  pressAt_.reset();
  dragging_ = false;
  ResultChartView::mouseReleaseEvent(event);
  if (click) {
    const int index = frontPointAt(event->position().toPoint());
    if (index >= 0) Q_EMIT frontPointClicked(index);
  }
}

void ParetoChartView::mouseDoubleClickEvent(QMouseEvent* event) {
  ResultChartView::mouseDoubleClickEvent(event);
  if (event->button() != Qt::LeftButton) return;
  const int index = frontPointAt(event->position().toPoint());
  if (index >= 0) Q_EMIT frontPointActivated(index);
}

void ParetoChartView::wheelEvent(QWheelEvent* event) {
  const int steps = event->angleDelta().y();
  if (steps == 0) return ResultChartView::wheelEvent(event);
  // One notch (120) zooms in by 20 %, the other way out by as much.
  zoomAt(event->position(), std::pow(0.8, steps / 120.0));
  event->accept();
}

void ParetoChartView::keyPressEvent(QKeyEvent* event) {
  if ((event->key() == Qt::Key_Escape || event->key() == Qt::Key_0) && zoomed_) {
    resetZoom();
    event->accept();
    return;
  }
  ResultChartView::keyPressEvent(event);
}

void ParetoChartView::contextMenuEvent(QContextMenuEvent* event) {
  const int index = frontPointAt(event->pos());
  if (index >= 0 && index != selectedIndex_) Q_EMIT frontPointClicked(index);
  QMenu menu(this);
  menu.addAction(useSelected_);
  menu.addAction(showOptimum_);
  menu.addSeparator();
  menu.addAction(resetZoom_);
  menu.addAction(logCostAction_);
  menu.addAction(logTimeAction_);
  menu.exec(event->globalPos());
}

void ParetoChartView::showTooltip(const QPointF& point, bool state) {
  if (!state || !lastResult_.analysis) {
    QToolTip::hideText();
    return;
  }
  // The nearest design among the front and the markers.
  const std::vector<double>* bestSplit = nullptr;
  const Evaluation* bestEval = nullptr;
  QString label;
  double bestDistance = std::numeric_limits<double>::infinity();
  // Distances in screen space, so both axes weigh alike (log axes too).
  const QPointF at = chart()->mapToPosition(point, frontLine_);
  auto consider = [&](const std::vector<double>& split, const Evaluation& e, const QString& what) {
    if (!e.finite) return;
    const QPointF p = chart()->mapToPosition(units_.toChart(e.costUsd, e.iterationNs), frontLine_);
    const double dist = std::hypot(p.x() - at.x(), p.y() - at.y());
    if (dist < bestDistance - 1e-9) {
      bestDistance = dist;
      bestSplit = &split;
      bestEval = &e;
      label = what;
    }
  };
  const Analysis& a = lastResult_.a();
  const Analysis* frontOf = lastFront_ ? lastFront_->analysis.get() : nullptr;
  if (a.ok())
    consider(a.design.bandwidth, a.design.eval, a.evaluated ? tr("Design") : tr("Optimum"));
  if (frontOf && frontOf->hasFront()) {
    const Solution& best = frontOf->front.perfPerCostOptimum;
    if (best.ok()) consider(best.bandwidth, best.eval, tr("Best perf per cost"));
    for (const Solution& s : frontOf->front.points) {
      if (s.ok()) consider(s.bandwidth, s.eval, tr("Pareto point"));
    }
  }
  if (a.ok() && a.baseline) {
    consider(a.baseline->design.bandwidth, a.baseline->design.eval, tr("Equal split"));
  }
  if (!bestEval) return;
  const std::vector<std::string> names =
      a.problem ? a.problem->dimNames : std::vector<std::string>{};
  const QString text = tr("<b>%1</b><br>iteration %2, cost %3<br>%4")
                           .arg(label, formatTimeNs(bestEval->iterationNs),
                                formatCostUsd(bestEval->costUsd), formatSplit(names, *bestSplit));
  QToolTip::showText(QCursor::pos(), text, this);
}

// ---------------------------------------------------------------------------

BandwidthChartView::BandwidthChartView(QWidget* parent) : ResultChartView(parent) {
  setObjectName(QStringLiteral("bandwidthChart"));
  setRenderHint(QPainter::Antialiasing, false);  // axis-aligned bars: crisp and cheaper without
  QChart* chart = makeChart(tr("Bandwidth per dimension"));
  series_ = new QBarSeries;
  optimumSet_ = new QBarSet(tr("Optimum"));
  optimumSet_->setColor(kOptimumColor);
  optimumSet_->setBorderColor(kOptimumColor);
  equalSet_ = new QBarSet(tr("Equal split"));
  equalSet_->setColor(kEqualSplitColor.lighter(130));
  equalSet_->setBorderColor(kEqualSplitColor.lighter(130));
  series_->append(optimumSet_);
  series_->append(equalSet_);
  chart->addSeries(series_);
  axisX_ = new QBarCategoryAxis;
  axisX_->setTruncateLabels(false);  // "pack..." said nothing; crowded names tilt instead
  axisY_ = new QValueAxis;
  axisY_->setTitleText(tr("GB/s per NPU"));
  axisY_->setLabelFormat(QStringLiteral("%.0f"));
  chart->addAxis(axisX_, Qt::AlignBottom);
  chart->addAxis(axisY_, Qt::AlignLeft);
  series_->attachAxis(axisX_);
  series_->attachAxis(axisY_);
  connect(series_, &QBarSeries::hovered, this, [this](bool status, int index, QBarSet* set) {
    if (!status) return QToolTip::hideText();
    QToolTip::showText(
        QCursor::pos(),
        tr("%1, %2: %3").arg(set->label(), axisX_->at(index), formatBandwidth(set->at(index))),
        this);
  });
  adoptChart(chart);
}

void BandwidthChartView::resizeEvent(QResizeEvent* event) {
  ResultChartView::resizeEvent(event);
  tiltCrowdedLabels();
}

void BandwidthChartView::tiltCrowdedLabels() {
  // Names wider than their category would overlap: tilt them (then they need
  // about a line height each).
  const QStringList names = axisX_->categories();
  if (names.isEmpty() || !chart()->plotArea().isValid()) return;
  const QFontMetrics metrics(axisX_->labelsFont());
  int widest = 0;
  for (const QString& name : names) widest = std::max(widest, metrics.horizontalAdvance(name));
  const double room = chart()->plotArea().width() / names.size();
  const int angle = widest + metrics.averageCharWidth() > room ? -35 : 0;
  if (axisX_->labelsAngle() != angle) {
    axisX_->setLabelsAngle(angle);
    layOutNow();
  }
}

void BandwidthChartView::setDesignLabel(const QString& label) {
  optimumSet_->setLabel(label);
}

void BandwidthChartView::redraw() {
  if (!last_.analysis) return;
  const SolveResult result = last_;
  showResult(result);
}

void BandwidthChartView::showResult(const SolveResult& result) {
  last_ = result;
  const Analysis& a = result.a();
  const std::vector<std::string> names =
      a.problem ? a.problem->dimNames : std::vector<std::string>{};
  const int dims = static_cast<int>(names.size());
  QStringList categories;
  for (const auto& name : names) categories << shownName(name);
  if (axisX_->categories() != categories) axisX_->setCategories(categories);
  auto fill = [dims](QBarSet* set, const std::vector<double>& values) {
    if (set->count() != dims) {
      set->remove(0, set->count());
      for (int d = 0; d < dims; ++d) set->append(0.0);
    }
    for (int d = 0; d < dims; ++d)
      set->replace(d, d < static_cast<int>(values.size()) ? values[d] : 0.0);
  };
  fill(optimumSet_, a.ok() ? a.design.bandwidth : std::vector<double>{});
  fill(equalSet_, a.ok() && a.baseline ? a.baseline->design.bandwidth : std::vector<double>{});
  double top = 0;
  for (int d = 0; d < dims; ++d) top = std::max({top, optimumSet_->at(d), equalSet_->at(d)});
  const double fitted = top > 0 ? top * 1.12 : 1;
  const double shown = heldTop(axisY_->max(), top, fitted);
  if (shown != fitted) {
    axisY_->setRange(0, shown);  // held: keep the scale while the bars stay in it
  } else {
    setNiceRange(axisY_, 0, fitted, 5);
  }
  setShownGeneration(result.generation);
  layOutNow();
  tiltCrowdedLabels();
}

// ---------------------------------------------------------------------------

BreakdownChartView::BreakdownChartView(QWidget* parent) : ResultChartView(parent) {
  setObjectName(QStringLiteral("breakdownChart"));
  setRenderHint(QPainter::Antialiasing, false);
  QChart* chart = makeChart(tr("Iteration time breakdown"));
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->legend()->setToolTip(tr("Compute, then the exposed communication each dimension paces"));
  series_ = new QHorizontalStackedBarSeries;
  series_->setBarWidth(0.6);
  chart->addSeries(series_);
  axisY_ = new QBarCategoryAxis;
  axisY_->setCategories({tr("Equal split"), tr("Optimum")});
  axisY_->setTruncateLabels(false);  // the plot gives way to "Equal split", not the reverse
  axisX_ = new QValueAxis;
  axisX_->setTitleText(tr("ms"));
  axisX_->setLabelFormat(QStringLiteral("%.0f"));
  chart->addAxis(axisY_, Qt::AlignLeft);
  chart->addAxis(axisX_, Qt::AlignBottom);
  series_->attachAxis(axisY_);
  series_->attachAxis(axisX_);
  connect(series_, &QHorizontalStackedBarSeries::hovered, this,
          [this](bool status, int index, QBarSet* set) {
            if (!status) return QToolTip::hideText();
            const QString part = set == sets_.value(0)
                                     ? set->label()
                                     : tr("communication paced by %1").arg(set->label());
            QToolTip::showText(QCursor::pos(),
                               tr("%1, %2: %3 %4")
                                   .arg(axisY_->at(index), part)
                                   .arg(formatFixed(set->at(index), 3))
                                   .arg(axisX_->titleText()),
                               this);
          });
  adoptChart(chart);
}

void BreakdownChartView::setDesignLabel(const QString& label) {
  axisY_->replace(axisY_->at(1), label);
}

int BreakdownChartView::timeTicks() const {
  // A label about every 50 px: a narrow chart elided every one of six.
  const double width = chart()->plotArea().width();
  return width > 0 ? std::clamp(static_cast<int>(width / 50), 2, 6) : 6;
}

void BreakdownChartView::resizeEvent(QResizeEvent* event) {
  const int ticks = timeTicks();
  ResultChartView::resizeEvent(event);
  layOutNow();
  if (timeTicks() != ticks) redraw();
}

void BreakdownChartView::redraw() {
  if (!last_.analysis) return;
  const SolveResult result = last_;
  showResult(result);
}

void BreakdownChartView::showResult(const SolveResult& result) {
  last_ = result;
  const Analysis& a = result.a();
  const std::vector<std::string> names =
      a.problem ? a.problem->dimNames : std::vector<std::string>{};
  const int dims = static_cast<int>(names.size());
  QStringList labels{tr("Compute")};
  // Short labels in a legend at the right: one entry a line, never cut (at the
  // bottom, five "package comm." entries did not fit a 330 px chart).
  for (const auto& n : names) labels << toQString(n);
  bool sameStructure = sets_.size() == labels.size();
  for (int i = 0; sameStructure && i < sets_.size(); ++i)
    sameStructure = sets_[i]->label() == labels[i];
  if (!sameStructure) {
    series_->clear();  // the dimension list changed: a structural change, not a tick
    sets_.clear();
    for (int i = 0; i < labels.size(); ++i) {
      auto* set = new QBarSet(labels[i]);
      const QColor c = i == 0 ? QColor(0xc7c7c7) : dimensionColor(i - 1);
      set->setColor(c);
      set->setBorderColor(c);
      set->append({0.0, 0.0});
      series_->append(set);
      sets_.append(set);
    }
  }
  // Row 0: equal split, row 1: the design. The engine attributes each
  // collective's exposed time to the dimension(s) that pace it.
  const DesignResult* rows[2] = {a.ok() && a.baseline ? &a.baseline->design : nullptr,
                                 a.ok() ? &a.design : nullptr};
  double topNs = 0;
  for (const DesignResult* d : rows) {
    if (d && d->eval.finite) topNs = std::max(topNs, d->eval.iterationNs);
  }
  const ChartUnits units = ChartUnits::forExtent(0, topNs);  // the Pareto chart's time units
  const double ns = units.nsPerUnit;
  for (int row = 0; row < 2; ++row) {
    const DesignResult* d = rows[row];
    const bool finite = d && d->eval.finite;
    sets_[0]->replace(row, finite ? d->eval.computeNs / ns : 0.0);
    for (int dim = 0; dim < dims; ++dim) {
      const bool has = finite && dim < static_cast<int>(d->dims.size());
      sets_[dim + 1]->replace(row, has ? d->dims[dim].exposedNs / ns : 0.0);
    }
  }
  const bool sameUnit = axisX_->titleText() == units.timeUnit;
  if (!sameUnit) axisX_->setTitleText(units.timeUnit);
  const double fitted = topNs > 0 ? topNs / ns * 1.02 : 1;
  const double shown = sameUnit ? heldTop(axisX_->max(), topNs / ns, fitted) : fitted;
  if (shown != fitted) {
    axisX_->setRange(0, shown);  // held: keep the scale while the bars stay in it
  } else {
    setNiceRange(axisX_, 0, fitted, timeTicks());
  }
  setShownGeneration(result.generation);
  layOutNow();
}

}  // namespace libra::studio
