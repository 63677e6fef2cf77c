#include "budget_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <libra/cost.hpp>
#include <libra/edits.hpp>
#include <libra/project.hpp>

#include "constraint_editor.hpp"
#include "document.hpp"
#include "format.hpp"
#include "project_edits.hpp"
#include "trace.hpp"

namespace libra::studio {

namespace {

QWidget* row(QWidget* a, QWidget* b) {
  auto* w = new QWidget;
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(a, 1);
  l->addWidget(b);
  return w;
}

}  // namespace

BudgetPanel::BudgetPanel(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  setObjectName(QStringLiteral("budgetPanel"));
  createBudgetInputs();
  createObjectiveInputs();
  layOut();
  connectEdits();
  syncFromDocument();
}

void BudgetPanel::createBudgetInputs() {
  totalEnabled_ = new QCheckBox(tr("Total bandwidth per NPU"));
  totalEnabled_->setObjectName(QStringLiteral("totalBandwidthEnabled"));
  totalEnabled_->setToolTip(
      tr("Adds the constraint total == B: the bandwidths of all dimensions sum to B GB/s per NPU"));
  totalSlider_ = new QSlider(Qt::Horizontal);
  totalSlider_->setObjectName(QStringLiteral("totalBandwidthSlider"));
  totalSlider_->setRange(1, kMaxTotalBandwidth);
  totalSlider_->setPageStep(50);
  totalSlider_->setToolTip(tr("Total bandwidth per NPU, GB/s (1 GB/s = 10^9 bytes/s)"));
  totalSpin_ = new QDoubleSpinBox;
  totalSpin_->setObjectName(QStringLiteral("totalBandwidthSpin"));
  totalSpin_->setRange(0.1, 1e6);
  totalSpin_->setDecimals(1);
  totalSpin_->setSuffix(QStringLiteral(" GB/s"));
  totalSpin_->setKeyboardTracking(false);
  totalSpin_->setToolTip(totalSlider_->toolTip());

  costEnabled_ = new QCheckBox(tr("Cost budget"));
  costEnabled_->setObjectName(QStringLiteral("costBudgetEnabled"));
  costEnabled_->setToolTip(
      tr("Adds the constraint cost <= C: the cost (the network's, or in the system scope the "
         "NPUs' and the network's) is at most C dollars"));
  costSlider_ = new QSlider(Qt::Horizontal);
  costSlider_->setObjectName(QStringLiteral("costBudgetSlider"));
  costSlider_->setToolTip(tr("Cost budget, million US dollars"));
  costSpin_ = new QDoubleSpinBox;
  costSpin_->setObjectName(QStringLiteral("costBudgetSpin"));
  costSpin_->setRange(0, 1e7);
  costSpin_->setDecimals(2);
  costSpin_->setPrefix(QStringLiteral("$"));
  costSpin_->setSuffix(QStringLiteral(" M"));
  costSpin_->setKeyboardTracking(false);
  costSpin_->setToolTip(costSlider_->toolTip());
}

void BudgetPanel::createObjectiveInputs() {
  objective_ = new QComboBox;
  objective_->setObjectName(QStringLiteral("objectiveCombo"));
  objective_->addItem(tr("Performance (least iteration time)"),
                      static_cast<int>(Objective::Performance));
  objective_->addItem(tr("Performance per cost (least time × cost)"),
                      static_cast<int>(Objective::PerfPerCost));
  objective_->setToolTip(tr("What the optimizer minimizes"));

  costScope_ = new QComboBox;
  costScope_->setObjectName(QStringLiteral("costScopeCombo"));
  costScope_->addItem(tr("Network only"), static_cast<int>(CostScope::Network));
  costScope_->addItem(tr("NPUs + network (system)"), static_cast<int>(CostScope::System));
  costScope_->setToolTip(
      tr("What cost counts, for perf per cost, the Pareto front and the cost budget: the "
         "network alone (LIBRA's model) or the whole system, N NPUs at their price plus the "
         "network"));
  npuPrice_ = new QDoubleSpinBox;
  npuPrice_->setObjectName(QStringLiteral("npuPriceSpin"));
  npuPrice_->setRange(0, 1e4);
  npuPrice_->setDecimals(1);
  npuPrice_->setPrefix(QStringLiteral("$"));
  npuPrice_->setSuffix(QStringLiteral(" k"));
  npuPrice_->setSpecialValueText(tr("device list price"));
  npuPrice_->setKeyboardTracking(false);

  constraints_ = new ConstraintEditor(document_);
  constraints_->setObjectName(QStringLiteral("constraintEditor"));

  points_ = new QSpinBox;
  points_->setObjectName(QStringLiteral("paretoPointsSpin"));
  points_->setRange(2, 500);
  points_->setValue(50);
  points_->setKeyboardTracking(false);
  points_->setToolTip(tr("Cost budgets sampled for the Pareto front"));
}

void BudgetPanel::layOut() {
  auto* budgetBox = new QGroupBox(tr("Budget"));
  auto* budgetLayout = new QVBoxLayout(budgetBox);
  budgetLayout->addWidget(totalEnabled_);
  budgetLayout->addWidget(row(totalSlider_, totalSpin_));
  budgetLayout->addWidget(costEnabled_);
  budgetLayout->addWidget(row(costSlider_, costSpin_));

  auto* objectiveBox = new QGroupBox(tr("Objective"));
  auto* objectiveLayout = new QFormLayout(objectiveBox);
  objectiveLayout->addRow(tr("Minimize"), objective_);
  objectiveLayout->addRow(tr("Cost counts"), costScope_);
  objectiveLayout->addRow(tr("NPU price"), npuPrice_);
  objectiveLayout->addRow(tr("Front points"), points_);

  auto* constraintBox = new QGroupBox(tr("Extra constraints"));
  auto* constraintLayout = new QVBoxLayout(constraintBox);
  constraintLayout->addWidget(constraints_);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(budgetBox);
  layout->addWidget(objectiveBox);
  layout->addWidget(constraintBox, 1);
}

void BudgetPanel::connectEdits() {
  // A drag is one merge session: pressing starts it, releasing ends it.
  connect(totalSlider_, &QSlider::sliderPressed, this,
          [this] { totalDrag_ = document_->newMergeSession(); });
  connect(totalSlider_, &QSlider::sliderReleased, this, [this] { totalDrag_ = 0; });
  connect(totalSlider_, &QSlider::valueChanged, this, [this](int v) { setTotal(v, true); });
  connect(totalSpin_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { setTotal(v, false); });
  connect(totalEnabled_, &QCheckBox::toggled, this, [this](bool on) {
    document_->edit(
        on ? tr("Set a total bandwidth") : tr("Remove the total bandwidth"), [&](Project& p) {
          setTotalBandwidth(p, on ? std::optional<double>(totalSpin_->value()) : std::nullopt);
        });
  });
  connect(costSlider_, &QSlider::sliderPressed, this,
          [this] { costDrag_ = document_->newMergeSession(); });
  connect(costSlider_, &QSlider::sliderReleased, this, [this] { costDrag_ = 0; });
  connect(costSlider_, &QSlider::valueChanged, this,
          [this](int v) { setCost(v * kCostStepUsd, true); });
  connect(costSpin_, &QDoubleSpinBox::valueChanged, this,
          [this](double v) { setCost(v * 1e6, false); });
  connect(costEnabled_, &QCheckBox::toggled, this, [this](bool on) {
    const double start = costBudgetStartUsd();
    document_->edit(on ? tr("Set a cost budget") : tr("Remove the cost budget"), [&](Project& p) {
      setCostBudget(p, on ? std::optional<double>(start) : std::nullopt);
    });
  });
  connect(objective_, &QComboBox::activated, this, [this](int index) {
    const auto objective = static_cast<Objective>(objective_->itemData(index).toInt());
    document_->edit(tr("Change the objective"), [&](Project& p) { p.objective = objective; });
  });
  connect(costScope_, &QComboBox::activated, this, [this](int index) {
    const auto scope = static_cast<CostScope>(costScope_->itemData(index).toInt());
    document_->edit(scope == CostScope::System ? tr("Count the NPUs in the cost")
                                               : tr("Count only the network in the cost"),
                    [&](Project& p) { p.costScope = scope; });
  });
  connect(npuPrice_, &QDoubleSpinBox::valueChanged, this, [this](double thousands) {
    const std::optional<double> usd =
        thousands > 0 ? std::optional<double>(thousands * 1e3) : std::nullopt;
    document_->edit(usd ? tr("Set the NPU price to %1").arg(formatCostUsd(*usd))
                        : tr("Use the device's list price"),
                    [&](Project& p) { p.npuPriceUsd = usd; });
  });
  connect(points_, &QSpinBox::valueChanged, this, [this](int n) {
    document_->edit(tr("Set the front to %1 points").arg(n),
                    [n](Project& p) { setParetoPoints(p, n); });
  });
  // Another project: nothing of this one's optimum may seed its cost budget.
  connect(document_, &Document::documentReset, this, [this] { optimumCostUsd_ = 0; });
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Constraints | Document::Objective | Document::ViewState |
                 Document::Network | Document::CostModel))
      syncFromDocument();
  });
}

