#include "export.hpp"

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QImage>
#include <QLegend>
#include <QLineSeries>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <libra/project_io.hpp>

#include "format.hpp"
#include "results_view.hpp"

namespace libra::studio {

QString figureHeading(const QString& projectName, const SolveResult& result) {
  QString heading = projectName.isEmpty() ? QObject::tr("Libra Studio") : projectName;
  heading += QObject::tr(" — objective: %1")
                 .arg(result.a().objective == Objective::Performance
                          ? QObject::tr("performance")
                          : QObject::tr("performance per cost"));
  return heading;
}

FigureView figureViewOf(const ParetoChartView& chart) {
  FigureView v;
  v.equalSplitShown = chart.equalSplitShown();
  v.logCost = chart.logCost();
  v.logTime = chart.logTime();
  v.overlays = chart.overlays();
  v.frontName = chart.frontSeries()->name();
  return v;
}

namespace {

// `result` in a ResultsView laid out (not on screen) at `size`, with the chart
// choices of `shown`.
void prepareFigureView(ResultsView& view, const SolveResult& result, const QString& heading,
                       FigureFormat format, const FigureView& shown, QSize size) {
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.setHeading(heading);
  ParetoChartView* pareto = view.paretoChart();
  pareto->setEqualSplitShown(shown.equalSplitShown);
  pareto->setLogAxes(shown.logCost, shown.logTime);
  pareto->setOverlays(shown.overlays);
  if (!shown.frontName.isEmpty()) pareto->setFrontName(shown.frontName);
  view.setAutoFillBackground(true);
  view.setPalette(QPalette(Qt::white));
  view.resize(size);
  view.showResultNow(std::make_shared<const SolveResult>(result));
  view.show();  // not on screen: lays the charts out at `size`
  QApplication::sendPostedEvents();
  QApplication::processEvents();
  if (format != FigureFormat::Png) {
    // Qt 6.4's vector engines get the legend's clip of its entries wrong: the
    // PDF showed the first entry's label alone, without its swatch (poppler and
    // Ghostscript alike). The layout keeps every entry inside the legend, so
    // nothing needs the clip.
    for (QChartView* chart : view.findChildren<QChartView*>()) {
      if (chart->chart()) {
        chart->chart()->legend()->setFlag(QGraphicsItem::ItemClipsChildrenToShape, false);
      }
    }
  }
}

// Renders `view` as `format` into `out`; false, with `error`, when the PNG
// encoder fails.
bool renderFigure(ResultsView& view, const QString& heading, const QString& path,
                  FigureFormat format, QSize size, QIODevice& out, QString* error) {
  switch (format) {
    case FigureFormat::Png: {
      const qreal ratio = 1.5;  // crisp enough for slides without huge files
      QImage image(size * ratio, QImage::Format_ARGB32_Premultiplied);
      image.setDevicePixelRatio(ratio);
      image.fill(Qt::white);
      QPainter painter(&image);
      view.render(&painter);
      painter.end();
      if (!image.save(&out, "PNG")) {
        if (error) *error = QObject::tr("%1: the PNG encoder failed").arg(path);
        return false;
      }
      break;
    }
    case FigureFormat::Svg: {
      QSvgGenerator svg;
      svg.setOutputDevice(&out);
      svg.setSize(size);
      svg.setViewBox(QRect(QPoint(0, 0), size));
      // Font sizes in the SVG are pixels of the view box; at the generator's
      // default 72 dpi a 9 pt label laid out at 12 px on a 96 dpi screen was
      // written as font-size="9" (issue 28 item 2).
      svg.setResolution(view.logicalDpiY());
      svg.setTitle(heading);
      svg.setDescription(QObject::tr("Libra Studio results"));
      QPainter painter(&svg);
      view.render(&painter);
      painter.end();
      break;
    }
    case FigureFormat::Pdf: {
      QPdfWriter pdf(&out);
      pdf.setTitle(heading);
      pdf.setCreator(QStringLiteral("Libra Studio"));
      pdf.setPageSize(QPageSize(QPageSize::A4));
      pdf.setPageOrientation(QPageLayout::Landscape);
      pdf.setPageMargins(QMarginsF(10, 10, 10, 10), QPageLayout::Millimeter);
      pdf.setResolution(150);
      QPainter painter(&pdf);
      const QRect page = painter.viewport();
      const double scale = std::min(page.width() / static_cast<double>(size.width()),
                                    page.height() / static_cast<double>(size.height()));
      painter.scale(scale, scale);
      view.render(&painter);
      painter.end();
      break;
    }
  }
  return true;
}

}  // namespace

bool exportFigure(const SolveResult& result, const QString& heading, const QString& path,
                  FigureFormat format, QString* error, const FigureView& shown, QSize size) {
  ResultsView view;
  prepareFigureView(view, result, heading, format, shown, size);

  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!renderFigure(view, heading, path, format, size, buffer, error)) return false;
  buffer.close();
  view.hide();
  return writeFileAtomic(path, bytes, error);
}

QByteArray resultsJson(const SolveResult& result) {
  return QByteArray::fromStdString(analysisJson(result.a(), true) + "\n");
}

QByteArray resultsCsv(const SolveResult& result) {
  return QByteArray::fromStdString(designsCsv(result.a()));
}

}  // namespace libra::studio
