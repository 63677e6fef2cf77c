// Budget and objective: the total bandwidth per NPU and the cost budget, each a
// slider with a spin box (one drag = one undo step), the objective, the extra
// constraint expressions and the number of points on the Pareto front.
#pragma once

#include <QWidget>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSlider;
class QSpinBox;
QT_END_NAMESPACE

namespace libra::studio {

class ConstraintEditor;
class Document;

class BudgetPanel : public QWidget {
  Q_OBJECT

 public:
  // Slider resolution: 1 GB/s per step for the total, $0.1 M per step for the cost budget.
  static constexpr double kCostStepUsd = 1e5;
  static constexpr int kMaxTotalBandwidth = 4000;

  explicit BudgetPanel(Document* document, QWidget* parent = nullptr);

  QSlider* totalSlider() const { return totalSlider_; }
  QDoubleSpinBox* totalSpin() const { return totalSpin_; }
  QSlider* costSlider() const { return costSlider_; }
  ConstraintEditor* constraintEditor() const { return constraints_; }
  QSpinBox* paretoPointsSpin() const { return points_; }
  QComboBox* costScopeCombo() const { return costScope_; }
  QDoubleSpinBox* npuPriceSpin() const { return npuPrice_; }

  // The cost of the current optimum: where a newly enabled cost budget starts.
  void setCurrentOptimumCost(double usd) { optimumCostUsd_ = usd; }
  // The budget ticking "Cost budget" sets: 90 % of the current optimum's cost,
  // else half the slider's range, on the slider's step.
  double costBudgetStartUsd() const;

 private:
  void createBudgetInputs();     // the total bandwidth and the cost budget
  void createObjectiveInputs();  // objective, cost scope, NPU price, constraints, front points
  void layOut();                 // the three boxes
  // Every control's edit of the document, and the document's changes back.
  void connectEdits();
  void syncFromDocument();
  void setTotal(double gbps, bool fromSlider);
  void setCost(double usd, bool fromSlider);
  double maxCostUsd() const;

  Document* document_;
  QCheckBox* totalEnabled_;
  QSlider* totalSlider_;
  QDoubleSpinBox* totalSpin_;
  QCheckBox* costEnabled_;
  QSlider* costSlider_;
  QDoubleSpinBox* costSpin_;
  QComboBox* objective_;
  QComboBox* costScope_;
  QDoubleSpinBox* npuPrice_;  // $ k per NPU; its minimum (0) means the device's list price
  ConstraintEditor* constraints_;
  QSpinBox* points_;
  quint64 totalDrag_ = 0;
  quint64 costDrag_ = 0;
  double optimumCostUsd_ = 0;
};

}  // namespace libra::studio