double BudgetPanel::maxCostUsd() const {
  const Project& p = document_->project();
  const BudgetConstraints b = splitConstraints(p.constraints);
  double perGbps = 0;
  try {
    const auto prices = costPerBandwidth(p.network, p.costModel);
    if (!prices.empty()) perGbps = *std::max_element(prices.begin(), prices.end());
  } catch (const std::exception&) {
  }
  double max = b.totalBandwidth && perGbps > 0 ? *b.totalBandwidth * perGbps : 0;
  try {
    max += npuCostUsd(p);  // the NPUs, in the system cost scope
  } catch (const std::exception&) {
  }
  if (b.costBudget) max = std::max(max, *b.costBudget * 1.25);
  return std::max(max, 1e6);
}

double BudgetPanel::costBudgetStartUsd() const {
  const double start = optimumCostUsd_ > 0 ? optimumCostUsd_ * 0.9 : maxCostUsd() * 0.5;
  return std::round(start / kCostStepUsd) * kCostStepUsd;
}

void BudgetPanel::setTotal(double gbps, bool fromSlider) {
  traceEvent("setTotal");
  if (!(gbps > 0)) return;
  const MergeKey key = fromSlider && totalSlider_->isSliderDown()
                           ? MergeKey{QStringLiteral("budget.total"), totalDrag_}
                           : MergeKey{};
  document_->edit(
      tr("Set the total bandwidth to %1").arg(formatBandwidth(gbps)),
      [gbps](Project& p) { setTotalBandwidth(p, gbps); }, key);
}

