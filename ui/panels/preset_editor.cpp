#include "preset_editor.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <exception>
#include <libra/model_file.hpp>
#include <libra/training.hpp>
#include <limits>

#include "document.hpp"
#include "format.hpp"
#include "model_dialog.hpp"

namespace libra::studio {

namespace {

// The model combo's entry for a model stored with the workload (read from a
// file or edited), not a preset of that id.
const QString kOwnModel = QStringLiteral("@model");

QSpinBox* makeSpin(const QString& name, const QString& tip, int min, int max) {
  auto* s = new QSpinBox;
  s->setObjectName(name);
  s->setRange(min, max);
  s->setToolTip(tip);
  s->setKeyboardTracking(false);
  return s;
}

QCheckBox* makeCheck(const QString& text, const QString& name, const QString& tip) {
  auto* c = new QCheckBox(text);
  c->setObjectName(name);
  c->setToolTip(tip);
  return c;
}

}  // namespace

PresetEditor::PresetEditor(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  setObjectName(QStringLiteral("presetEditor"));
  createInputs();
  layOut();
  connectInputs();
  sync();
}

// The model, device, parallelism and generator inputs, each named for the tests.
void PresetEditor::createInputs() {
  convert_ = new QPushButton(tr("Replace with a Preset Workload"));
  convert_->setObjectName(QStringLiteral("convertToPreset"));
  convert_->setToolTip(
      tr("Generate this workload from a model preset instead, so that its model, device and "
         "parallelization can be changed here"));

  preset_ = new QComboBox;
  preset_->setObjectName(QStringLiteral("presetCombo"));
  for (const Preset& p : presets()) {
    preset_->addItem(toQString(p.name), toQString(p.id));
    preset_->setItemData(preset_->count() - 1, toQString(p.source), Qt::ToolTipRole);
  }
  device_ = new QComboBox;
  device_->setObjectName(QStringLiteral("deviceCombo"));
  for (const Device& d : devices()) {
    device_->addItem(toQString(d.name), toQString(d.id));
    device_->setItemData(
        device_->count() - 1,
        tr("%1 TFLOP/s peak (%2), matmuls at %3%, a transformer "
           "step at %4% of peak")
            .arg(d.peakFlops / 1e12, 0, 'f', 0)
            .arg(toQString(d.precision))
            .arg(d.efficiency * 100, 0, 'f', 1)
            .arg(d.achievedFlops(ModelFamily::Transformer) / d.peakFlops * 100, 0, 'f', 0),
        Qt::ToolTipRole);
  }
  createParallelismInputs();
  createOptionInputs();
  error_ = new QLabel;
  error_->setObjectName(QStringLiteral("presetError"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("QLabel { color: #b01818; }"));
  error_->hide();
  details_ = new QLabel;
  details_->setObjectName(QStringLiteral("presetDetails"));
  details_->setWordWrap(true);

  openModel_ = new QPushButton(tr("Open Model File…"));
  openModel_->setObjectName(QStringLiteral("openModelFile"));
  openModel_->setToolTip(
      tr("A Hugging Face config.json (llama, mistral, mixtral, qwen2, qwen2_moe, deepseek_v3, "
         "nemotron, gpt2, gpt_neox) or libra's model file"));
  editModel_ = new QPushButton(tr("Hyperparameters…"));
  editModel_->setObjectName(QStringLiteral("editHyperparameters"));
  editModel_->setToolTip(tr("Edit the model's layers, widths, heads, experts and batch"));

  editor_ = new QWidget;
}

void PresetEditor::createParallelismInputs() {
  tp_ =
      makeSpin(QStringLiteral("tpSpin"),
               tr("Tensor-parallel degree (mapped from the innermost dimension out)"), 1, 1 << 16);
  cp_ = makeSpin(QStringLiteral("cpSpin"),
                 tr("Context-parallel degree: each sequence split over this many NPUs, which "
                    "exchange keys and values in every attention layer"),
                 1, 1 << 16);
  ep_ = makeSpin(QStringLiteral("epSpin"), tr("Expert-parallel degree (mixture-of-experts models)"),
                 1, 1 << 16);
  pp_ = makeSpin(QStringLiteral("ppSpin"), tr("Pipeline-parallel stages"), 1, 1 << 16);
  dp_ = new QLabel;
  dp_->setObjectName(QStringLiteral("dpLabel"));
  dp_->setToolTip(
      tr("Data-parallel degree: the NPUs left, N / (TP × CP × EP × PP), mapped from the "
         "outermost dimension in"));
  microBatch_ =
      makeSpin(QStringLiteral("microBatchSpin"),
               tr("Samples per micro-batch of one data-parallel replica (0: derived from the "
                  "global batch)"),
               0, 1 << 16);
  microBatch_->setSpecialValueText(tr("preset"));
  sequence_ = makeSpin(QStringLiteral("sequenceSpin"), tr("Tokens per sample (0: the preset's)"), 0,
                       1 << 22);
  sequence_->setSpecialValueText(tr("preset"));
}

void PresetEditor::createOptionInputs() {
  sequenceParallel_ = makeCheck(tr("Sequence parallel"), QStringLiteral("sequenceParallelCheck"),
                                tr("Tensor-parallel activations as ReduceScatter + AllGather"));
  zero3_ = makeCheck(tr("ZeRO-3"), QStringLiteral("zero3Check"),
                     tr("Sharded parameters: AllGather of weights, ReduceScatter of gradients"));
  recompute_ = makeCheck(
      tr("Recompute"), QStringLiteral("recomputeCheck"),
      tr("Full activation recomputation: the forward pass runs again in the backward pass"));
  fp8_ = makeCheck(
      tr("FP8"), QStringLiteral("fp8Check"),
      tr("FP8 weight GEMMs as Transformer Engine runs them: the blocks' linear layers at the "
         "device's FP8 rate; attention, router, output layer and communication stay BF16"));
  utilization_ = new QDoubleSpinBox;
  utilization_->setObjectName(QStringLiteral("utilizationSpin"));
  utilization_->setRange(0, 1);
  utilization_->setSingleStep(0.01);
  utilization_->setDecimals(2);
  utilization_->setKeyboardTracking(false);
  utilization_->setSpecialValueText(tr("calibrated"));
  utilization_->setToolTip(
      tr("Share of the device's matmul rate a training step sustains with your software "
         "stack; \"calibrated\" uses the value fitted on Megatron-LM / NeMo runs (0.77 for "
         "transformers)"));
  layout_ = new QComboBox;
  layout_->setObjectName(QStringLiteral("layoutCombo"));
  layout_->addItem(tr("Megatron-LM"), static_cast<int>(WorkloadLayout::Megatron));
  layout_->addItem(tr("LIBRA reference files"), static_cast<int>(WorkloadLayout::Libra));
  layout_->setToolTip(tr("Where the collectives sit in the layers (see docs/workloads.md)"));
}

void PresetEditor::layOut() {
  auto* form = new QFormLayout(editor_);
  form->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("Model"), preset_);
  auto* modelButtons = new QHBoxLayout;
  modelButtons->addWidget(openModel_);
  modelButtons->addWidget(editModel_);
  modelButtons->addStretch(1);
  form->addRow(QString(), modelButtons);
  form->addRow(tr("Device"), device_);
  auto* degrees = new QHBoxLayout;
  degrees->addWidget(new QLabel(tr("TP")));
  degrees->addWidget(tp_);
  degrees->addWidget(new QLabel(tr("CP")));
  degrees->addWidget(cp_);
  degrees->addWidget(new QLabel(tr("EP")));
  degrees->addWidget(ep_);
  degrees->addWidget(new QLabel(tr("PP")));
  degrees->addWidget(pp_);
  degrees->addWidget(dp_, 1);
  form->addRow(tr("Parallelism"), degrees);
  auto* batch = new QHBoxLayout;
  batch->addWidget(microBatch_);
  batch->addWidget(new QLabel(tr("× tokens")));
  batch->addWidget(sequence_);
  form->addRow(tr("Micro-batch"), batch);
  auto* checks = new QHBoxLayout;
  checks->addWidget(sequenceParallel_);
  checks->addWidget(zero3_);
  checks->addWidget(recompute_);
  checks->addWidget(fp8_);
  checks->addStretch(1);
  form->addRow(QString(), checks);
  form->addRow(tr("Utilization"), utilization_);
  form->addRow(tr("Layout"), layout_);
  form->addRow(error_);
  form->addRow(details_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(convert_);
  layout->addWidget(editor_);
}

// Every input applies itself; a model that does not run as it is gets an
// execution chosen in the background, applied when it arrives.
void PresetEditor::connectInputs() {
  for (QComboBox* c : {preset_, device_, layout_})
    connect(c, &QComboBox::activated, this, &PresetEditor::apply);
  for (QSpinBox* s : {tp_, cp_, ep_, pp_, microBatch_, sequence_})
    connect(s, &QSpinBox::valueChanged, this, &PresetEditor::apply);
  for (QCheckBox* c : {sequenceParallel_, zero3_, recompute_, fp8_})
    connect(c, &QCheckBox::toggled, this, &PresetEditor::apply);
  connect(utilization_, &QDoubleSpinBox::valueChanged, this, &PresetEditor::apply);
  choosing_ = new QFutureWatcher<std::optional<Execution>>(this);
  connect(choosing_, &QFutureWatcher<std::optional<Execution>>::finished, this, [this] {
    if (!pendingModel_ || choosing_->isCanceled()) return;
    const Preset model = *pendingModel_;
    pendingModel_.reset();
    const std::optional<Execution> chosen = choosing_->result();
    if (!chosen) {
      error_->setText(tr("No execution of %1 fits %2 NPUs of this device (memory or batch); "
                         "try more NPUs, another device or a smaller global batch.")
                          .arg(shownName(model.name))
                          .arg(document_->project().network.npuCount()));
      error_->show();
      Q_EMIT modelApplied(false);
      return;
    }
    Parallelism p = parallelismOf(*chosen);
    p.dp = 0;
    const bool ok = applyModel(model, p, generatorOf(*chosen, {}), nullptr);
    if (ok) {
      Q_EMIT document_->editReported(
          tr("%1: chose %2, the execution of least compute time that fits (as libra new does)")
              .arg(shownName(model.name), toQString(chosen->label())));
    }
    Q_EMIT modelApplied(ok);
  });
  connect(convert_, &QPushButton::clicked, this, &PresetEditor::convertToPreset);
  connect(openModel_, &QPushButton::clicked, this, &PresetEditor::chooseModelFile);
  connect(editModel_, &QPushButton::clicked, this, &PresetEditor::editHyperparameters);
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Workloads | Document::Network)) sync();
  });
}

