// A figure drawn into a file's bytes: PNG, SVG or PDF, the same way for every
// view that exports one (the result charts, the comparison table, the design
// space).
#pragma once

#include <QByteArray>
#include <QSize>
#include <QString>
#include <functional>

#include "output_file.hpp"

QT_BEGIN_NAMESPACE
class QPainter;
QT_END_NAMESPACE

namespace libra::studio {

struct FigurePage {
  QSize size;           // logical pixels that `draw` paints
  QString title;        // SVG and PDF metadata
  QString description;  // SVG metadata (may be empty)
  int dpi = 96;         // the screen's: SVG font sizes are pixels of its view box
};

// Paints `draw` as `format` into `out`: a PNG at 1.5 times the size (crisp
// enough for slides), an SVG of the size, or a landscape A4 PDF page the figure
// is scaled to fit. False, with `error`, when the PNG encoder fails.
bool drawFigure(FigureFormat format, const FigurePage& page,
                const std::function<void(QPainter&)>& draw, QByteArray& out, QString* error);
// drawFigure, then the bytes written to `path` atomically; an error names the path.
bool writeFigure(const QString& path, FigureFormat format, const FigurePage& page,
                 const std::function<void(QPainter&)>& draw, QString* error);

}  // namespace libra::studio