void BudgetPanel::setCost(double usd, bool fromSlider) {
  if (usd < 0) return;
  const MergeKey key = fromSlider && costSlider_->isSliderDown()
                           ? MergeKey{QStringLiteral("budget.cost"), costDrag_}
                           : MergeKey{};
  document_->edit(
      tr("Set the cost budget to %1").arg(formatCostUsd(usd)),
      [usd](Project& p) { setCostBudget(p, usd); }, key);
}

void BudgetPanel::syncFromDocument() {
  const Project& p = document_->project();
  const BudgetConstraints b = splitConstraints(p.constraints);
  {
    const QSignalBlocker b1(totalEnabled_), b2(totalSlider_), b3(totalSpin_);
    totalEnabled_->setChecked(b.totalBandwidth.has_value());
    totalSlider_->setEnabled(b.totalBandwidth.has_value());
    totalSpin_->setEnabled(b.totalBandwidth.has_value());
    if (b.totalBandwidth) {
      if (std::lround(*b.totalBandwidth) != totalSlider_->value()) {
        totalSlider_->setValue(static_cast<int>(std::lround(*b.totalBandwidth)));
      }
      totalSpin_->setValue(*b.totalBandwidth);
    }
  }
  {
    const QSignalBlocker b1(costEnabled_), b2(costSlider_), b3(costSpin_);
    costEnabled_->setChecked(b.costBudget.has_value());
    costSlider_->setEnabled(b.costBudget.has_value());
    costSpin_->setEnabled(b.costBudget.has_value());
    if (!costSlider_->isSliderDown()) {
      costSlider_->setRange(0, static_cast<int>(std::ceil(maxCostUsd() / kCostStepUsd)));
      costSlider_->setPageStep(std::max(1, costSlider_->maximum() / 20));
    }
    // Without a budget the disabled controls preview the one ticking the box sets,
    // never a value left over from another project.
    const double shown = b.costBudget ? *b.costBudget : costBudgetStartUsd();
    const int v = static_cast<int>(std::lround(shown / kCostStepUsd));
    if (v != costSlider_->value()) costSlider_->setValue(v);
    costSpin_->setValue(shown / 1e6);
  }
  {
    const QSignalBlocker b1(objective_), b2(points_), b3(costScope_), b4(npuPrice_);
    objective_->setCurrentIndex(objective_->findData(static_cast<int>(p.objective)));
    points_->setValue(paretoPointsOf(p));
    costScope_->setCurrentIndex(costScope_->findData(static_cast<int>(p.costScope)));
    npuPrice_->setEnabled(p.costScope == CostScope::System);
    npuPrice_->setValue(p.npuPriceUsd ? *p.npuPriceUsd / 1e3 : 0.0);
    QString known = tr("no device list price is known: set one");
    try {
      Project listed = p;
      listed.npuPriceUsd.reset();
      if (const auto price = npuPrice(listed)) {
        known = tr("the device's list price is %1 (%2)")
                    .arg(formatCostUsd(price->usd), QString::fromStdString(price->source));
      }
    } catch (const std::exception& e) {
      known = QString::fromStdString(e.what());
    }
    npuPrice_->setToolTip(tr("Price of one NPU in the system cost scope; %1").arg(known));
  }
}

}  // namespace libra::studio
