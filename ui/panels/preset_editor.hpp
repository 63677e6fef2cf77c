// Editing a workload through the engine's presets (libra/presets.hpp): model
// preset, device, parallelization degrees and options. Every change regenerates
// the workload's layers for the current network, as one undoable edit; a
// combination that does not fit the network is reported and not applied.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <libra/execution.hpp>
#include <libra/presets.hpp>
#include <optional>
#include <string>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
QT_END_NAMESPACE

namespace libra::studio {

class Document;

class PresetEditor : public QWidget {
  Q_OBJECT

 public:
  explicit PresetEditor(Document* document, QWidget* parent = nullptr);
  void setWorkloadIndex(int index);

  QString errorText() const;

 Q_SIGNALS:
  // A model's workload was applied (at once, or after its execution was chosen).
  void modelApplied(bool ok);

 public:
  // Regenerates the workload from `model` (a preset, a model read from a file
  // or edited hyperparameters) on the current network and device, as one
  // undoable edit: with the model's default parallelism where that fits the
  // device's memory and the batch, else (in the background: the edit follows,
  // and modelApplied says so) the execution of least compute time that fits,
  // as `libra new` and `sweep` choose it. False, with the reason in `error`
  // and shown, when it cannot be generated.
  bool useModel(const Preset& model, QString* error = nullptr);
  // Whether an execution is being chosen in the background.
  bool choosingExecution() const;
  // Reads a model file (a Hugging Face config.json or libra's model file);
  // `sequenceLength` and `globalBatch` (> 0) complete one that gives none.
  bool openModelFile(const QString& path, int sequenceLength, qint64 globalBatch,
                     QString* error = nullptr);
  // The model of the workload being edited; nullopt when it has none.
  std::optional<Preset> currentModel() const;

 private:
  void createInputs();
  // createInputs' parts: the degrees' spin boxes (and the data-parallel label);
  // the options' check boxes, utilization and layout.
  void createParallelismInputs();
  void createOptionInputs();
  void layOut();
  void connectInputs();
  void sync();
  void apply();
  void convertToPreset();
  void chooseModelFile();
  void editHyperparameters();
  // Generates `model` with `parallelism` and `generator` as one edit.
  bool applyModel(const Preset& model, const Parallelism& parallelism,
                  const GeneratorOptions& generator, QString* error);

  Document* document_;
  int workload_ = 0;
  QWidget* editor_;
  QPushButton* convert_;
  QComboBox* preset_;
  QComboBox* device_;
  QSpinBox* tp_;
  QSpinBox* cp_;
  QSpinBox* ep_;
  QSpinBox* pp_;
  QLabel* dp_;
  QSpinBox* microBatch_;
  QSpinBox* sequence_;
  QCheckBox* sequenceParallel_;
  QCheckBox* zero3_;
  QCheckBox* recompute_;
  QCheckBox* fp8_;
  QDoubleSpinBox* utilization_;
  QComboBox* layout_;
  QLabel* error_;
  QLabel* details_;
  QPushButton* openModel_;
  QPushButton* editModel_;
  QFutureWatcher<std::optional<Execution>>* choosing_;
  std::optional<Preset> pendingModel_;  // the model whose execution is being chosen
};

}  // namespace libra::studio
