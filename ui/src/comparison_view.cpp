#include "comparison_view.hpp"

#include <QBuffer>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QPushButton>
#include <QShowEvent>
#include <QSvgGenerator>
#include <QTableWidget>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <libra/error.hpp>
#include <libra/report/units.hpp>

#include "document.hpp"
#include "export.hpp"
#include "format.hpp"
#include "project_edits.hpp"
#include "scenario_results.hpp"
#include "wrap_label.hpp"

namespace libra::studio {

namespace {

// What one cell shows: its text, and the number behind it in the engine's units.
struct Cell {
  QString text;
  std::optional<double> value;
  QString tooltip;
};

// Digits after the point for values up to `largest`: about four significant ones.
int decimalsFor(double largest) {
  if (!(largest > 0) || !std::isfinite(largest)) return 2;
  return std::clamp(3 - static_cast<int>(std::floor(std::log10(largest))), 0, 3);
}

QString number(double value, int decimals) {
  if (!std::isfinite(value)) return QStringLiteral("∞");
  static const QLocale locale(QLocale::English);
  return locale.toString(value, 'f', decimals);
}

// "1.136× faster" / "1.250× slower" / "the same (1.000×)" for a ratio where > 1
// is better: report::ratioWords.
QString ratioWords(double ratio, const QString& better, const QString& worse) {
  return toQString(report::ratioWords(ratio, toStd(better), toStd(worse), "×"));
}

QString capitalized(const std::string& text) {
  QString s = toQString(text);
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  return s;
}

// One row of the table: its key (empty: a group heading), its label and how
// each design's cell reads.
struct Row {
  QString key;
  QString label;
  std::function<Cell(const DesignComparison&, std::size_t)> cell;
};

Cell valueCell(const DesignComparison& d, double value, double unit, int decimals) {
  if (!d.ok()) return Cell{QStringLiteral("–"), std::nullopt, {}};
  return Cell{number(value / unit, decimals), value, {}};
}

// One unit per group of rows, from the largest value in it (report/units.hpp).
struct Scales {
  report::Unit time, cost;
  int timeDecimals = 2, costDecimals = 2, perfDecimals = 2, perfPerCostDecimals = 2;
  bool tokens = false;
  bool anySystem = false;
};

Scales scalesOf(const Comparison& c) {
  Scales s;
  s.tokens = c.measure == PerformanceMeasure::TokensPerSecond;
  const bool tokens = s.tokens;
  double maxTime = 0, maxCost = 0, maxPerf = 0;
  for (const DesignComparison& d : c.designs) {
    s.anySystem = s.anySystem || d.analysis.costScope == CostScope::System;
    if (!d.ok()) continue;
    const Evaluation& e = d.analysis.design.eval;
    if (std::isfinite(e.iterationNs)) maxTime = std::max(maxTime, std::fabs(e.iterationNs));
    for (double usd : {e.costUsd, e.networkCostUsd})
      if (std::isfinite(usd)) maxCost = std::max(maxCost, std::fabs(usd));
    if (d.performance) maxPerf = std::max(maxPerf, *d.performance);
  }
  s.time = report::timeUnitFor(maxTime);
  s.cost = report::costUnitFor(maxCost);
  s.timeDecimals = decimalsFor(s.time.of(maxTime));
  s.costDecimals = decimalsFor(s.cost.of(maxCost));
  s.perfDecimals = tokens ? (maxPerf >= 100 ? 0 : 2) : decimalsFor(maxPerf);
  double maxPerfPerCost = 0;
  for (const DesignComparison& d : c.designs)
    if (d.perfPerCost) maxPerfPerCost = std::max(maxPerfPerCost, *d.perfPerCost * s.cost.size);
  s.perfPerCostDecimals = decimalsFor(maxPerfPerCost);
  return s;
}

// Status, why not, objective, network, NPUs and the split.
void addDesignRows(std::vector<Row>& rows, const Comparison& c) {
  rows.push_back({QStringLiteral("status"), ComparisonView::tr("Status"),
                  [](const DesignComparison& d, std::size_t) {
                    return Cell{toQString(statusWord(d.analysis)), std::nullopt,
                                d.ok() ? QString() : capitalized(d.analysis.message)};
                  }});
  // Why a design has no result, in the table and not only in a tooltip.
  if (std::any_of(c.designs.begin(), c.designs.end(),
                  [](const DesignComparison& d) { return !d.ok(); })) {
    rows.push_back({QStringLiteral("reason"), ComparisonView::tr("Why not solved"),
                    [](const DesignComparison& d, std::size_t) {
                      if (d.ok()) return Cell{QString(), std::nullopt, {}};
                      // Short in the cell (a column as wide as the message pushed the
                      // other cells out of sight), whole in the tooltip.
                      constexpr int kShownChars = 48;
                      const QString why = capitalized(d.analysis.message);
                      const QString shown =
                          why.size() > kShownChars
                              ? why.left(kShownChars - 1).trimmed() + QChar(0x2026)
                              : why;
                      return Cell{shown, std::nullopt, why};
                    }});
  }
  rows.push_back({QStringLiteral("objective"), ComparisonView::tr("Objective"),
                  [](const DesignComparison& d, std::size_t) {
                    return Cell{d.analysis.objective == Objective::Performance
                                    ? ComparisonView::tr("performance")
                                    : ComparisonView::tr("perf per cost"),
                                std::nullopt,
                                {}};
                  }});
  rows.push_back({QStringLiteral("network"), ComparisonView::tr("Network"),
                  [](const DesignComparison& d, std::size_t) {
                    return Cell{toQString(shapeLabel(d.input.project.network)), std::nullopt, {}};
                  }});
  rows.push_back({QStringLiteral("npus"), ComparisonView::tr("NPUs"),
                  [](const DesignComparison& d, std::size_t) {
                    const auto n = static_cast<double>(d.input.project.network.npuCount());
                    return Cell{formatNpus(static_cast<long long>(n)), n, {}};
                  }});
  // The split: one row per dimension name when every design has the same
  // dimensions, else one per position with the name in the cell.
  std::vector<std::string> dimNames;
  bool sameDims = true;
  std::size_t widest = 0;
  for (const DesignComparison& d : c.designs) {
    if (!d.ok() || !d.analysis.problem) continue;
    const std::vector<std::string>& n = d.analysis.problem->dimNames;
    if (dimNames.empty()) dimNames = n;
    sameDims = sameDims && n == dimNames;
    widest = std::max(widest, n.size());
  }
  rows.push_back({QString(), ComparisonView::tr("Bandwidth per NPU (GB/s)"), {}});
  for (std::size_t k = 0; k < widest; ++k) {
    const QString label = sameDims && k < dimNames.size()
                              ? toQString(dimNames[k])
                              : ComparisonView::tr("dimension %1").arg(k + 1);
    rows.push_back({QStringLiteral("bandwidth_gbps/%1").arg(k), QStringLiteral("    ") + label,
                    [k, sameDims](const DesignComparison& d, std::size_t) {
                      const DesignResult& r = d.analysis.design;
                      if (!d.ok() || k >= r.bandwidth.size())
                        return Cell{QStringLiteral("–"), std::nullopt, {}};
                      QString text = number(r.bandwidth[k], 1);
                      if (!sameDims && d.analysis.problem)
                        text = toQString(d.analysis.problem->dimNames[k]) + QLatin1Char(' ') + text;
                      return Cell{text, r.bandwidth[k], {}};
                    }});
  }
  rows.push_back({QStringLiteral("total_bandwidth_gbps"), ComparisonView::tr("    total"),
                  [=](const DesignComparison& d, std::size_t) {
                    return valueCell(d, d.analysis.design.totalBandwidth(), 1, 1);
                  }});
}

// Times, performance, training and costs, in the comparison's units.
void addMeasureRows(std::vector<Row>& rows, const Scales& s) {
  const report::Unit& time = s.time;
  const report::Unit& cost = s.cost;
  const QString timeUnit = toQString(time.name), costUnit = toQString(cost.name);
  const int timeDecimals = s.timeDecimals, costDecimals = s.costDecimals;
  const int perfDecimals = s.perfDecimals, perfPerCostDecimals = s.perfPerCostDecimals;
  const bool tokens = s.tokens, anySystem = s.anySystem;
  rows.push_back({QString(), ComparisonView::tr("Time per iteration (%1)").arg(timeUnit), {}});
  rows.push_back({QStringLiteral("iteration_time_ns"), ComparisonView::tr("    iteration"),
                  [=](const DesignComparison& d, std::size_t) {
                    return valueCell(d, d.analysis.design.eval.iterationNs, time.size,
                                     timeDecimals);
                  }});
  rows.push_back({QStringLiteral("compute_time_ns"), ComparisonView::tr("    compute"),
                  [=](const DesignComparison& d, std::size_t) {
                    return valueCell(d, d.analysis.design.eval.computeNs, time.size, timeDecimals);
                  }});
  rows.push_back(
      {QStringLiteral("communication_time_ns"), ComparisonView::tr("    exposed communication"),
       [=](const DesignComparison& d, std::size_t) {
         return valueCell(d, d.analysis.design.eval.communicationNs, time.size, timeDecimals);
       }});
  rows.push_back({QStringLiteral("performance"),
                  tokens ? ComparisonView::tr("Throughput (tokens/s)")
                         : ComparisonView::tr("Iterations per second"),
                  [=](const DesignComparison& d, std::size_t) {
                    if (!d.performance) return Cell{QStringLiteral("–"), std::nullopt, {}};
                    return Cell{number(*d.performance, perfDecimals), d.performance, {}};
                  }});
  rows.push_back({QStringLiteral("mfu"), ComparisonView::tr("MFU"),
                  [](const DesignComparison& d, std::size_t) {
                    const auto& mfu = d.analysis.design.throughput.mfu;
                    if (!d.ok() || !mfu) return Cell{QStringLiteral("–"), std::nullopt, {}};
                    return Cell{number(100 * *mfu, 1) + QStringLiteral(" %"), mfu, {}};
                  }});
  rows.push_back({QStringLiteral("memory_per_npu_bytes"), ComparisonView::tr("Memory per NPU"),
                  [](const DesignComparison& d, std::size_t) {
                    const MemoryEstimate& m = d.analysis.training.memory;
                    if (!m.use) return Cell{QStringLiteral("–"), std::nullopt, toQString(m.note)};
                    QString text = toQString(report::formatBytes(m.use->total()));
                    if (m.capacityBytes > 0)
                      text += ComparisonView::tr(" of %1").arg(
                          toQString(report::formatBytes(m.capacityBytes)));
                    if (!m.fits()) text += ComparisonView::tr(" (does not fit)");
                    return Cell{text, m.use->total(), toQString(m.describe())};
                  }});
  rows.push_back({QString(), ComparisonView::tr("Cost (%1)").arg(costUnit), {}});
  rows.push_back({QStringLiteral("network_cost_usd"), ComparisonView::tr("    network"),
                  [=](const DesignComparison& d, std::size_t) {
                    return valueCell(d, d.analysis.design.eval.networkCostUsd, cost.size,
                                     costDecimals);
                  }});
  if (anySystem) {
    rows.push_back({QStringLiteral("cost_usd"), ComparisonView::tr("    system (NPUs + network)"),
                    [=](const DesignComparison& d, std::size_t) {
                      if (d.analysis.costScope != CostScope::System)
                        return Cell{
                            ComparisonView::tr("(network only)"), std::nullopt,
                            ComparisonView::tr("This scenario counts the network's cost only")};
                      return valueCell(d, d.analysis.design.eval.costUsd, cost.size, costDecimals);
                    }});
  }
  rows.push_back(
      {QStringLiteral("perf_per_cost"),
       tokens ? ComparisonView::tr("Perf per cost (tokens/s per %1)").arg(costUnit)
              : ComparisonView::tr("Perf per cost (iterations/s per %1)").arg(costUnit),
       [=](const DesignComparison& d, std::size_t) {
         if (!d.perfPerCost) return Cell{QStringLiteral("–"), std::nullopt, {}};
         return Cell{number(*d.perfPerCost * cost.size, perfPerCostDecimals), d.perfPerCost, {}};
       }});
}

// Each design against the baseline.
void addRatioRows(std::vector<Row>& rows, const Comparison& c) {
  const bool tokens = c.measure == PerformanceMeasure::TokensPerSecond;
  const QString baseName = shownName(c.baselineDesign().input.name);
  rows.push_back({QString(), ComparisonView::tr("Against the baseline, %1").arg(baseName), {}});
  auto ratioCell = [&c](const DesignComparison& d, std::size_t i, const std::optional<double>& r,
                        const std::optional<double>& shown, const QString& better,
                        const QString& worse) {
    if (i == c.baseline)
      return Cell{d.ok() ? ComparisonView::tr("baseline") : QStringLiteral("–"), r, {}};
    if (!r || !shown || !(*shown > 0)) return Cell{QStringLiteral("–"), r, {}};
    return Cell{ratioWords(*shown, better, worse), r, {}};
  };
  rows.push_back({QStringLiteral("speedup"),
                  tokens ? ComparisonView::tr("    throughput") : ComparisonView::tr("    speed"),
                  [=](const DesignComparison& d, std::size_t i) {
                    return ratioCell(d, i, d.speedup, d.speedup, ComparisonView::tr("faster"),
                                     ComparisonView::tr("slower"));
                  }});
  rows.push_back({QStringLiteral("cost_ratio"), ComparisonView::tr("    cost"),
                  [=](const DesignComparison& d, std::size_t i) {
                    const std::optional<double> cheaper =
                        d.costRatio && *d.costRatio > 0 ? std::optional<double>(1 / *d.costRatio)
                                                        : std::nullopt;
                    return ratioCell(d, i, d.costRatio, cheaper, ComparisonView::tr("cheaper"),
                                     ComparisonView::tr("more expensive"));
                  }});
  rows.push_back({QStringLiteral("perf_per_cost_ratio"), ComparisonView::tr("    perf per cost"),
                  [=](const DesignComparison& d, std::size_t i) {
                    return ratioCell(d, i, d.perfPerCostRatio, d.perfPerCostRatio,
                                     ComparisonView::tr("better"), ComparisonView::tr("worse"));
                  }});
}

std::vector<Row> comparisonRows(const Comparison& c) {
  std::vector<Row> rows;
  addDesignRows(rows, c);
  addMeasureRows(rows, scalesOf(c));
  addRatioRows(rows, c);
  return rows;
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

  const std::vector<Row> rows = comparisonRows(c);

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
    const Row& row = rows[static_cast<std::size_t>(r)];
    auto* head = new QTableWidgetItem(row.label);
    head->setData(Qt::UserRole, row.key);
    if (row.key.isEmpty()) {
      QFont f = head->font();
      f.setBold(true);
      head->setFont(f);
    }
    table_->setVerticalHeaderItem(r, head);
    if (!row.cell) continue;
    for (int col = 0; col < columns; ++col) {
      const auto i = static_cast<std::size_t>(col);
      const Cell cell = row.cell(c.designs[i], i);
      auto* item = new QTableWidgetItem(cell.text);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (cell.value) item->setData(Qt::UserRole, *cell.value);
      if (!cell.tooltip.isEmpty()) item->setToolTip(cell.tooltip);
      if (!current[i]) item->setForeground(staleText);
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
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (*format == FigureFormat::Png) {
    const qreal ratio = 1.5;
    QImage image(size * ratio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    image.fill(Qt::white);
    QPainter painter(&image);
    doc.drawContents(&painter);
    painter.end();
    image.save(&buffer, "PNG");
  } else if (*format == FigureFormat::Svg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setResolution(logicalDpiY());
    svg.setTitle(tr("Comparison of the scenarios"));
    QPainter painter(&svg);
    doc.drawContents(&painter);
    painter.end();
  } else {
    QPdfWriter pdf(&buffer);
    pdf.setTitle(tr("Comparison of the scenarios"));
    pdf.setCreator(QStringLiteral("Libra Studio"));
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageOrientation(QPageLayout::Landscape);
    pdf.setPageMargins(QMarginsF(10, 10, 10, 10), QPageLayout::Millimeter);
    QPainter painter(&pdf);
    const QRect page = painter.viewport();
    const double scale = std::min(page.width() / static_cast<double>(size.width()),
                                  page.height() / static_cast<double>(size.height()));
    painter.scale(scale, scale);
    doc.drawContents(&painter);
    painter.end();
  }
  buffer.close();
  return writeFileAtomic(path, bytes, error);
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
