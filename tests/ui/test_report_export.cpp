// File > Export Report through the real action and its file dialog: the HTML
// report of the shown result (well formed, self-contained, the numbers on
// screen), the PDF printed with the charts as vector pictures (pages, the
// charts' colours on them, read back with poppler's pdftoppm), a project's
// scenarios compared (the others solved on a worker while the window keeps
// running), and the units per magnitude shared with the charts.
#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QImage>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <libra/report/units.hpp>
#include <memory>

#include "charts.hpp"
#include "document.hpp"
#include "explorer_controller.hpp"
#include "export_controller.hpp"
#include "file_controller.hpp"
#include "format.hpp"
#include "main_window.hpp"
#include "results_view.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

namespace {

QString readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

// The report read as XML: element names in order, and whether an attribute
// could fetch anything.
struct XmlScan {
  bool wellFormed = false;
  QString error;
  QStringList elements;
  QStringList references;  // src=, href= values
  QStringList texts;
};
XmlScan scanXml(const QString& text) {
  XmlScan scan;
  QXmlStreamReader xml(text);
  while (!xml.atEnd()) {
    const auto token = xml.readNext();
    if (token == QXmlStreamReader::StartElement) {
      scan.elements << xml.name().toString();
      for (const QXmlStreamAttribute& a : xml.attributes()) {
        const QString name = a.qualifiedName().toString();
        if (name == QStringLiteral("src") || name.endsWith(QStringLiteral("href")))
          scan.references << a.value().toString();
      }
    } else if (token == QXmlStreamReader::Characters && !xml.isWhitespace()) {
      scan.texts << xml.text().toString();
    }
  }
  scan.wellFormed = !xml.hasError();
  scan.error = xml.errorString();
  return scan;
}

}  // namespace

class ReportExportTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<MainWindow> window_;

  Document* doc() { return window_->document(); }
  ResultsView* results() { return window_->results(); }
  ExportController* exports() { return window_->exports(); }

  bool waitForCurrentResult() {
    SolverController* solver = window_->explorer()->solver();
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 30000) {
      const SolveResultPtr shown = results()->shownResult();
      if (shown && shown->complete && results()->shownGeneration() == solver->latestGeneration() &&
          !results()->isMarkedStale())
        return true;
      QTest::qWait(5);
    }
    return false;
  }

  // Starts a report and waits for it; the window's event loop runs meanwhile.
  bool writeReport(const QString& path, QString* message) {
    QSignalSpy finished(exports(), &ExportController::reportFinished);
    QString error;
    if (!exports()->startReport(path, &error)) {
      *message = error;
      return false;
    }
    if (!finished.wait(60000)) {
      *message = QStringLiteral("no reportFinished");
      return false;
    }
    *message = finished.at(0).at(2).toString();
    return finished.at(0).at(1).toBool();
  }

 private Q_SLOTS:
  void initTestCase() { test::isolateSettings(); }

  void init() {
    window_ = std::make_unique<MainWindow>(nullptr, false);
    window_->files()->setPromptsEnabled(false);
    QString error;
    QVERIFY2(window_->files()->openExample(QStringLiteral("gpt3-4d"), &error), qPrintable(error));
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(waitForCurrentResult());
  }

  void cleanup() {
    doc()->undoStack()->setClean();
    window_.reset();
  }

  // File > Export Report…: the dialog starts where the other exports do, the
  // report is written and the status bar says so.
  void theActionWritesTheHtmlReport() {
    QTemporaryDir dir;
    QString error;
    const QString project = dir.filePath(QStringLiteral("study.json"));
    QVERIFY2(window_->files()->saveFile(project, &error), qPrintable(error));
    QAction* action = window_->findChild<QAction*>(QStringLiteral("export_report"));
    QVERIFY(action);
    QVERIFY(action->isEnabled());

    const QString path = dir.filePath(QStringLiteral("review.html"));
    QString dialogDirectory, suggested;
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, this, [&] {
      auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      if (suggested.isEmpty()) {
        dialogDirectory = dialog->directory().absolutePath();
        suggested = dialog->selectedFiles().value(0);
      }
      // Typed into the name field, as a user does: selectFile() is applied only
      // once the dialog's directory model has loaded, which on a busy machine
      // came after accept() and left the suggested name.
      auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
      QVERIFY(name);
      poll.stop();
      name->setText(path);
      static_cast<QDialog*>(dialog)->accept();  // QFileDialog::accept, through the public slot
    });
    poll.start();
    QSignalSpy finished(exports(), &ExportController::reportFinished);
    action->trigger();
    QVERIFY(finished.count() == 1 || finished.wait(60000));
    QVERIFY2(finished.at(0).at(1).toBool(), qPrintable(finished.at(0).at(2).toString()));
    QCOMPARE(dialogDirectory, QFileInfo(project).absolutePath());
    QCOMPARE(QFileInfo(suggested).fileName(), QStringLiteral("study-report.html"));
    const QString message = window_->statusBar()->currentMessage();
    QVERIFY2(message == QStringLiteral("Exported the report to ") + QDir::toNativeSeparators(path),
             qPrintable(message));

    const QString html = readAll(path);
    QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>")));
    const XmlScan scan = scanXml(html);
    QVERIFY2(scan.wellFormed, qPrintable(scan.error));
    QVERIFY2(scan.references.isEmpty(), qPrintable(scan.references.join(QLatin1Char(' '))));
    QVERIFY(!scan.elements.contains(QStringLiteral("script")));
    QCOMPARE(scan.elements.count(QStringLiteral("svg")), 3);
    // The numbers on screen, in the window's format.
    const Analysis& a = results()->shownResult()->a();
    QVERIFY(scan.texts.contains(QString::fromStdString(doc()->project().name)));
    QVERIFY(scan.texts.contains(QStringLiteral("study.json")));
    for (double bw : a.design.bandwidth) QVERIFY(scan.texts.contains(formatBandwidth(bw)));
    QVERIFY(scan.texts.contains(formatTimeNs(a.design.eval.iterationNs)));
    QVERIFY(scan.texts.contains(formatCostUsd(a.design.eval.networkCostUsd)));
    QVERIFY(scan.texts.contains(formatTimeNs(a.baseline->design.eval.iterationNs)));
  }

  // The PDF is the same report printed on A4: pages, and on them the charts'
  // colours (drawn by QSvgRenderer from the report's SVG, not left blank).
  void thePdfHasPagesWithTheCharts() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("review.pdf"));
    QString message;
    QElapsedTimer took;
    took.start();
    QVERIFY2(writeReport(path, &message), qPrintable(message));
    qInfo("report of the bundled example as PDF: %lld ms", static_cast<long long>(took.elapsed()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray pdf = file.readAll();
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));

    const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
    QVERIFY2(!pdftoppm.isEmpty(), "pdftoppm (Debian package poppler-utils, packaging/deps.sh)");
    QProcess render;
    render.start(pdftoppm, {QStringLiteral("-r"), QStringLiteral("40"), QStringLiteral("-png"),
                            path, dir.filePath(QStringLiteral("page"))});
    QVERIFY(render.waitForFinished(60000));
    QCOMPARE(render.exitCode(), 0);
    const QStringList pages =
        QDir(dir.path()).entryList({QStringLiteral("page*.png")}, QDir::Files, QDir::Name);
    QVERIFY2(pages.size() >= 2, qPrintable(pages.join(QLatin1Char(' '))));
    // A4 at 40 dpi: 331 x 468 px.
    const QImage first(dir.filePath(pages.front()));
    QVERIFY(std::abs(first.width() - 331) <= 1 && std::abs(first.height() - 468) <= 1);
    // The optimum's red (bars and marker) and the front's blue are drawn somewhere.
    auto hasColour = [&](QRgb want) {
      for (const QString& page : pages) {
        const QImage image = QImage(dir.filePath(page)).convertToFormat(QImage::Format_RGB32);
        for (int y = 0; y < image.height(); ++y) {
          for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            if (std::abs(qRed(p) - qRed(want)) < 12 && std::abs(qGreen(p) - qGreen(want)) < 12 &&
                std::abs(qBlue(p) - qBlue(want)) < 12)
              return true;
          }
        }
      }
      return false;
    };
    QVERIFY(hasColour(qRgb(0xd6, 0x27, 0x28)));
    QVERIFY(hasColour(qRgb(0x1f, 0x77, 0xb4)));
    QVERIFY(hasColour(qRgb(0xc7, 0xc7, 0xc7)));  // the breakdown's compute
  }

  // A project of several scenarios: the others are solved on a worker, the
  // shown one is taken as it is, and the report compares them all.
  void aProjectsScenariosAreCompared() {
    QString error;
    QVERIFY2(window_->files()->openFile(
                 QStringLiteral(LIBRA_SOURCE_DIR "/tests/cli/data/scenarios.json"), &error),
             qPrintable(error));
    QVERIFY(waitForCurrentResult());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("designs.html"));
    QString message;
    QVERIFY2(writeReport(path, &message), qPrintable(message));
    const QString html = readAll(path);
    const XmlScan scan = scanXml(html);
    QVERIFY2(scan.wellFormed, qPrintable(scan.error));
    QCOMPARE(html.count(QStringLiteral("<h2>Design: ")), 3);
    QVERIFY(html.contains(QStringLiteral("Pareto fronts and optima of the designs")));
    QVERIFY(html.contains(QStringLiteral("Baseline: 500 GB/s.")));
    QVERIFY(html.contains(QStringLiteral("<h2>Design: infeasible</h2>")));
    // The active scenario's numbers are the ones on screen.
    const Analysis& a = results()->shownResult()->a();
    QVERIFY(scan.texts.contains(formatTimeNs(a.design.eval.iterationNs)));
  }

  // A second report while one is written, or another suffix, is refused.
  void refusesWhatItCannotWrite() {
    QTemporaryDir dir;
    QString error;
    QVERIFY(!exports()->startReport(dir.filePath(QStringLiteral("r.txt")), &error));
    QVERIFY2(error.contains(QStringLiteral(".html or .pdf")), qPrintable(error));
    QSignalSpy finished(exports(), &ExportController::reportFinished);
    QVERIFY(exports()->startReport(dir.filePath(QStringLiteral("a.html")), &error));
    QVERIFY(exports()->reportRunning());  // until the event loop delivers the worker's end
    QVERIFY(!exports()->startReport(dir.filePath(QStringLiteral("b.html")), &error));
    QVERIFY2(error.contains(QStringLiteral("being written")), qPrintable(error));
    QVERIFY(finished.count() == 1 || finished.wait(60000));
    QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("a.html"))));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("b.html"))));
  }
};

QTEST_MAIN(ReportExportTest)
#include "test_report_export.moc"