void PresetEditor::setWorkloadIndex(int index) {
  workload_ = index;
  sync();
}

QString PresetEditor::errorText() const {
  return error_->isVisible() ? error_->text() : QString();
}

void PresetEditor::sync() {
  const auto& workloads = document_->project().workloads;
  const Workload* w =
      workload_ < static_cast<int>(workloads.size()) ? &workloads[workload_] : nullptr;
  const auto choice = w ? presetChoiceOf(*w) : std::nullopt;
  convert_->setVisible(w && !choice);
  editor_->setVisible(choice.has_value());
  if (!choice) return;
  const QSignalBlocker b1(preset_), b2(device_), b3(tp_), b4(ep_), b5(pp_), b6(microBatch_),
      b7(sequence_), b8(sequenceParallel_), b9(zero3_), b10(recompute_), b11(layout_), b12(fp8_),
      b13(utilization_), b14(cp_);
  // A model of its own: one entry after the presets, named after it.
  const int own = preset_->findData(kOwnModel);
  if (choice->model.empty()) {
    if (own >= 0) preset_->removeItem(own);
    preset_->setCurrentIndex(preset_->findData(toQString(choice->preset)));
  } else {
    QString name = toQString(choice->preset);
    try {
      name = shownName(modelOf(*choice).name);
    } catch (const std::exception&) {
      // Unreadable: its id. Regenerating it says why.
    }
    const QString label = tr("%1 (own model)").arg(name);
    if (own < 0) {
      preset_->addItem(label, kOwnModel);
    } else {
      preset_->setItemText(own, label);
    }
    preset_->setCurrentIndex(preset_->findData(kOwnModel));
  }
  editModel_->setEnabled(false);
  if (const auto model = currentModel())
    editModel_->setEnabled(std::holds_alternative<TransformerConfig>(model->model));
  device_->setCurrentIndex(device_->findData(toQString(choice->device)));
  tp_->setValue(choice->parallelism.tp);
  cp_->setValue(choice->parallelism.cp);
  ep_->setValue(choice->parallelism.ep);
  pp_->setValue(choice->parallelism.pp);
  dp_->setText(tr("DP %1").arg(choice->parallelism.dp));
  microBatch_->setValue(choice->generator.microBatch);
  sequence_->setValue(choice->generator.sequenceLength);
  sequenceParallel_->setChecked(choice->parallelism.sequenceParallel);
  zero3_->setChecked(choice->parallelism.zero3);
  recompute_->setChecked(choice->parallelism.recompute);
  fp8_->setChecked(choice->parallelism.precision == Precision::Fp8);
  try {
    fp8_->setEnabled(findDevice(choice->device).hasFp8() ||
                     choice->parallelism.precision == Precision::Fp8);
  } catch (const std::exception&) {
    fp8_->setEnabled(false);
  }
  utilization_->setValue(choice->generator.utilization);
  layout_->setCurrentIndex(layout_->findData(static_cast<int>(choice->generator.layout)));
  try {
    const Preset preset = modelOf(*choice);
    details_->setText(
        tr("%1 parameters · %2")
            .arg(QString::number(preset.parameterCount() / 1e9, 'f', 1) + QStringLiteral(" B"),
                 shownName(w->name)));
    details_->setToolTip(toQString(preset.source) + QStringLiteral("\n") + toQString(preset.notes));
  } catch (const std::exception&) {
    details_->clear();
  }
  error_->hide();
}

