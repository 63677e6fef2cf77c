// The three result charts. Each reads a SolveResult's Analysis and updates its series in
// place (QXYSeries::replace, QBarSet::replace): never clear + append, so a live
// drag costs one scene update per chart.
#pragma once

#include <QChartView>
#include <QColor>
#include <QList>
#include <QPointF>
#include <optional>

#include "solver_controller.hpp"

QT_BEGIN_NAMESPACE
class QBarCategoryAxis;
class QBarSeries;
class QBarSet;
class QHorizontalStackedBarSeries;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QAction;
class QScatterSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace libra::studio {

// Shared base: chart styling, the "stale" overlay and the painted-frame log.
class ResultChartView : public QChartView {
  Q_OBJECT

 public:
  explicit ResultChartView(QWidget* parent = nullptr);

  // Dims the series and shows `reason` over the chart while a newer result is pending.
  // The badge sits in the plot's top right corner, below the title, wrapped to
  // the plot's width when it is long.
  void setStale(bool stale, const QString& reason = {});
  bool isStale() const { return stale_; }
  QString staleReason() const;
  // The generation whose data the series hold (for the Pareto chart: whose front
  // is drawn), and the generations that reached the screen, in order, the last
  // kPaintedKept at least (for the tests and the latency measurement).
  static constexpr qsizetype kPaintedKept = 4096;
  quint64 shownGeneration() const { return shownGeneration_; }
  const QList<quint64>& paintedGenerations() const { return painted_; }
  // While held (a control of the window is being dragged), the axes keep their
  // range unless the data leave it; they fit the data again when the hold ends.
  void setAxesHeld(bool held);
  bool axesHeld() const { return held_; }

 Q_SIGNALS:
  void framePainted(quint64 generation);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void setShownGeneration(quint64 generation) { shownGeneration_ = generation; }
  // Draws the last result again (the hold ended: the axes fit the data).
  virtual void redraw() = 0;
  // [0, top] for bars reaching `top`: the range shown while held when they fit
  // in it, else `fitted`.
  double heldTop(double shownTop, double dataTop, double fitted) const {
    return held_ && dataTop <= shownTop && shownTop > 0 ? shownTop : fitted;
  }
  // Shows `chart` (the view owns it) and deletes the chart shown before.
  void adoptChart(QChart* chart);
  // Lays the chart out at once (every showResult ends with it).
  void layOutNow();

 private:
  void placeBadge();

  QLabel* staleLabel_;
  QChart* badgeChart_ = nullptr;  // whose plotAreaChanged moves the badge
  bool stale_ = false;
  bool held_ = false;
  quint64 shownGeneration_ = 0;
  quint64 lastPainted_ = 0;
  QList<quint64> painted_;
};

// The units of the Pareto chart's axes, chosen from the largest value shown:
// thousand, million or billion $; µs, ms or s.
struct ChartUnits {
  double usdPerUnit = 1e6;
  double nsPerUnit = 1e6;
  QString costUnit;  // "million $"
  QString timeUnit;  // "ms"
  static ChartUnits forExtent(double maxCostUsd, double maxTimeNs);
  QPointF toChart(double costUsd, double timeNs) const {
    return {costUsd / usdPerUnit, timeNs / nsPerUnit};
  }
};

// A range of an axis in the model's units ($ or ns), lo < hi.
struct AxisRange {
  double lo = 0;
  double hi = 1;
  bool contains(double lo2, double hi2) const { return lo2 >= lo && hi2 <= hi; }
  bool operator==(const AxisRange&) const = default;
};

// The front of another scenario of the project drawn over the shown one's
// (comparing designs, issue 10 item 2): a line in its own colour with its
// optimum, named after the scenario in the legend.
struct FrontOverlay {
  QString name;           // the scenario's name: its legend entry
  QColor color;           // scenarioColor()
  SolveResultPtr result;  // its analysis (front and optimum); may have failed
  bool stale = false;     // of an earlier version of the scenario; a newer one is on its way

