#include "export_controller.hpp"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>

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

void ExportController::exportInteractively(const QString& suffix, const QString& filter) {
  QSettings settings;
  const QString dir =
      settings.value(QStringLiteral("exportDirectory"), QDir::homePath()).toString();
  QString base = document_->filePath().isEmpty()
                     ? toQString(document_->project().name)
                     : QFileInfo(document_->filePath()).completeBaseName();
  if (base.trimmed().isEmpty()) base = tr("results");
  QString path = QFileDialog::getSaveFileName(
      window_, tr("Export"), QDir(dir).filePath(base + QLatin1Char('.') + suffix), filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
  settings.setValue(QStringLiteral("exportDirectory"), QFileInfo(path).absolutePath());
  QString error;
  if (!exportTo(path, &error)) QMessageBox::warning(window_, tr("Export Failed"), error);
}

}  // namespace libra::studio