void PresetEditor::apply() {
  const auto& project = document_->project();
  if (workload_ >= static_cast<int>(project.workloads.size())) return;
  Parallelism p;
  p.tp = tp_->value();
  p.cp = cp_->value();
  p.ep = ep_->value();
  p.pp = pp_->value();
  p.dp = 0;
  p.sequenceParallel = sequenceParallel_->isChecked();
  p.zero3 = zero3_->isChecked();
  p.recompute = recompute_->isChecked();
  p.precision = fp8_->isChecked() ? Precision::Fp8 : Precision::Bf16;
  GeneratorOptions g;
  g.utilization = utilization_->value();
  g.microBatch = microBatch_->value();
  g.sequenceLength = sequence_->value();
  g.layout = static_cast<WorkloadLayout>(layout_->currentData().toInt());
  if (const auto old = presetChoiceOf(project.workloads[workload_])) {
    // What the editor has no widget for is kept: the batch, the token budget,
    // the ZeRO stage and shard group, selective recomputation, the attention kernel, the
    // expert dispatch, routing and tensor parallelism (the engine's plan derives the
    // rest again for the new degrees).
    g.globalBatch = old->generator.globalBatch;
    g.microBatches = old->generator.microBatches;
    g.trainTokens = old->generator.trainTokens;
    g.blocks = old->generator.blocks;
    p.zeroStage = p.zero3 ? 0 : old->parallelism.zeroStage;
    p.selectiveRecompute = !p.recompute && old->parallelism.selectiveRecompute;
    // Hybrid sharding shards ZeRO's states: kept while a ZeRO stage is.
    p.shardGroup = p.zero() > 0 ? old->parallelism.shardGroup : 0;
    p.attention = old->parallelism.attention;
    p.moeDispatcher = old->parallelism.moeDispatcher;
    p.moeRouting = old->parallelism.moeRouting;
    // Expert TP (Megatron-Core's MoE layout) while it still folds into the new
    // TP and EP; else Megatron's default, expert TP = TP.
    const int etp = old->parallelism.expertTp;
    if (etp > 0 && p.tp % etp == 0 && p.ep % (p.tp / etp) == 0) p.expertTp = etp;
  }
  try {
    const auto old = presetChoiceOf(project.workloads[workload_]);
    const bool own = preset_->currentData().toString() == kOwnModel;
    const Preset preset =
        own && old ? modelOf(*old) : findPreset(toStd(preset_->currentData().toString()));
    // A new model brings its own batch and sequence unless the user set them.
    if (!old || (!own && (!old->model.empty() || preset.id != old->preset))) {
      g.microBatch = 0;
      g.microBatches = 0;
      g.globalBatch = 0;
      g.trainTokens = 0;
      g.sequenceLength = 0;
      const Precision precision = p.precision;
      p = preset.defaults;
      p.dp = 0;
      // FP8 carries over to another transformer (other models have no FP8 recipe).
      if (std::holds_alternative<TransformerConfig>(preset.model)) p.precision = precision;
    }
    Workload w = generateWorkload(preset, p, findDevice(toStd(device_->currentData().toString())),
                                  project.network, g);
    w.weight = project.workloads[workload_].weight;
    const int index = workload_;
    document_->edit(tr("Change the workload to %1").arg(shownName(w.name)),
                    [&](Project& proj) { proj.workloads[index] = w; });
    error_->hide();
  } catch (const std::exception& e) {
    // Not applied: the document keeps the last workload that fits.
    error_->setText(toQString(e.what()));
    error_->show();
  }
}