  bool operator==(const FrontOverlay&) const = default;
};

// The colour of the scenario at `position` in the project when it is overlaid
// (the shown scenario's front keeps the front's colour).
QColor scenarioColor(int position);
// The colour of the shown (active) scenario's front.
QColor activeFrontColor();

// Cost against iteration time, in the units of ChartUnits: the front, the
// optimum, the perf-per-cost optimum, the equal-split baseline, the cost budget
// and the selected front point.
//
// Reading it: hovering a point shows its cost, time and split; a click on a
// front point selects it (frontPointClicked), a double click asks to make it
// the current design (frontPointActivated). The wheel zooms about the cursor, a
// drag on the plot pans, Escape or 0 (or the context menu) goes back to the
// fitted view. Either axis can be logarithmic. While the axes are held (a
// slider of the window is being dragged) they stay where they are unless the
// data leave them; they fit the data again when the hold ends.
class ParetoChartView : public ResultChartView {
  Q_OBJECT

 public:
  explicit ParetoChartView(QWidget* parent = nullptr);
  // The design of `result` over the front of `front` (the result itself once it
  // is complete, the last complete one while its own front is computed; may be null).
  void showResult(const SolveResult& result, const SolveResultPtr& front);

  QLineSeries* frontSeries() const { return frontLine_; }
  QScatterSeries* optimumSeries() const { return optimum_; }
  QLineSeries* budgetSeries() const { return budget_; }
  QScatterSeries* perfPerCostSeries() const { return perfPerCost_; }
  QScatterSeries* equalSplitSeries() const { return equalSplit_; }
  QScatterSeries* selectedSeries() const { return selected_; }
  // The other scenarios' fronts drawn over this one (empty: none); redraws.
  void setOverlays(const QList<FrontOverlay>& overlays);
  const QList<FrontOverlay>& overlays() const { return overlays_; }
  // One line per overlay, in order, named after its scenario ("(updating…)"
  // added while stale); and the optimum marker of each.
  const QList<QLineSeries*>& overlaySeries() const { return overlayLines_; }
  const QList<QScatterSeries*>& overlayOptimumSeries() const { return overlayOptima_; }
  // The legend name of the shown front: "Pareto front", or the scenario's when
  // the project has several.
  void setFrontName(const QString& name);
  // The equal-split marker, and whether the axes make room for it (clicking its
  // legend entry toggles it).
  void setEqualSplitShown(bool shown);
  bool equalSplitShown() const { return equalSplitShown_; }
  // The linear axes (shown unless the axis is logarithmic).
  QValueAxis* costAxis() const { return axisX_; }
  QValueAxis* timeAxis() const { return axisY_; }
  // The axes shown: a QValueAxis or a QLogValueAxis.
  QAbstractAxis* shownCostAxis() const;
  QAbstractAxis* shownTimeAxis() const;
  // The visible ranges, in $ and ns.
  AxisRange costRange() const { return xRange_; }
  AxisRange timeRange() const { return yRange_; }
  // The ranges that fit the data shown (what the axes show unless zoomed or held).
  AxisRange fittedCostRange() const { return fitX_; }
  AxisRange fittedTimeRange() const { return fitY_; }
  // The units of what is shown (the series' points are in them).
  const ChartUnits& units() const { return units_; }

  // Logarithmic axes (the window keeps the choice in the project's view state).
  void setLogAxes(bool logCost, bool logTime);
  bool logCost() const { return logCost_; }
  bool logTime() const { return logTime_; }
  // Zoom: the visible ranges are set by the user, not fitted to the data.
  bool isZoomed() const { return zoomed_; }
  // Zooms by `factor` (< 1 zooms in) about the viewport point `at`.
  void zoomAt(const QPointF& at, double factor);
  void resetZoom();
  // The front point drawn as selected (-1: none).
  void setSelectedIndex(int index);
  int selectedIndex() const { return selectedIndex_; }
  // The index of the front point drawn within `radius` pixels of the viewport
  // point `at`, the nearest; -1 when there is none.
  int frontPointAt(const QPoint& at, double radius = 8) const;
  // Where front point `index` is drawn, in viewport coordinates.
  QPoint frontPointPosition(int index) const;

  QAction* resetZoomAction() const { return resetZoom_; }
  QAction* logCostAction() const { return logCostAction_; }
  QAction* logTimeAction() const { return logTimeAction_; }
  QAction* useSelectedAction() const { return useSelected_; }
  QAction* showOptimumAction() const { return showOptimum_; }

