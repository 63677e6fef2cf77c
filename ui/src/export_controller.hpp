// File > Export: the shown result as a figure (PNG, SVG, PDF), as numbers (CSV,
// JSON), or its design as ASTRA-sim 2 input (the engine's exportAstraSim, the files
// `libra export-astra-sim` writes).
#pragma once

#include <QObject>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QAction;
class QMenu;
class QWidget;
QT_END_NAMESPACE

namespace libra::studio {

class Document;
class ResultsView;

class ExportController : public QObject {
  Q_OBJECT

 public:
  ExportController(Document* document, ResultsView* results, QWidget* window);
  QMenu* menu() const { return menu_; }

  // Without dialogs; false with the reason in `error`. The format follows the suffix
  // (.png, .svg, .pdf, .csv, .json).
  bool exportTo(const QString& path, QString* error) const;
  // Writes the shown design as ASTRA-sim 2 input into the directory `dir` (created
  // if missing; one that is not empty only with `overwrite`). False with the
  // reason in `error`; what the files cannot express goes to `warnings`, the
  // names of the files written to `written`.
  bool exportAstraSimTo(const QString& dir, bool overwrite, QString* error,
                        QStringList* warnings = nullptr, QStringList* written = nullptr) const;
  // What File > Export does once the dialog has a path: exports, says so in the
  // status bar (exported()), or shows why not in a message box.
  bool exportAndConfirm(const QString& path);
  // Where the export dialogs start: the project's folder once it is saved, else
  // the folder of the last export, else the user's documents folder.
  QString startDirectory() const;

 Q_SIGNALS:
  // After an interactive export succeeded: what was written where, for the status bar.
  void exported(const QString& message);

 private:
  void exportInteractively(const QString& suffix, const QString& filter);
  void exportAstraSimInteractively();

  Document* document_;
  ResultsView* results_;
  QWidget* window_;
  QMenu* menu_;
};

}  // namespace libra::studio
