// Export for design reviews: the result charts as one figure (PNG, SVG, PDF) and
// the numbers (CSV and JSON, written by the engine's one writer of results). Figures are drawn by a
// ResultsView of their own at a fixed size, so they do not depend on the window.
#pragma once

#include <QByteArray>
#include <QList>
#include <QSize>
#include <QString>

#include "charts.hpp"
#include "output_file.hpp"
#include "solver_controller.hpp"

namespace libra::studio {

inline constexpr QSize kFigureSize{1600, 1000};

// What the window's Pareto chart shows besides the result, so that a figure is
// what the screen shows: the equal split shown or hidden, log axes, the other
// scenarios' fronts and the name of this one.
struct FigureView {
  bool equalSplitShown = true;
  bool logCost = false;
  bool logTime = false;
  QList<FrontOverlay> overlays;
  QString frontName;  // empty: "Pareto front"
};
FigureView figureViewOf(const ParetoChartView& chart);

// Draws the figure of `result` under `heading` as `view` says and writes it
// atomically. Returns false and says why in `error`.
bool exportFigure(const SolveResult& result, const QString& heading, const QString& path,
                  FigureFormat format, QString* error, const FigureView& view = {},
                  QSize size = kFigureSize);

// One row per design: the optimum, the perf-per-cost optimum, every Pareto point and
// the equal split (libra::designsCsv).
QByteArray resultsCsv(const SolveResult& result);
// What `libra solve --json` prints, plus "pareto" with `libra pareto --json`'s
// object (libra::analysisJson with the front).
QByteArray resultsJson(const SolveResult& result);

// The heading of a figure: project name, objective and network.
QString figureHeading(const QString& projectName, const SolveResult& result);

}  // namespace libra::studio
