#include "export_controller.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <libra/astra_export.hpp>
#include <libra/display_text.hpp>
#include <libra/error.hpp>
#include <libra/file_names.hpp>

#include "charts.hpp"
#include "document.hpp"
#include "export.hpp"
#include "format.hpp"
#include "report_export.hpp"
#include "results_view.hpp"
#include "scenario_results.hpp"

namespace libra::studio {

ExportController::ExportController(Document* document, ResultsView* results,
                                   ScenarioResults* scenarios, QWidget* window)
    : QObject(window),
      document_(document),
      results_(results),
      scenarios_(scenarios),
      window_(window) {
  menu_ = new QMenu(tr("&Export"), window_);
  menu_->setObjectName(QStringLiteral("exportMenu"));
  struct Item {
    QString text, suffix, filter;
  };
  const Item items[] = {
      {tr("Charts as &PNG…"), QStringLiteral("png"), tr("PNG images (*.png)")},
      {tr("Charts as &SVG…"), QStringLiteral("svg"), tr("SVG drawings (*.svg)")},
      {tr("Charts as P&DF…"), QStringLiteral("pdf"), tr("PDF documents (*.pdf)")},
      {tr("Results as &CSV…"), QStringLiteral("csv"), tr("CSV tables (*.csv)")},
      {tr("Results as &JSON…"), QStringLiteral("json"), tr("JSON files (*.json)")},
  };
  for (const Item& item : items) {
    QAction* a = menu_->addAction(item.text);
    a->setObjectName(QStringLiteral("export_") + item.suffix);
    if (item.suffix == QStringLiteral("png")) a->setShortcut(QKeySequence(tr("Ctrl+E")));
    connect(a, &QAction::triggered, this,
            [this, item] { exportInteractively(item.suffix, item.filter); });
  }
  menu_->addSeparator();
  QAction* astra = menu_->addAction(tr("Design for &ASTRA-sim 2…"));
  astra->setObjectName(QStringLiteral("export_astra_sim"));
  astra->setStatusTip(
      tr("Write the shown design as network, system and workload files for ASTRA-sim 2"));
  connect(astra, &QAction::triggered, this, &ExportController::exportAstraSimInteractively);

  reportAction_ = new QAction(tr("Export &Report…"), this);
  reportAction_->setObjectName(QStringLiteral("export_report"));
  reportAction_->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
  reportAction_->setStatusTip(
      tr("Write a design-review report (HTML or PDF): inputs, optimum, charts, sensitivity, "
         "and the project's scenarios compared"));
  connect(reportAction_, &QAction::triggered, this, &ExportController::exportReportInteractively);
}

ExportController::~ExportController() {
  if (reportWatcher_) {
    reportCancel_->store(true);
    reportWatcher_->waitForFinished();
  }
}

bool ExportController::exportTo(const QString& path, QString* error) const {
  const SolveResultPtr result = results_->shownResult();
  if (!result) {
    if (error) *error = tr("There is no result to export yet.");
    return false;
  }
  const QString suffix = QFileInfo(path).suffix().toLower();
  const Project& project = document_->project();
  QString name = shownText(project.name, kDisplayTitleLimit);
  // The scenario on screen, when the project has several.
  if (scenarioCount(project) > 1) {
    name += tr(" — scenario %1").arg(shownName(scenarioNames(project)[project.activeScenario]));
  }
  if (auto format = figureFormatFor(path)) {
    return exportFigure(*result, figureHeading(name, *result), path, *format, error,
                        figureViewOf(*results_->paretoChart()));
  }
  if (suffix == QStringLiteral("csv")) return writeFileAtomic(path, resultsCsv(*result), error);
  if (suffix == QStringLiteral("json")) return writeFileAtomic(path, resultsJson(*result), error);
  if (error)
    *error = tr("%1: unknown export format; use .png, .svg, .pdf, .csv or .json").arg(path);
  return false;
}

QString ExportController::startDirectory() const {
  if (!document_->filePath().isEmpty()) return QFileInfo(document_->filePath()).absolutePath();
  QString last = QSettings().value(QStringLiteral("exportDirectory")).toString();
  if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
  // The documents folder only where it exists: a file dialog given a missing
  // folder starts wherever the last file dialog was instead.
  const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  return !documents.isEmpty() && QFileInfo(documents).isDir() ? documents : QDir::homePath();
}

void ExportController::exportInteractively(const QString& suffix, const QString& filter) {
  QSettings settings;
  const QString dir = startDirectory();
  QString base = document_->filePath().isEmpty()
                     ? toQString(fileStem(document_->project().name, '-'))
                     : QFileInfo(document_->filePath()).completeBaseName();
  if (base.trimmed().isEmpty()) base = tr("results");
  QString path = QFileDialog::getSaveFileName(
      window_, tr("Export"), QDir(dir).filePath(base + QLatin1Char('.') + suffix), filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
  settings.setValue(QStringLiteral("exportDirectory"), QFileInfo(path).absolutePath());
  exportAndConfirm(path);
}

bool ExportController::exportAndConfirm(const QString& path) {
  QString error;
  if (!exportTo(path, &error)) {
    QMessageBox::warning(window_, tr("Export Failed"), error);
    return false;
  }
  QString message = tr("Exported to %1").arg(QDir::toNativeSeparators(path));
  if (results_->isMarkedStale())
    message += tr(" (the result shown, solved before the last change)");
  Q_EMIT exported(message);
  return true;
}

QString ExportController::notAnExportFolder(const QString& dir) {
  return tr("%1 is not empty and holds no earlier export, so it is not written into: the export "
            "replaces a whole folder. Choose an empty folder, or make a new one.")
      .arg(QDir::toNativeSeparators(dir));
}

bool ExportController::exportAstraSimTo(const QString& dir, bool overwrite, QString* error,
                                        QStringList* warnings, QStringList* written) const {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  const SolveResultPtr result = results_->shownResult();
  if (!result || !result->project) return fail(tr("There is no result to export yet."));
  if (!result->ok() || result->a().design.bandwidth.empty()) {
    return fail(
        tr("The shown result has no design to export: %1").arg(toQString(result->a().message)));
  }
  const std::string path = dir.toStdString();
  try {
    const ExportDirectory target = inspectExportDirectory(path);
    if (target == ExportDirectory::NotEmpty) return fail(notAnExportFolder(dir));
    if (target == ExportDirectory::EarlierExport && !overwrite) {
      return fail(tr("%1 is not empty: it holds an earlier export, which is replaced only when "
                     "asked to.")
                      .arg(QDir::toNativeSeparators(dir)));
    }
    const QString projectFile = document_->filePath().isEmpty()
                                    ? QStringLiteral("PROJECT.json")
                                    : QFileInfo(document_->filePath()).fileName();
    const AstraExport exported =
        exportAstraSim(*result->project, result->a(), projectFile.toStdString());
    writeAstraExport(exported, path, overwrite);
    if (warnings) {
      for (const std::string& w : exported.warnings) warnings->append(toQString(w));
    }
    if (written) {
      for (const AstraExportFile& f : exported.files) written->append(toQString(f.path));
    }
    return true;
  } catch (const std::exception& e) {
    return fail(toQString(e.what()));
  }
}

void ExportController::exportAstraSimInteractively() {
  QSettings settings;
  const QString dir = QFileDialog::getExistingDirectory(
      window_, tr("Export the Design for ASTRA-sim 2 into a Folder"), startDirectory());
  if (dir.isEmpty()) return;
  settings.setValue(QStringLiteral("exportDirectory"), dir);
  bool overwrite = false;
  try {
    const ExportDirectory target = inspectExportDirectory(dir.toStdString());
    if (target == ExportDirectory::NotEmpty) {
      QMessageBox::warning(window_, tr("Folder Not Empty"), notAnExportFolder(dir));
      return;
    }
    if (target == ExportDirectory::EarlierExport) {
      const auto answer = QMessageBox::question(
          window_, tr("Replace the Earlier Export?"),
          tr("%1 holds an earlier ASTRA-sim export. Replace it? The whole folder is replaced, "
             "files added to it since included.")
              .arg(QDir::toNativeSeparators(dir)),
          QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
      if (answer != QMessageBox::Yes) return;
      overwrite = true;
    }
  } catch (const std::exception& e) {
    QMessageBox::warning(window_, tr("Export Failed"), toQString(e.what()));
    return;
  }
  QString error;
  QStringList warnings, written;
  if (!exportAstraSimTo(dir, overwrite, &error, &warnings, &written)) {
    QMessageBox::warning(window_, tr("Export Failed"), error);
    return;
  }
  QString text = tr("Wrote %1 files to %2: %3.")
                     .arg(written.size())
                     .arg(QDir::toNativeSeparators(dir), written.join(QStringLiteral(", ")));
  if (results_->isMarkedStale()) {
    text += QLatin1Char('\n') +
            tr("The design is the one shown, which is not current: it was solved before the "
               "last change.");
  }
  text += QLatin1Char('\n') + tr("README.md there says how to run the simulator.");
  if (!warnings.isEmpty()) {
    // The warning icon says there is one: the text says what (the whole list
    // is under Show Details).
    constexpr int kShown = 3;
    text +=
        QStringLiteral("\n\n") + tr("%n warning(s):", nullptr, static_cast<int>(warnings.size()));
    for (int i = 0; i < std::min<int>(kShown, static_cast<int>(warnings.size())); ++i)
      text += QStringLiteral("\n• ") + warnings[i];
    if (warnings.size() > kShown) text += QStringLiteral("\n") + tr("… (Show Details)");
  }
  QMessageBox box(warnings.isEmpty() ? QMessageBox::Information : QMessageBox::Warning,
                  tr("Exported for ASTRA-sim 2"), text, QMessageBox::Ok, window_);
  if (!warnings.isEmpty()) box.setDetailedText(warnings.join(QLatin1Char('\n')));
  box.exec();
  Q_EMIT exported(
      tr("Exported the design for ASTRA-sim 2 to %1").arg(QDir::toNativeSeparators(dir)));
}

}  // namespace libra::studio

namespace libra::studio {

bool ExportController::startReport(const QString& path, QString* error) {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (reportWatcher_) return fail(tr("A report is being written; wait until it is done."));
  const QString suffix = QFileInfo(path).suffix().toLower();
  const bool pdf = suffix == QStringLiteral("pdf");
  if (!pdf && suffix != QStringLiteral("html") && suffix != QStringLiteral("htm"))
    return fail(tr("%1: a report is HTML or PDF; name the file .html or .pdf").arg(path));
  const SolveResultPtr shown = results_->shownResult();
  if (!shown || !shown->project) return fail(tr("There is no result to report yet."));

  // Everything the worker reads is a copy made here.
  ReportJob job;
  job.project = shown->project;
  // A result without its front yet is solved again with it on the worker.
  if (shown->complete) job.shown = shown;
  job.backend = shown->a().backend;
  // The inactive scenarios' analyses already made (current, with their
  // fronts) are not solved again.
  if (scenarios_) {
    const std::size_t count = scenarioCount(*job.project);
    job.known.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      const ScenarioResults::Entry e = scenarios_->entry(i);
      if (e.current && e.result && e.result->complete) job.known[i] = e.result;
    }
  }
  if (!document_->filePath().isEmpty())
    job.file = QFileInfo(document_->filePath()).fileName().toStdString();
  job.options.date = report::currentDate();
  job.options.version = QCoreApplication::applicationVersion().isEmpty()
                            ? std::string(LIBRA_UI_VERSION)
                            : QCoreApplication::applicationVersion().toStdString();
  job.options.charts = pdf ? report::ChartEmbedding::Referenced : report::ChartEmbedding::Inline;

  auto task = std::make_shared<ReportTask>();
  task->path = path;
  task->pdf = pdf;
  task->stale = results_->isMarkedStale();
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  reportTask_ = task;
  reportCancel_ = cancel;
  reportWatcher_ = new QFutureWatcher<void>(this);
  connect(reportWatcher_, &QFutureWatcher<void>::finished, this, &ExportController::finishReport);
  // Solving, rendering and printing all run on the worker (QTextDocument,
  // QPdfWriter and QSvgRenderer may be used on any thread, each object on one).
  reportWatcher_->setFuture(QtConcurrent::run([job, task, cancel] {
    try {
      const report::Report r =
          report::renderReport(reportComparison(job, cancel.get()), job.options);
      QString error;
      const bool written = task->pdf ? writeReportPdf(r, task->path, &error)
                                     : writeReportHtml(r, task->path, &error);
      if (!written) {
        task->error = error.isEmpty() ? tr("%1 could not be written").arg(task->path) : error;
      }
    } catch (const std::exception& e) {
      task->error = toQString(e.what());
    }
  }));
  Q_EMIT exported(tr("Writing the report to %1…").arg(QDir::toNativeSeparators(path)));
  return true;
}

void ExportController::finishReport() {
  const std::shared_ptr<ReportTask> task = reportTask_;
  reportWatcher_->deleteLater();
  reportWatcher_ = nullptr;
  reportTask_.reset();
  if (!task->error.isEmpty()) {
    Q_EMIT reportFinished(task->path, false, task->error);
    return;
  }
  QString message = tr("Exported the report to %1").arg(QDir::toNativeSeparators(task->path));
  if (task->stale) message += tr(" (the result shown, solved before the last change)");
  Q_EMIT reportFinished(task->path, true, message);
  Q_EMIT exported(message);
}

void ExportController::exportReportInteractively() {
  QSettings settings;
  QString base = document_->filePath().isEmpty()
                     ? toQString(fileStem(document_->project().name, '-'))
                     : QFileInfo(document_->filePath()).completeBaseName();
  if (base.trimmed().isEmpty()) base = tr("design");
  const QString html = tr("HTML report (*.html)");
  const QString pdf = tr("PDF report (*.pdf)");
  QString filter = html;
  QString path = QFileDialog::getSaveFileName(
      window_, tr("Export Report"),
      QDir(startDirectory()).filePath(base + tr("-report") + QStringLiteral(".html")),
      html + QStringLiteral(";;") + pdf, &filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty())
    path += filter == pdf ? QStringLiteral(".pdf") : QStringLiteral(".html");
  settings.setValue(QStringLiteral("exportDirectory"), QFileInfo(path).absolutePath());
  QString error;
  if (!startReport(path, &error)) {
    QMessageBox::warning(window_, tr("Export Failed"), error);
    return;
  }
  // A failure is shown once the report is done; success goes to the status bar.
  auto* once = new QObject(this);
  connect(this, &ExportController::reportFinished, once,
          [this, once](const QString&, bool ok, const QString& message) {
            once->deleteLater();
            if (!ok) QMessageBox::warning(window_, tr("Export Failed"), message);
          });
}

}  // namespace libra::studio
