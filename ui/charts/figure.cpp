#include "figure.hpp"

#include <QBuffer>
#include <QImage>
#include <QObject>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>

namespace libra::studio {

bool drawFigure(FigureFormat format, const FigurePage& page,
                const std::function<void(QPainter&)>& draw, QByteArray& out, QString* error) {
  QBuffer buffer(&out);
  buffer.open(QIODevice::WriteOnly);
  switch (format) {
    case FigureFormat::Png: {
      const qreal ratio = 1.5;
      QImage image(page.size * ratio, QImage::Format_ARGB32_Premultiplied);
      image.setDevicePixelRatio(ratio);
      image.fill(Qt::white);
      QPainter painter(&image);
      draw(painter);
      painter.end();
      if (!image.save(&buffer, "PNG")) {
        if (error) *error = QObject::tr("the PNG encoder failed");
        return false;
      }
      break;
    }
    case FigureFormat::Svg: {
      QSvgGenerator svg;
      svg.setOutputDevice(&buffer);
      svg.setSize(page.size);
      svg.setViewBox(QRect(QPoint(0, 0), page.size));
      // Font sizes in the SVG are pixels of the view box; at the generator's
      // default 72 dpi a 9 pt label laid out at 12 px on a 96 dpi screen was
      // written as font-size="9" (issue 28 item 2).
      svg.setResolution(page.dpi);
      svg.setTitle(page.title);
      if (!page.description.isEmpty()) svg.setDescription(page.description);
      QPainter painter(&svg);
      draw(painter);
      painter.end();
      break;
    }
    case FigureFormat::Pdf: {
      QPdfWriter pdf(&buffer);
      pdf.setTitle(page.title);
      pdf.setCreator(QStringLiteral("Libra Studio"));
      pdf.setPageSize(QPageSize(QPageSize::A4));
      pdf.setPageOrientation(QPageLayout::Landscape);
      pdf.setPageMargins(QMarginsF(10, 10, 10, 10), QPageLayout::Millimeter);
      pdf.setResolution(150);
      QPainter painter(&pdf);
      const QRect area = painter.viewport();
      const double scale = std::min(area.width() / static_cast<double>(page.size.width()),
                                    area.height() / static_cast<double>(page.size.height()));
      painter.scale(scale, scale);
      draw(painter);
      painter.end();
      break;
    }
  }
  buffer.close();
  return true;
}

bool writeFigure(const QString& path, FigureFormat format, const FigurePage& page,
                 const std::function<void(QPainter&)>& draw, QString* error) {
  QByteArray bytes;
  if (!drawFigure(format, page, draw, bytes, error)) {
    if (error) *error = path + QStringLiteral(": ") + *error;
    return false;
  }
  return writeFileAtomic(path, bytes, error);
}

}  // namespace libra::studio
