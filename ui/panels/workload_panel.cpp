#include "workload_panel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <libra/collective_model.hpp>

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
  createInputs();
  createTablesAndLayOut();
  connectEdits();
  sync();
}

void WorkloadPanel::createInputs() {
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

  chunks_ = new QComboBox;
  chunks_->setObjectName(QStringLiteral("chunksCombo"));
  chunks_->setEditable(true);
  chunks_->setInsertPolicy(QComboBox::NoInsert);
  chunks_->addItem(tr("ideal (LIBRA)"), QStringLiteral("ideal"));
  chunks_->addItem(tr("auto (per collective)"), QStringLiteral("auto"));
  for (int c : {1, 4, 16, 64}) chunks_->addItem(QString::number(c), QString::number(c));
  chunks_->setToolTip(
      tr("Chunks per collective. ideal: LIBRA's model (infinitely many chunks, no latency). "
         "A count N (1 to %1): each collective is cut into N chunks that pipeline through its "
         "stages, one chunk at a time per dimension, with the links' latencies (the network "
         "table's Latency column). auto: per collective, the count that minimizes its time.")
          .arg(kMaxChunks));

  endpointDelay_ = new QDoubleSpinBox;
  endpointDelay_->setObjectName(QStringLiteral("endpointDelaySpin"));
  endpointDelay_->setRange(0, 1e6);
  endpointDelay_->setDecimals(1);
  endpointDelay_->setSuffix(tr(" ns"));
  endpointDelay_->setKeyboardTracking(false);
  endpointDelay_->setToolTip(
      tr("What an NPU spends on each message bundle (ASTRA-sim's endpoint delay): once at the "
         "start of every collective stage and after every receive, per chunk. Used with a "
         "chunk count or auto; the ideal model ignores it."));
}

void WorkloadPanel::createTablesAndLayOut() {
  layers_ = new LayerTableModel(document_, this);
  communicator_ = new CommunicatorTableModel(document_, this);
  layerTable_ = readOnlyTable(layers_, QStringLiteral("layerTable"));
  communicatorTable_ = readOnlyTable(communicator_, QStringLiteral("communicatorTable"));
  communicatorTable_->setToolTip(
      tr("NPUs of each dimension that one collective spans, per phase kind"));

  auto* form = new QFormLayout;
  form->addRow(tr("Workload"), workloadSelector_);
  form->addRow(tr("Training loop"), loop_);
  form->addRow(tr("Chunks"), chunks_);
  form->addRow(tr("Endpoint delay"), endpointDelay_);
  auto* tabs = new QTabWidget;
  tabs->setObjectName(QStringLiteral("workloadTabs"));
  tabs->addTab(layerTable_, tr("Layers"));
  tabs->addTab(communicatorTable_, tr("Communicator"));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(description_);
  layout->addWidget(presetEditor_);
  layout->addWidget(tabs, 1);
}

void WorkloadPanel::connectEdits() {
  connect(workloadSelector_, &QComboBox::activated, this, &WorkloadPanel::selectWorkload);
  connect(loop_, &QComboBox::activated, this, [this](int index) {
    const auto loop = static_cast<TrainingLoop>(loop_->itemData(index).toInt());
    document_->edit(tr("Change the training loop"),
                    [&](Project& p) { p.model.trainingLoop = loop; });
  });
  connect(chunks_, &QComboBox::activated, this,
          [this](int index) { applyChunks(chunks_->itemData(index).toString()); });
  connect(chunks_->lineEdit(), &QLineEdit::editingFinished, this, [this] {
    // A typed count; the items' own texts ("ideal (LIBRA)") are not typed.
    const int item = chunks_->findText(chunks_->currentText());
    applyChunks(item >= 0 ? chunks_->itemData(item).toString() : chunks_->currentText());
  });
  connect(endpointDelay_, &QDoubleSpinBox::valueChanged, this, [this](double ns) {
    if (ns == document_->project().network.endpointDelayNs) return;
    document_->edit(tr("Set the endpoint delay to %1 ns").arg(ns),
                    [&](Project& p) { p.network.endpointDelayNs = ns; });
  });
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Workloads | Document::Model | Document::Network)) sync();
  });
  connect(document_, &Document::documentReset, this, [this] { selectWorkload(0); });
}

void WorkloadPanel::applyChunks(const QString& text) {
  const auto parsed = parseChunkSetting(toStd(text.trimmed()));
  if (!parsed) {
    Q_EMIT document_->inputRefused(
        tr("Chunks not changed: '%1' is not a chunk count; use ideal, auto or a whole number 1 "
           "to %2")
            .arg(text.trimmed())
            .arg(kMaxChunks));
    sync();  // back to the project's value
    return;
  }
  if (parsed == document_->project().model.collectives.chunks) return;
  document_->edit(tr("Set chunks to %1").arg(toQString(parsed->toString())),
                  [&](Project& p) { p.model.collectives.chunks = *parsed; });
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
      names << (w.name.empty() ? tr("(unnamed)") : shownName(w.name)) +
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
  {
    const QSignalBlocker block(chunks_);
    const QString value = toQString(p.model.collectives.chunks.toString());
    const int item = chunks_->findData(value);
    if (item >= 0) {
      chunks_->setCurrentIndex(item);
    } else {
      chunks_->setCurrentIndex(-1);
      chunks_->setEditText(value);
    }
  }
  {
    const QSignalBlocker block(endpointDelay_);
    endpointDelay_->setValue(p.network.endpointDelayNs);
    endpointDelay_->setEnabled(!p.model.collectives.chunks.isIdeal());
  }
  if (workload_ < static_cast<int>(p.workloads.size())) {
    const Workload& w = p.workloads[workload_];
    QString text = tr("%n layer(s)", nullptr, static_cast<int>(w.layers.size()));
    if (w.origin) {
      text = (w.origin->model.empty() ? tr("Generated from preset <b>%1</b>%2 · %3")
                                      : tr("Generated from its own model <b>%1</b>%2 · %3"))
                 .arg(shownName(w.origin->preset).toHtmlEscaped(),
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
