#include "report_export.hpp"

#include <QAbstractTextDocumentLayout>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QTextFormat>
#include <QTextObjectInterface>
#include <algorithm>
#include <libra/error.hpp>
#include <map>

#include "export.hpp"
#include "format.hpp"
#include "project_edits.hpp"
#include "svg_chart_handler.hpp"

namespace libra::studio {

namespace {

// QTextDocument's layout units: CSS px, 96 per inch, whatever the screen.
constexpr double kCssDpi = 96;

}  // namespace

Comparison reportComparison(const ReportJob& job, const std::atomic<bool>* cancel) {
  if (!job.project) throw InputError("there is no project to report on");
  std::vector<DesignComparison> designs;
  const std::vector<DesignInput> inputs = scenarioDesigns(*job.project, job.file);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    DesignComparison d;
    d.input = inputs[i];
    const SolveResultPtr known = i < job.known.size() ? job.known[i] : nullptr;
    if (i == job.project->activeScenario && job.shown) {
      d.analysis = job.shown->a();
      d.refused = job.shown->invalidInput;
    } else if (known && known->complete && known->a().backend == job.backend) {
      d.analysis = known->a();
      d.refused = known->invalidInput;
    } else {
      SolveRequest request = makeRequest(d.input.project, job.backend);
      const SolveResult result = runSolve(request, cancel);
      d.analysis = result.a();
      d.refused = result.invalidInput;
    }
    designs.push_back(std::move(d));
  }
  // Against the baseline chosen in the comparison tab, while it names a scenario.
  std::string baseline = toStd(comparisonBaselineOf(*job.project));
  if (std::none_of(inputs.begin(), inputs.end(),
                   [&](const DesignInput& d) { return d.name == baseline; }))
    baseline.clear();
  return compareAnalyzed(std::move(designs), baseline);
}

bool writeReportHtml(const report::Report& report, const QString& path, QString* error) {
  return writeFileAtomic(path, QByteArray::fromStdString(report.html), error);
}

bool writeReportPdf(const report::Report& report, const QString& path, QString* error) {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  // Written next to the target and moved over it once complete (QSaveFile).
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    return fail(QObject::tr("%1: %2").arg(path, file.errorString()));
  }
  {
    QPdfWriter writer(&file);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 14, 15, 14), QPageLayout::Millimeter);
    writer.setResolution(600);
    writer.setCreator(QStringLiteral("Libra Studio"));
    QTextDocument doc;
    // Lay out at 96 dpi (CSS px): the charts' sizes and the fonts keep the
    // proportions they have in a browser, whatever the screen.
    QImage layoutDevice(1, 1, QImage::Format_RGB32);
    layoutDevice.setDotsPerMeterX(qRound(kCssDpi / 0.0254));
    layoutDevice.setDotsPerMeterY(qRound(kCssDpi / 0.0254));
    doc.documentLayout()->setPaintDevice(&layoutDevice);
    auto* charts = new SvgChartHandler(report, &doc);
    if (!charts->allValid()) return fail(QObject::tr("A chart of the report is not valid SVG."));
    doc.documentLayout()->registerHandler(QTextFormat::ImageObject, charts);
    doc.setDocumentMargin(0);
    doc.setHtml(QString::fromStdString(report.html));
    writer.setTitle(doc.metaInformation(QTextDocument::DocumentTitle));

    const double scale = writer.resolution() / kCssDpi;
    const QRectF paint = writer.pageLayout().paintRectPixels(writer.resolution());
    const double footer = 22;  // px below each page's text for its number
    const QSizeF page(paint.width() / scale, paint.height() / scale - footer);
    doc.setPageSize(page);
    const int pages = doc.pageCount();
    QPainter painter;
    if (!painter.begin(&writer)) return fail(QObject::tr("%1: cannot write a PDF there").arg(path));
    QFont small = doc.defaultFont();
    small.setPixelSize(11);  // CSS px, as the page is painted
    for (int i = 0; i < pages; ++i) {
      if (i > 0) writer.newPage();
      painter.save();
      painter.scale(scale, scale);
      painter.save();
      painter.translate(0, -i * page.height());
      QAbstractTextDocumentLayout::PaintContext context;
      context.clip = QRectF(0, i * page.height(), page.width(), page.height());
      context.palette.setColor(QPalette::Text, Qt::black);
      painter.setClipRect(context.clip);
      doc.documentLayout()->draw(&painter, context);
      painter.restore();
      painter.setFont(small);
      painter.setPen(QColor(0x55, 0x55, 0x55));
      const QRectF footerRect(0, page.height() + 6, page.width(), footer - 6);
      painter.drawText(footerRect, Qt::AlignLeft | Qt::AlignVCenter,
                       doc.metaInformation(QTextDocument::DocumentTitle));
      painter.drawText(footerRect, Qt::AlignRight | Qt::AlignVCenter,
                       QObject::tr("page %1 of %2").arg(i + 1).arg(pages));
      painter.restore();
    }
    if (!painter.end()) return fail(QObject::tr("%1: the PDF could not be finished").arg(path));
  }
  if (!file.commit()) return fail(QObject::tr("%1: %2").arg(path, file.errorString()));
  return true;
}

}  // namespace libra::studio
