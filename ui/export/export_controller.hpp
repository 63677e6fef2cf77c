// File > Export: the shown result as a figure (PNG, SVG, PDF), as numbers (CSV,
// JSON), or its design as ASTRA-sim 2 input (the engine's exportAstraSim, the files
// `libra export-astra-sim` writes). File > Export Report: the design-review report
// (HTML or PDF) of the report library, the one `libra report` writes.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>
#include <atomic>
#include <libra/report/report.hpp>
#include <memory>

QT_BEGIN_NAMESPACE
class QAction;
class QMenu;
class QWidget;
QT_END_NAMESPACE

namespace libra::studio {

class Document;
class ResultsView;
class ScenarioResults;

class ExportController : public QObject {
  Q_OBJECT

 public:
  // `scenarios` (may be null) lends the report the analyses of the inactive
  // scenarios it already holds.
  ExportController(Document* document, ResultsView* results, ScenarioResults* scenarios,
                   QWidget* window);
  ~ExportController() override;  // waits for a report's worker (it is told to stop)
  QMenu* menu() const { return menu_; }
  // File > Export Report…: asks for a .html or .pdf file, then startReport().
  QAction* reportAction() const { return reportAction_; }

  // Without dialogs; false with the reason in `error`. The format follows the suffix
  // (.png, .svg, .pdf, .csv, .json).
  bool exportTo(const QString& path, QString* error) const;
  // Writes the shown design as ASTRA-sim 2 input as the folder `dir`, all or
  // nothing: `dir` is new or empty, or an earlier export, replaced as a whole
  // only with `overwrite`; any other folder is refused. False with the
  // reason in `error`; what the files cannot express goes to `warnings`, the
  // names of the files written to `written`.
  bool exportAstraSimTo(const QString& dir, bool overwrite, QString* error,
                        QStringList* warnings = nullptr, QStringList* written = nullptr) const;
  // What File > Export does once the dialog has a path: exports, says so in the
  // status bar (exported()), or shows why not in a message box.
  bool exportAndConfirm(const QString& path);
  // Starts writing the report of the shown result to `path` (.html or .pdf, by
  // the suffix): the project's other scenarios are solved on a worker, the
  // file is written when they are done; then reportFinished() and, when it
  // worked, exported() for the status bar. False with the reason in `error`
  // when it cannot start (no result yet, another report running, another suffix).
  bool startReport(const QString& path, QString* error);
  bool reportRunning() const { return reportWatcher_ != nullptr; }
  // Where the export dialogs start: the project's folder once it is saved, else
  // the folder of the last export, else the user's documents folder where it
  // exists, else the home folder.
  QString startDirectory() const;

 Q_SIGNALS:
  // After an interactive export succeeded: what was written where, for the status bar.
  void exported(const QString& message);
  // A report started by startReport() is written (ok) or failed (message says why).
  void reportFinished(const QString& path, bool ok, const QString& message);

 private:
  void exportInteractively(const QString& suffix, const QString& filter);
  void exportAstraSimInteractively();
  // Why a folder that is not empty and holds no earlier export is refused.
  static QString notAnExportFolder(const QString& dir);
  void exportReportInteractively();
  void finishReport();

  Document* document_;
  ResultsView* results_;
  ScenarioResults* scenarios_;
  QWidget* window_;
  QMenu* menu_;
  QAction* reportAction_;
  // The report being written: its file, whether the result was stale, and
  // what went wrong (set by the worker, read once it is done).
  struct ReportTask {
    QString path;
    bool pdf = false;
    bool stale = false;
    QString error;
  };
  std::shared_ptr<ReportTask> reportTask_;
  QFutureWatcher<void>* reportWatcher_ = nullptr;
  std::shared_ptr<std::atomic<bool>> reportCancel_;
};

}  // namespace libra::studio
