// The hyperparameters of a transformer model (libra/presets.hpp), edited in a
// form: what a model card gives (layers, widths, heads, experts) and the
// batch it is trained at. The editor regenerates the workload from the result.
#pragma once

#include <QDialog>
#include <libra/presets.hpp>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace libra::studio {

class ModelDialog : public QDialog {
  Q_OBJECT

 public:
  // `model` must be a transformer (dense or mixture of experts).
  explicit ModelDialog(const Preset& model, QWidget* parent = nullptr);

  // The model with the form's values; validated (the OK button is enabled only
  // while it validates, and the label under the form says why not).
  Preset model() const;
  // Why the form's model is refused; empty when it is valid.
  QString problem() const;
  QSpinBox* field(const QString& key) const;  // e.g. "layers", "hidden", "experts"

 private:
  void check();

  Preset base_;
  QLineEdit* name_;
  QCheckBox* gated_;
  QCheckBox* tied_;
  QLabel* summary_;
  QList<QSpinBox*> fields_;
};

}  // namespace libra::studio
