#include "export.hpp"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLineSeries>
#include <QPainter>
#include <libra/project_io.hpp>

#include "figure.hpp"
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

}  // namespace

bool exportFigure(const SolveResult& result, const QString& heading, const QString& path,
                  FigureFormat format, QString* error, const FigureView& shown, QSize size) {
  ResultsView view;
  prepareFigureView(view, result, heading, format, shown, size);

  const FigurePage page{size, heading, QObject::tr("Libra Studio results"), view.logicalDpiY()};
  return writeFigure(
      path, format, page, [&](QPainter& painter) { view.render(&painter); }, error);
}

QByteArray resultsJson(const SolveResult& result) {
  return QByteArray::fromStdString(analysisJson(result.a(), true) + "\n");
}

QByteArray resultsCsv(const SolveResult& result) {
  return QByteArray::fromStdString(designsCsv(result.a()));
}

}  // namespace libra::studio
