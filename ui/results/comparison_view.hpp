// The comparison of the project's scenarios (issue 10, item 2): their optima
// side by side, one column each, with ratios against a baseline scenario that
// a combo box chooses. Every number is the engine's (compareAnalyzed over the
// analyses ScenarioResults holds); the units per magnitude are report/units.hpp's,
// one per group of rows so that a row compares like with like.
//
// Each cell keeps the value it shows in the engine's units (ns, $, GB/s,
// tokens/s, a ratio) as Qt::UserRole; each row its key (the keys of `libra
// compare --json`: iteration_time_ns, speedup, ...) as the vertical header's
// Qt::UserRole. The table is rebuilt when it is visible, at most every
// kRebuildMs while the active scenario is being edited.
#pragma once

#include <QTimer>
#include <QWidget>
#include <libra/compare.hpp>
#include <optional>
#include <string>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
QT_END_NAMESPACE

namespace libra::studio {

class Document;
class ScenarioResults;

class ComparisonView : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kRebuildMs = 100;

  ComparisonView(Document* document, ScenarioResults* results, QWidget* parent = nullptr);

  QTableWidget* table() const { return table_; }
  QComboBox* baselineCombo() const { return baseline_; }
  QLabel* notesLabel() const { return notes_; }
  // The row of `key` (-1: none) and the column of the design named `name`.
  int rowOf(const QString& key) const;
  int columnOf(const QString& name) const;
  // What the table shows (nullopt while a scenario has no result yet).
  const std::optional<Comparison>& shownComparison() const { return shown_; }
  // The baseline chosen (empty: the first scenario).
  QString baseline() const { return baselineName_; }
  // Whether every column is of its scenario as it is now (not while a
  // rebuild is pending: the table and baseline() still show the old names).
  bool isCurrent() const { return current_ && !dirty_; }

  // Rebuilds at once (tests, exports).
  void rebuild();

  // The table as shown (and its notes) as HTML, for the figure exports.
  QString tableHtml(bool withNotes = true) const;
  // Writes the comparison: .csv the engine's rows (as `libra compare --csv`),
  // .png / .svg / .pdf the table as shown. Atomic; false with the reason.
  bool exportTo(const QString& path, QString* error) const;

 Q_SIGNALS:
  void rebuilt();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void scheduleRebuild();
  void chooseExport();
  void fill(const Comparison& comparison);

  Document* document_;
  ScenarioResults* results_;
  QComboBox* baseline_;
  QPushButton* export_;
  QLabel* status_;
  QTableWidget* table_;
  QLabel* notes_;
  QTimer timer_;
  bool dirty_ = true;
  bool current_ = false;
  QString baselineName_;
  std::optional<Comparison> shown_;
};

}  // namespace libra::studio
