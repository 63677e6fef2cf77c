#include "export_controller.hpp"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <libra/astra_export.hpp>
#include <libra/error.hpp>

#include "document.hpp"
#include "export.hpp"
#include "format.hpp"
#include "results_view.hpp"

namespace libra::studio {

ExportController::ExportController(Document* document, ResultsView* results, QWidget* window)
    : QObject(window), document_(document), results_(results), window_(window) {
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
}

bool ExportController::exportTo(const QString& path, QString* error) const {
  const SolveResultPtr result = results_->shownResult();
  if (!result) {
    if (error) *error = tr("There is no result to export yet.");
    return false;
  }
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QString name = toQString(document_->project().name);
  if (auto format = figureFormatFor(path)) {
    return exportFigure(*result, figureHeading(name, *result), path, *format, error);
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
  const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  return documents.isEmpty() ? QDir::homePath() : documents;
}

void ExportController::exportInteractively(const QString& suffix, const QString& filter) {
  QSettings settings;
  const QString dir = startDirectory();
  QString base = document_->filePath().isEmpty()
                     ? toQString(document_->project().name)
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
    if (inspectExportDirectory(path) == ExportDirectory::NotEmpty && !overwrite) {
      return fail(tr("%1 is not empty; choose a new or empty folder, or write over an "
                     "earlier export there.")
                      .arg(QDir::toNativeSeparators(dir)));
    }
    const QString projectFile = document_->filePath().isEmpty()
                                    ? QStringLiteral("PROJECT.json")
                                    : QFileInfo(document_->filePath()).fileName();
    const AstraExport exported =
        exportAstraSim(*result->project, result->a(), projectFile.toStdString());
    writeAstraExport(exported, path);
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
    if (inspectExportDirectory(dir.toStdString()) == ExportDirectory::NotEmpty) {
      const auto answer = QMessageBox::question(
          window_, tr("Folder Not Empty"),
          tr("%1 is not empty. Write the ASTRA-sim files into it, replacing those of an "
             "earlier export? Other files stay.")
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
  QMessageBox box(warnings.isEmpty() ? QMessageBox::Information : QMessageBox::Warning,
                  tr("Exported for ASTRA-sim 2"), text, QMessageBox::Ok, window_);
  if (!warnings.isEmpty()) box.setDetailedText(warnings.join(QLatin1Char('\n')));
  box.exec();
  Q_EMIT exported(
      tr("Exported the design for ASTRA-sim 2 to %1").arg(QDir::toNativeSeparators(dir)));
}

}  // namespace libra::studio
