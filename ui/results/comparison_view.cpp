#include "comparison_view.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QShowEvent>
#include <QTableWidget>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <libra/error.hpp>
#include <libra/report/comparison_table.hpp>

#include "document.hpp"
#include "figure.hpp"
#include "format.hpp"
#include "output_file.hpp"
#include "project_edits.hpp"
#include "scenario_results.hpp"
#include "wrap_label.hpp"

namespace libra::studio {

namespace {

QString capitalized(const std::string& text) {
  QString s = toQString(text);
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  return s;
}

}  // namespace

ComparisonView::ComparisonView(Document* document, ScenarioResults* results, QWidget* parent)
    : QWidget(parent), document_(document), results_(results) {
  setObjectName(QStringLiteral("comparisonView"));
  baseline_ = new QComboBox;
  baseline_->setObjectName(QStringLiteral("comparisonBaseline"));
  baseline_->setToolTip(tr("The scenario the ratios are against"));
  baseline_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("comparisonStatus"));
  status_->setWordWrap(true);
  table_ = new QTableWidget;
  table_->setObjectName(QStringLiteral("comparisonTable"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::ContiguousSelection);
  table_->setAlternatingRowColors(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  notes_ = new WrapLabel;  // its height follows its width: long notes wrap
  notes_->setObjectName(QStringLiteral("comparisonNotes"));
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* top = new QHBoxLayout;
  top->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(tr("Baseline:"));
  label->setBuddy(baseline_);
  top->addWidget(label);
  top->addWidget(baseline_);
  top->addSpacing(12);
  top->addWidget(status_, 1);
  export_ = new QPushButton(tr("Export…"));
  export_->setObjectName(QStringLiteral("exportComparison"));
  export_->setToolTip(tr("Write the comparison as CSV, or the table as PNG, SVG or PDF"));
  top->addWidget(export_);
  connect(export_, &QPushButton::clicked, this, &ComparisonView::chooseExport);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(top);
  layout->addWidget(table_, 1);
  layout->addWidget(notes_);

  timer_.setSingleShot(true);
  connect(&timer_, &QTimer::timeout, this, &ComparisonView::rebuild);
  connect(results_, &ScenarioResults::changed, this, &ComparisonView::scheduleRebuild);
  connect(document_, &Document::projectChanged, this, &ComparisonView::scheduleRebuild);
  // The baseline is the project's (saved with it; an undo step).
  connect(baseline_, &QComboBox::activated, this, [this](int index) {
    const QString name = index <= 0 ? QString() : baseline_->itemData(index).toString();
    if (name != comparisonBaselineOf(document_->project())) {
      document_->edit(tr("Compare against %1").arg(baseline_->itemText(index)),
                      [&](Project& p) { setComparisonBaseline(p, name); });
    }
    rebuild();
  });
}

int ComparisonView::rowOf(const QString& key) const {
  for (int r = 0; r < table_->rowCount(); ++r) {
    const QTableWidgetItem* item = table_->verticalHeaderItem(r);
    if (item && item->data(Qt::UserRole).toString() == key) return r;
  }
  return -1;
}

int ComparisonView::columnOf(const QString& name) const {
  if (!shown_) return -1;
  for (std::size_t i = 0; i < shown_->designs.size(); ++i) {
    if (toQString(shown_->designs[i].input.name) == name) return static_cast<int>(i);
  }
  return -1;
}

void ComparisonView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (dirty_) rebuild();
}

void ComparisonView::scheduleRebuild() {
  dirty_ = true;
  // Hidden: rebuilt when shown. Visible: at most every kRebuildMs (a drag of
  // the active scenario changes its column at every step).
  if (isVisible() && !timer_.isActive()) timer_.start(kRebuildMs);
}

void ComparisonView::rebuild() {
  timer_.stop();
  dirty_ = false;
  const std::vector<DesignInput> designs = scenarioDesigns(document_->project());
  QStringList names;
  QStringList shown;
  for (const DesignInput& d : designs) {
    names << toQString(d.name);
    shown << shownName(d.name);
  }
  baselineName_ = comparisonBaselineOf(document_->project());
  if (!names.contains(baselineName_)) baselineName_.clear();
  {
    const QSignalBlocker block(baseline_);
    bool same = baseline_->count() == names.size();
    for (int i = 0; same && i < names.size(); ++i) {
      same = baseline_->itemData(i).toString() == names[i] && baseline_->itemText(i) == shown[i];
    }
    if (!same) {
      baseline_->clear();
      for (int i = 0; i < names.size(); ++i) baseline_->addItem(shown[i], names[i]);
    }
    baseline_->setCurrentIndex(baselineName_.isEmpty() ? 0 : names.indexOf(baselineName_));
  }
  try {
    shown_ = results_->comparison(toStd(baselineName_));
  } catch (const InputError&) {
    shown_ = results_->comparison();
  }
  current_ = shown_ && results_->allCurrent();
  if (!shown_) {
    table_->clear();
    table_->setRowCount(0);
    table_->setColumnCount(0);
    status_->setText(tr("Computing the optima of the scenarios…"));
    notes_->clear();
  } else {
    fill(*shown_);
  }
  Q_EMIT rebuilt();
}

void ComparisonView::fill(const Comparison& c) {
  const int columns = static_cast<int>(c.designs.size());
  const bool tokens = c.measure == PerformanceMeasure::TokensPerSecond;
  std::vector<bool> current(c.designs.size());
  for (std::size_t i = 0; i < c.designs.size(); ++i) current[i] = results_->entry(i).current;

  const std::vector<report::ComparisonRow> rows = report::comparisonRows(c);

  table_->clear();
  table_->setColumnCount(columns);
  table_->setRowCount(static_cast<int>(rows.size()));
  const std::size_t active = document_->project().activeScenario;
  for (int col = 0; col < columns; ++col) {
    const auto i = static_cast<std::size_t>(col);
    QStringList header{shownName(c.designs[i].input.name)};
    if (i == active) header << tr("(active)");
    if (i == c.baseline) header << tr("(baseline)");
    if (!current[i]) header << tr("(updating…)");
    auto* item = new QTableWidgetItem(header.join(QLatin1Char('\n')));
    if (i == c.baseline) {
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
    }
    table_->setHorizontalHeaderItem(col, item);
  }
  const QColor staleText = palette().color(QPalette::Disabled, QPalette::Text);
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const report::ComparisonRow& row = rows[static_cast<std::size_t>(r)];
    auto* head = new QTableWidgetItem((row.indented ? QStringLiteral("    ") : QString()) +
                                      toQString(row.label));
    head->setData(Qt::UserRole, toQString(row.key));
    if (row.heading()) {
      QFont f = head->font();
      f.setBold(true);
      head->setFont(f);
    }
    table_->setVerticalHeaderItem(r, head);
    for (int col = 0; col < columns && col < static_cast<int>(row.cells.size()); ++col) {
      const report::ComparisonCell& cell = row.cells[static_cast<std::size_t>(col)];
      auto* item = new QTableWidgetItem(toQString(cell.text));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (cell.value) item->setData(Qt::UserRole, *cell.value);
      if (!cell.detail.empty()) item->setToolTip(capitalized(cell.detail));
      if (!current[static_cast<std::size_t>(col)]) item->setForeground(staleText);
      table_->setItem(r, col, item);
    }
  }