 Q_SIGNALS:
  void frontPointClicked(int index);
  void frontPointActivated(int index);
  // The user toggled a logarithmic axis (the view state is the controller's).
  void logAxesRequested(bool logCost, bool logTime);

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  // The constructor's parts: the series, styled; the axes, with the series
  // attached; the actions of the context menu and shortcuts.
  void createSeries();
  void addAxesAndSeries(QChart* chart);
  void createActions();
  // The axes' titles (and the chart's) for the cost scope and the units shown.
  void setAxisTitles(bool systemCost);
  void showTooltip(const QPointF& point, bool state);
  // Puts the ranges on the axes, the budget line across them.
  void applyRanges();
  // Shifts the ranges so that `value` ($, ns) is drawn at the viewport point `at`.
  void keepUnder(const QPointF& at, const QPointF& value);
  void attachAxes();
  // The value (in $, ns) at a viewport point.
  QPointF valueAt(const QPointF& at) const;
  void redraw() override;
  // Makes one line and one optimum marker per overlay, named and coloured.
  void rebuildOverlaySeries();
  // The legend entries: which series have none, the equal split's (clickable, greyed when hidden).
  void decorateLegend();
  void toggleEqualSplit();
  void showOverlayTooltip(int overlay, const QPointF& point, bool state);

  QLineSeries* frontLine_;
  QScatterSeries* frontPoints_;
  QScatterSeries* optimum_;
  QScatterSeries* perfPerCost_;
  QScatterSeries* equalSplit_;
  QScatterSeries* selected_;
  QLineSeries* budget_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  QLogValueAxis* logAxisX_;
  QLogValueAxis* logAxisY_;
  QAction* resetZoom_;
  QAction* logCostAction_;
  QAction* logTimeAction_;
  QAction* useSelected_;
  QAction* showOptimum_;
  ChartUnits units_ = ChartUnits::forExtent(0, 0);
  bool equalSplitShown_ = true;
  bool logCost_ = false;
  bool logTime_ = false;
  bool zoomed_ = false;
  bool hasRange_ = false;
  AxisRange xRange_, yRange_;  // visible, in $ and ns
  AxisRange fitX_, fitY_;      // fitted to the data
  std::optional<double> budgetUsd_;
  int selectedIndex_ = -1;
  // A press on the plot: where, and whether it became a drag (a pan).
  std::optional<QPoint> pressAt_;
  QPoint lastDragAt_;
  bool dragging_ = false;
  // What showResult last drew (the tooltip reads it; hiding the equal split redraws it).
  SolveResult lastResult_;
  SolveResultPtr lastFront_;
  QList<FrontOverlay> overlays_;
  QList<QLineSeries*> overlayLines_;
  QList<QScatterSeries*> overlayOptima_;
  // The units the overlay series' points are in (redone when they change).
  double overlayUsdPerUnit_ = 0, overlayNsPerUnit_ = 0;
};

// Bandwidth per dimension (GB/s per NPU): the optimum beside the equal split.
class BandwidthChartView : public ResultChartView {
  Q_OBJECT

 public:
  explicit BandwidthChartView(QWidget* parent = nullptr);
  void showResult(const SolveResult& result);
  QBarSet* optimumSet() const { return optimumSet_; }
  QBarCategoryAxis* dimensionAxis() const { return axisX_; }
  QValueAxis* bandwidthAxis() const { return axisY_; }
  // The name of the design's bars: "Optimum", or the selected front point's.
  void setDesignLabel(const QString& label);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void redraw() override;
  void tiltCrowdedLabels();
  SolveResult last_;
  QBarSeries* series_;
  QBarSet* optimumSet_;
  QBarSet* equalSet_;
  QBarCategoryAxis* axisX_;
  QValueAxis* axisY_;
};

// Iteration time (ms) split into compute and the communication each dimension paces.
class BreakdownChartView : public ResultChartView {
  Q_OBJECT

 public:
  explicit BreakdownChartView(QWidget* parent = nullptr);
  void showResult(const SolveResult& result);
  QValueAxis* timeAxis() const { return axisX_; }
  QBarCategoryAxis* designAxis() const { return axisY_; }
  const QList<QBarSet*>& sets() const { return sets_; }
  // The name of the design's row: "Optimum", or the selected front point's.
  void setDesignLabel(const QString& label);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void redraw() override;
  int timeTicks() const;
  SolveResult last_;
  QHorizontalStackedBarSeries* series_;
  QBarCategoryAxis* axisY_;
  QValueAxis* axisX_;
  QList<QBarSet*> sets_;  // compute, then one per dimension
};

}  // namespace libra::studio
