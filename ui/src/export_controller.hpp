// File > Export: the shown result as a figure (PNG, SVG, PDF) or as numbers (CSV, JSON).
#pragma once

#include <QObject>

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

 private:
  void exportInteractively(const QString& suffix, const QString& filter);

  Document* document_;
  ResultsView* results_;
  QWidget* window_;
  QMenu* menu_;
};

}  // namespace libra::studio
