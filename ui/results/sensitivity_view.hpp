// What the constraints cost at the shown optimum: one row per constraint with
// what one more unit of its right-hand side is worth, and the bottleneck
// dimensions. It only shows the engine's Analysis::sensitivity (computed with
// the solve, in the background); it computes nothing.
#pragma once

#include <QWidget>

#include "solver_controller.hpp"

namespace libra::studio {

class WrapLabel;

class SensitivityView : public QWidget {
  Q_OBJECT

 public:
  explicit SensitivityView(QWidget* parent = nullptr);

  void showResult(const SolveResult& result);
  // Greys the numbers out while they do not match the inputs.
  void setStale(bool stale);

  // One per constraint, as shown: "total == 500: −1.23 µs per GB/s".
  QStringList rowTexts() const;
  QString bottleneckText() const;
  bool isCurrent() const;  // not greyed out as stale

 private:
  WrapLabel* title_;
  WrapLabel* table_;
  WrapLabel* bottleneck_;
  QStringList rows_;
};

// The text of one constraint's rate: "−1.23 µs" per "GB/s", "per $1 M".
QString sensitivityValueText(const ConstraintSensitivity& c);

}  // namespace libra::studio