  QString status = tokens ? tr("Performance: training throughput (tokens/s).")
                          : tr("Performance: iterations per second (1 / iteration time).");
  if (columns < 2)
    status += tr(" Add scenarios (Scenarios > Duplicate Scenario) to compare designs.");
  else if (!current_)
    status += tr(" Updating…");
  status_->setText(status);
  QStringList notes;
  for (const std::string& note : c.notes) notes << QStringLiteral("• ") + capitalized(note) + '.';
  notes_->setText(notes.join(QLatin1Char('\n')));
  notes_->setVisible(!notes.isEmpty());
}

}  // namespace libra::studio

namespace libra::studio {

QString ComparisonView::tableHtml(bool withNotes) const {
  QString html = QStringLiteral(
      "<html><body style='font-family: sans-serif; font-size: 10pt'>"
      "<table border='1' cellspacing='0' cellpadding='3' style='border-collapse: collapse'>"
      "<tr><th></th>");
  for (int col = 0; col < table_->columnCount(); ++col) {
    const QTableWidgetItem* h = table_->horizontalHeaderItem(col);
    html += QStringLiteral("<th>%1</th>")
                .arg((h ? h->text() : QString())
                         .toHtmlEscaped()
                         .replace(QLatin1Char('\n'), QStringLiteral("<br>")));
  }
  html += QStringLiteral("</tr>");
  for (int row = 0; row < table_->rowCount(); ++row) {
    const QTableWidgetItem* head = table_->verticalHeaderItem(row);
    const bool group = head && head->data(Qt::UserRole).toString().isEmpty();
    const QString label = (head ? head->text() : QString()).trimmed().toHtmlEscaped();
    html += group ? QStringLiteral("<tr><td><b>%1</b></td>").arg(label)
                  : QStringLiteral("<tr><td>&nbsp;&nbsp;%1</td>").arg(label);
    for (int col = 0; col < table_->columnCount(); ++col) {
      const QTableWidgetItem* item = table_->item(row, col);
      html += QStringLiteral("<td align='right'>%1</td>")
                  .arg(item ? item->text().toHtmlEscaped() : QString());
    }
    html += QStringLiteral("</tr>");
  }
  html += QStringLiteral("</table>");
  if (withNotes && !notes_->text().isEmpty())
    html +=
        QStringLiteral("<p>%1</p>")
            .arg(notes_->text().toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
  return html + QStringLiteral("</body></html>");
}

bool ComparisonView::exportTo(const QString& path, QString* error) const {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QStringLiteral("csv")) {
    if (!shown_) {
      if (error) *error = tr("The comparison is not computed yet.");
      return false;
    }
    return writeFileAtomic(path, QByteArray::fromStdString(comparisonCsv(*shown_)), error);
  }
  const auto format = figureFormatFor(path);
  if (!format) {
    if (error) *error = tr("%1: use .csv, .png, .svg or .pdf").arg(path);
    return false;
  }
  QTextDocument doc;
  doc.setDefaultStyleSheet(QStringLiteral("td, th { white-space: nowrap; }"));
  // As wide as the table; the notes wrap to it.
  doc.setHtml(tableHtml(false));
  const qreal width = doc.idealWidth();
  doc.setHtml(tableHtml());
  doc.setTextWidth(width);
  const QSize size = doc.size().toSize() + QSize(2, 2);
  const FigurePage page{size, tr("Comparison of the scenarios"), QString(), logicalDpiY()};
  return writeFigure(
      path, *format, page, [&](QPainter& painter) { doc.drawContents(&painter); }, error);
}

void ComparisonView::chooseExport() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Comparison"), QStringLiteral("comparison.csv"),
      tr("CSV (*.csv);;PNG image (*.png);;SVG image (*.svg);;PDF (*.pdf)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Export Failed"), error);
}

}  // namespace libra::studio
