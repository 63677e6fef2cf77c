// The three result charts. Each reads a SolveResult's Analysis and updates its series in
// place (QXYSeries::replace, QBarSet::replace): never clear + append, so a live
// drag costs one scene update per chart.
#pragma once

#include <QChartView>
#include <QList>
#include <QPointF>

#include "solver_controller.hpp"

QT_BEGIN_NAMESPACE
class QBarCategoryAxis;
class QBarSeries;
class QBarSet;
class QHorizontalStackedBarSeries;
class QLabel;
class QLineSeries;
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

 Q_SIGNALS:
  void framePainted(quint64 generation);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void setShownGeneration(quint64 generation) { shownGeneration_ = generation; }
  // Lays the chart out at once (every showResult ends with it).
  void layOutNow();

 private:
  void placeBadge();

  QLabel* staleLabel_;
  QChart* badgeChart_ = nullptr;  // whose plotAreaChanged moves the badge
  bool stale_ = false;
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

// Cost against iteration time, in the units of ChartUnits: the front, the
// optimum, the perf-per-cost optimum, the equal-split baseline and the cost budget.
class ParetoChartView : public ResultChartView {
  Q_OBJECT

 public:
  explicit ParetoChartView(QWidget* parent = nullptr);
  // The design of `result` over the front of `front` (the result itself once it
  // is complete, the last complete one while its own front is computed; may be null).
  void showResult(const SolveResult& result, const SolveResultPtr& front);

  QLineSeries* frontSeries() const { return frontLine_; }
  QScatterSeries* optimumSeries() const { return optimum_; }
  QScatterSeries* perfPerCostSeries() const { return perfPerCost_; }
  QScatterSeries* equalSplitSeries() const { return equalSplit_; }
  // The equal-split marker, and whether the axes make room for it (clicking its
  // legend entry toggles it).
  void setEqualSplitShown(bool shown);
  bool equalSplitShown() const { return equalSplitShown_; }
  QValueAxis* costAxis() const { return axisX_; }
  QValueAxis* timeAxis() const { return axisY_; }
  // The units of what is shown (the series' points are in them).
  const ChartUnits& units() const { return units_; }

 private:
  void showTooltip(const QPointF& point, bool state);

  QLineSeries* frontLine_;
  QScatterSeries* frontPoints_;
  QScatterSeries* optimum_;
  QScatterSeries* perfPerCost_;
  QScatterSeries* equalSplit_;
  QLineSeries* budget_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  ChartUnits units_ = ChartUnits::forExtent(0, 0);
  bool equalSplitShown_ = true;
  // What showResult last drew (the tooltip reads it; hiding the equal split redraws it).
  SolveResult lastResult_;
  SolveResultPtr lastFront_;
};

// Bandwidth per dimension (GB/s per NPU): the optimum beside the equal split.
class BandwidthChartView : public ResultChartView {
  Q_OBJECT

 public:
  explicit BandwidthChartView(QWidget* parent = nullptr);
  void showResult(const SolveResult& result);
  QBarSet* optimumSet() const { return optimumSet_; }

 private:
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

 private:
  QHorizontalStackedBarSeries* series_;
  QBarCategoryAxis* axisY_;
  QValueAxis* axisX_;
  QList<QBarSet*> sets_;  // compute, then one per dimension
};

}  // namespace libra::studio
