#include "workload_panel.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "document.hpp"
#include "format.hpp"
#include "layer_model.hpp"
#include "preset_editor.hpp"

namespace libra::studio {

namespace {

QTableView* readOnlyTable(QAbstractItemModel* model, const QString& name) {
  auto* table = new QTableView;
  table->setObjectName(name);
  table->setModel(model);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // A workload has hundreds of layers: size the columns from the first rows only.
  table->horizontalHeader()->setResizeContentsPrecision(64);
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
  return table;
}

}  // namespace

WorkloadPanel::WorkloadPanel(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  setObjectName(QStringLiteral("workloadPanel"));
  workloadSelector_ = new QComboBox;
  workloadSelector_->setObjectName(QStringLiteral("workloadSelector"));
  workloadSelector_->setToolTip(
      tr("The project's workloads (several are weighted into one objective)"));
  description_ = new QLabel;
  description_->setObjectName(QStringLiteral("workloadDescription"));
  description_->setWordWrap(true);

  presetEditor_ = new PresetEditor(document_);

  loop_ = new QComboBox;
  loop_->setObjectName(QStringLiteral("trainingLoopCombo"));
  loop_->addItem(tr("No overlap (reference)"), static_cast<int>(TrainingLoop::NoOverlap));
  loop_->addItem(tr("Activation recomputation"), static_cast<int>(TrainingLoop::Recompute));
  loop_->addItem(tr("Overlap weight-gradient communication"),
                 static_cast<int>(TrainingLoop::Overlap));
  loop_->setToolTip(
      tr("How one training iteration is scheduled: the reference runs compute and "
         "communication one after the other"));

  layers_ = new LayerTableModel(document_, this);
  communicator_ = new CommunicatorTableModel(document_, this);
  layerTable_ = readOnlyTable(layers_, QStringLiteral("layerTable"));
  communicatorTable_ = readOnlyTable(communicator_, QStringLiteral("communicatorTable"));
  communicatorTable_->setToolTip(
      tr("NPUs of each dimension that one collective spans, per phase kind"));

  auto* form = new QFormLayout;
  form->addRow(tr("Workload"), workloadSelector_);
  form->addRow(tr("Training loop"), loop_);
  auto* tabs = new QTabWidget;
  tabs->setObjectName(QStringLiteral("workloadTabs"));
  tabs->addTab(layerTable_, tr("Layers"));
  tabs->addTab(communicatorTable_, tr("Communicator"));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(description_);
  layout->addWidget(presetEditor_);
  layout->addWidget(tabs, 1);

  connect(workloadSelector_, &QComboBox::activated, this, &WorkloadPanel::selectWorkload);
  connect(loop_, &QComboBox::activated, this, [this](int index) {
    const auto loop = static_cast<TrainingLoop>(loop_->itemData(index).toInt());
    document_->edit(tr("Change the training loop"),
                    [&](Project& p) { p.model.trainingLoop = loop; });
  });
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Workloads | Document::Model | Document::Network)) sync();
  });
  connect(document_, &Document::documentReset, this, [this] { selectWorkload(0); });
  sync();
}

void WorkloadPanel::selectWorkload(int index) {
  workload_ = index;
  layers_->setWorkloadIndex(index);
  communicator_->setWorkloadIndex(index);
  presetEditor_->setWorkloadIndex(index);
  sync();
}

void WorkloadPanel::sync() {
  const Project& p = document_->project();
  {
    const QSignalBlocker block(workloadSelector_);
    QStringList names;
    for (const Workload& w : p.workloads) {
      names << (w.name.empty() ? tr("(unnamed)") : toQString(w.name)) +
                   (p.workloads.size() > 1 ? tr(" × %1").arg(w.weight) : QString());
    }
    QStringList current;
    for (int i = 0; i < workloadSelector_->count(); ++i) current << workloadSelector_->itemText(i);
    if (current != names) {
      workloadSelector_->clear();
      workloadSelector_->addItems(names);
    }
    if (workload_ >= static_cast<int>(p.workloads.size())) workload_ = 0;
    workloadSelector_->setCurrentIndex(workload_);
    workloadSelector_->setEnabled(p.workloads.size() > 1);
  }
  {
    const QSignalBlocker block(loop_);
    loop_->setCurrentIndex(loop_->findData(static_cast<int>(p.model.trainingLoop)));
  }
  if (workload_ < static_cast<int>(p.workloads.size())) {
    const Workload& w = p.workloads[workload_];
    QString text = tr("%n layer(s)", nullptr, static_cast<int>(w.layers.size()));
    if (w.origin) {
      text = tr("Generated from preset <b>%1</b>%2 · %3")
                 .arg(toQString(w.origin->preset),
                      w.origin->device.empty() ? QString()
                                               : tr(" on %1").arg(toQString(w.origin->device)),
                      text);
    } else {
      text = tr("Imported workload, shown read-only · %1").arg(text);
    }
    description_->setText(text);
  } else {
    description_->setText(tr("The project has no workload."));
  }
}

}  // namespace libra::studio
