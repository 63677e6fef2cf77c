// Export for design reviews: the result charts as one figure (PNG, SVG, PDF) and
// the numbers (CSV, JSON with the command line's keys). Figures are drawn by a
// ResultsView of their own at a fixed size, so they do not depend on the window.
#pragma once

#include <QByteArray>
#include <QSize>
#include <QString>

#include "solver_controller.hpp"

namespace libra::studio {

enum class FigureFormat { Png, Svg, Pdf };
// By the file's suffix: .png, .svg or .pdf; nullopt otherwise.
std::optional<FigureFormat> figureFormatFor(const QString& path);

inline constexpr QSize kFigureSize{1600, 1000};

// Draws the figure of `result` under `heading` and writes it atomically. Returns
// false and says why in `error`.
bool exportFigure(const SolveResult& result, const QString& heading, const QString& path,
                  FigureFormat format, QString* error, QSize size = kFigureSize);

// One row per Pareto point plus the optimum, the perf-per-cost optimum and the equal
// split; bandwidths in GB/s per NPU, time in ns, cost in $.
QByteArray resultsCsv(const SolveResult& result);
// {"optimum": {solve keys}, "pareto": {"points": [...], "perf_per_cost_optimum": {...}},
//  "equal_split": {...}, "dimensions": [...]} with the keys of `libra solve --json`.
QByteArray resultsJson(const SolveResult& result, const QString& projectName);

// Writes through QSaveFile (temporary file + rename).
bool writeFileAtomic(const QString& path, const QByteArray& bytes, QString* error);

// The heading of a figure: project name, objective and network.
QString figureHeading(const QString& projectName, const SolveResult& result);

}  // namespace libra::studio