void PresetEditor::convertToPreset() {
  const auto& project = document_->project();
  if (workload_ >= static_cast<int>(project.workloads.size())) return;
  const Preset& preset = findPreset("gpt3-175b");
  Parallelism p = preset.defaults;
  p.dp = 0;
  try {
    Workload w = generateWorkload(preset, p, findDevice("h100"), project.network);
    w.weight = project.workloads[workload_].weight;
    const int index = workload_;
    document_->edit(tr("Replace the workload with a preset"),
                    [&](Project& proj) { proj.workloads[index] = w; });
    error_->hide();
  } catch (const std::exception& e) {
    editor_->show();
    error_->setText(toQString(e.what()));
    error_->show();
  }
}

}  // namespace libra::studio

namespace libra::studio {

std::optional<Preset> PresetEditor::currentModel() const {
  const auto& workloads = document_->project().workloads;
  if (workload_ >= static_cast<int>(workloads.size())) return std::nullopt;
  const auto choice = presetChoiceOf(workloads[workload_]);
  if (!choice) return std::nullopt;
  try {
    return modelOf(*choice);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool PresetEditor::applyModel(const Preset& model, const Parallelism& parallelism,
                              const GeneratorOptions& generator, QString* error) {
  const auto& project = document_->project();
  if (workload_ >= static_cast<int>(project.workloads.size())) return false;
  try {
    const auto old = presetChoiceOf(project.workloads[workload_]);
    const Device& device = findDevice(old ? old->device : std::string("h100"));
    Workload w = generateWorkload(model, parallelism, device, project.network, generator);
    w.weight = project.workloads[workload_].weight;
    const int index = workload_;
    document_->edit(tr("Use the model %1").arg(shownName(model.name)),
                    [&](Project& proj) { proj.workloads[index] = w; });
    error_->hide();
    return true;
  } catch (const std::exception& e) {
    error_->setText(toQString(e.what()));
    error_->show();
    if (error) *error = error_->text();
    return false;
  }
}

bool PresetEditor::choosingExecution() const {
  // Until its result is applied: the watcher's finished() reaches the window's
  // event loop after the run itself has ended.
  return choosing_->isRunning() || pendingModel_.has_value();
}

bool PresetEditor::useModel(const Preset& model, QString* error) {
  const auto& project = document_->project();
  if (workload_ >= static_cast<int>(project.workloads.size())) return false;
  Parallelism p = model.defaults;
  p.dp = 0;
  const auto old = presetChoiceOf(project.workloads[workload_]);
  Device device;
  try {
    device = findDevice(old ? old->device : std::string("h100"));
    // The model's own default, where it runs and fits.
    const Parallelism resolved = resolveDegrees(p, project.network.npuCount());
    (void)planBatch(model, resolved, {});
    Project trial;
    trial.network = project.network;
    trial.workloads = {generateWorkload(model, p, device, project.network)};
    if (trainingFacts(trial).memory.fits()) {
      const bool ok = applyModel(model, p, {}, error);
      Q_EMIT modelApplied(ok);
      return ok;
    }
  } catch (const std::exception&) {
    // Does not run as it is: an execution is chosen.
  }
  // The execution of least compute time that fits, chosen off the window's
  // thread (a large model on thousands of NPUs takes a while).
  if (choosing_->isRunning()) choosing_->cancel();
  pendingModel_ = model;
  error_->setText(tr("Choosing an execution of %1 that fits %2 NPUs…")
                      .arg(shownName(model.name))
                      .arg(project.network.npuCount()));
  error_->show();
  const std::int64_t npus = project.network.npuCount();
  choosing_->setFuture(QtConcurrent::run([model, device, npus]() -> std::optional<Execution> {
    ExecutionSearchOptions so;
    so.choices.base = model.defaults;
    so.choices.searchPlacements = false;
    so.device = device;
    try {
      const PreparedExecutions prepared = prepareExecutions(model, npus, so);
      if (prepared.candidates.empty()) return std::nullopt;
      return prepared.candidates.front().execution;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }));
  return true;
}

bool PresetEditor::openModelFile(const QString& path, int sequenceLength, qint64 globalBatch,
                                 QString* error) {
  try {
    Preset model = readModelFile(toStd(path));
    completeModel(model, toStd(QFileInfo(path).fileName()), sequenceLength, globalBatch);
    return useModel(model, error);
  } catch (const std::exception& e) {
    error_->setText(toQString(e.what()));
    error_->show();
    if (error) *error = error_->text();
    return false;
  }
}

void PresetEditor::chooseModelFile() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Model File"), QString(),
                                                    tr("Model files (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  int sequence = 0;
  qint64 batch = 0;
  try {
    const Preset read = readModelFile(toStd(path));
    // A Hugging Face config gives no training batch: ask for it.
    bool ok = true;
    if (read.sequenceLength < 1) {
      sequence = QInputDialog::getInt(this, tr("Sequence Length"),
                                      tr("%1 gives no training sequence length (its context "
                                         "window is not the length trained at). Tokens per "
                                         "sample:")
                                          .arg(QFileInfo(path).fileName()),
                                      4096, 1, 1 << 22, 1, &ok);
      if (!ok) return;
    }
    if (read.globalBatch < 1) {
      batch = QInputDialog::getInt(this, tr("Global Batch"),
                                   tr("Sequences per iteration (the global batch):"), 1024, 1,
                                   std::numeric_limits<int>::max(), 1, &ok);
      if (!ok) return;
    }
  } catch (const std::exception&) {
    // openModelFile says why.
  }
  openModelFile(path, sequence, batch);
}

void PresetEditor::editHyperparameters() {
  const auto model = currentModel();
  if (!model || !std::holds_alternative<TransformerConfig>(model->model)) return;
  ModelDialog dialog(*model, this);
  if (dialog.exec() != QDialog::Accepted) return;
  const Preset edited = dialog.model();
  if (edited == *model) return;
  useModel(edited);
}

}  // namespace libra::studio
