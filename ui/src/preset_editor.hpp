// Editing a workload through the engine's presets (libra/presets.hpp): model
// preset, device, parallelization degrees and options. Every change regenerates
// the workload's layers for the current network, as one undoable edit; a
// combination that does not fit the network is reported and not applied.
#pragma once

#include <QWidget>
#include <libra/presets.hpp>
#include <optional>
#include <string>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
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

  // Regenerates the workload from `model` (a preset, a model read from a file
  // or edited hyperparameters) with the model's default parallelism on the
  // current network and device, as one undoable edit. False, with the reason
  // in `error` and shown, when it cannot be generated.
  bool useModel(const Preset& model, QString* error = nullptr);
  // Reads a model file (a Hugging Face config.json or libra's model file);
  // `sequenceLength` and `globalBatch` (> 0) complete one that gives none.
  bool openModelFile(const QString& path, int sequenceLength, qint64 globalBatch,
                     QString* error = nullptr);
  // The model of the workload being edited; nullopt when it has none.
  std::optional<Preset> currentModel() const;

 private:
  void sync();
  void apply();
  void convertToPreset();
  void chooseModelFile();
  void editHyperparameters();

  Document* document_;
  int workload_ = 0;
  QWidget* editor_;
  QPushButton* convert_;
  QComboBox* preset_;
  QComboBox* device_;
  QSpinBox* tp_;
  QSpinBox* ep_;
  QSpinBox* pp_;
  QLabel* dp_;
  QSpinBox* microBatch_;
  QSpinBox* sequence_;
  QCheckBox* sequenceParallel_;
  QCheckBox* zero3_;
  QCheckBox* recompute_;
  QComboBox* layout_;
  QLabel* error_;
  QLabel* details_;
  QPushButton* openModel_;
  QPushButton* editModel_;
};

}  // namespace libra::studio
