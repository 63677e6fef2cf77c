// The workload: which model runs on the network and how. A workload made from a
// preset is edited through its preset, device and parallelization degrees (it is
// regenerated on every change); an imported one is shown read-only as its layers
// and communicator. The training loop applies to both.
#pragma once

#include <QWidget>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QSpinBox;
class QTableView;
QT_END_NAMESPACE

namespace libra::studio {

class CommunicatorTableModel;
class Document;
class LayerTableModel;
class PresetEditor;

class WorkloadPanel : public QWidget {
  Q_OBJECT

 public:
  explicit WorkloadPanel(Document* document, QWidget* parent = nullptr);

  LayerTableModel* layerModel() const { return layers_; }
  CommunicatorTableModel* communicatorModel() const { return communicator_; }
  PresetEditor* presetEditor() const { return presetEditor_; }
  QComboBox* chunksCombo() const { return chunks_; }

 private:
  // The workload selector, description, preset editor, loop, chunks, endpoint delay.
  void createInputs();
  void createTablesAndLayOut();  // the layer and communicator tables, the layout
  void connectEdits();           // the inputs edit the document; the document syncs them
  void sync();
  void selectWorkload(int index);
  void applyChunks(const QString& text);

  Document* document_;
  QComboBox* workloadSelector_;
  QLabel* description_;
  PresetEditor* presetEditor_;
  QComboBox* loop_;
  QComboBox* chunks_;              // chunks per collective: ideal, auto or a count
  QDoubleSpinBox* endpointDelay_;  // the network's endpoint delay, ns
  LayerTableModel* layers_;
  CommunicatorTableModel* communicator_;
  QTableView* layerTable_;
  QTableView* communicatorTable_;
  int workload_ = 0;
};

}  // namespace libra::studio
