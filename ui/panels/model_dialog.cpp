#include "model_dialog.hpp"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <exception>
#include <limits>

#include "format.hpp"

namespace libra::studio {

namespace {

struct Field {
  const char* key;
  const char* label;
  const char* tip;
  int min;
};

// The form's rows, in the order a model card lists them.
constexpr Field kFields[] = {
    {"layers", "Layers", "Transformer blocks", 1},
    {"hidden", "Hidden size", "Model width h", 1},
    {"ffn", "FFN size", "Inner size of a dense block's MLP", 1},
    {"heads", "Attention heads", "Query heads", 1},
    {"kv_heads", "Key/value heads", "Grouped-query attention: 0 = as many as the query heads", 0},
    {"head_dim", "Head dim", "Width of one head; 0 = hidden size / heads", 0},
    {"vocab", "Vocabulary", "Tokens of the embedding and output layers; 0 = none", 0},
    {"experts", "Routed experts", "Mixture of experts: 0 = a dense model", 0},
    {"top_k", "Experts per token", "Routed experts each token passes through", 0},
    {"expert_ffn", "Expert FFN size", "Inner size of one expert; 0 = the FFN size", 0},
    {"shared_experts", "Shared experts", "Experts every token passes through", 0},
    {"dense_layers", "Dense first layers", "The first blocks keep a dense MLP", 0},
    {"sequence_length", "Sequence length", "Tokens per sample the model is trained at", 1},
    {"global_batch", "Global batch", "Sequences per iteration", 1},
};

int valueOf(const Preset& p, const QString& key) {
  const auto& t = std::get<TransformerConfig>(p.model);
  if (key == QLatin1String("layers")) return t.layers;
  if (key == QLatin1String("hidden")) return t.hidden;
  if (key == QLatin1String("ffn")) return t.ffn;
  if (key == QLatin1String("heads")) return t.heads;
  if (key == QLatin1String("kv_heads")) return t.kvHeads;
  if (key == QLatin1String("head_dim")) return t.headDim;
  if (key == QLatin1String("vocab")) return t.vocab;
  if (key == QLatin1String("experts")) return t.experts;
  if (key == QLatin1String("top_k")) return t.topK;
  if (key == QLatin1String("expert_ffn")) return t.expertFfn;
  if (key == QLatin1String("shared_experts")) return t.sharedExperts;
  if (key == QLatin1String("dense_layers")) return t.denseLayers;
  if (key == QLatin1String("sequence_length")) return p.sequenceLength;
  return static_cast<int>(std::min<std::int64_t>(p.globalBatch, std::numeric_limits<int>::max()));
}

}  // namespace

ModelDialog::ModelDialog(const Preset& model, QWidget* parent) : QDialog(parent), base_(model) {
  setObjectName(QStringLiteral("modelDialog"));
  setWindowTitle(tr("Model Hyperparameters"));
  auto* form = new QFormLayout;
  name_ = new QLineEdit(toQString(model.name));
  name_->setObjectName(QStringLiteral("modelName"));
  form->addRow(tr("Name"), name_);
  for (const Field& f : kFields) {
    auto* spin = new QSpinBox;
    spin->setObjectName(QLatin1String(f.key));
    spin->setRange(f.min, std::numeric_limits<int>::max());
    spin->setToolTip(tr(f.tip));
    spin->setValue(valueOf(model, QLatin1String(f.key)));
    fields_ << spin;
    form->addRow(tr(f.label), spin);
    connect(spin, &QSpinBox::valueChanged, this, &ModelDialog::check);
  }
  const auto& t = std::get<TransformerConfig>(model.model);
  gated_ = new QCheckBox(tr("Gated MLP (SwiGLU: three matrices)"));
  gated_->setObjectName(QStringLiteral("gatedMlp"));
  gated_->setChecked(t.gatedMlp);
  tied_ = new QCheckBox(tr("Output layer tied to the embedding"));
  tied_->setObjectName(QStringLiteral("tiedEmbeddings"));
  tied_->setChecked(t.tiedEmbeddings);
  form->addRow(QString(), gated_);
  form->addRow(QString(), tied_);
  for (QCheckBox* c : {gated_, tied_}) connect(c, &QCheckBox::toggled, this, &ModelDialog::check);
  connect(name_, &QLineEdit::textChanged, this, &ModelDialog::check);
  summary_ = new QLabel;
  summary_->setObjectName(QStringLiteral("modelSummary"));
  summary_->setWordWrap(true);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(summary_);
  layout->addWidget(buttons);
  check();
}

QSpinBox* ModelDialog::field(const QString& key) const {
  for (QSpinBox* s : fields_)
    if (s->objectName() == key) return s;
  return nullptr;
}

Preset ModelDialog::model() const {
  Preset p = base_;
  auto& t = std::get<TransformerConfig>(p.model);
  auto v = [this](const char* key) { return field(QLatin1String(key))->value(); };
  t.layers = v("layers");
  t.hidden = v("hidden");
  t.ffn = v("ffn");
  t.heads = v("heads");
  t.kvHeads = v("kv_heads") == t.heads ? 0 : v("kv_heads");
  t.headDim = v("head_dim");
  t.vocab = v("vocab");
  t.experts = v("experts");
  t.topK = v("top_k");
  t.expertFfn = v("expert_ffn");
  t.sharedExperts = v("shared_experts");
  t.denseLayers = v("dense_layers");
  t.gatedMlp = gated_->isChecked();
  t.tiedEmbeddings = tied_->isChecked();
  p.sequenceLength = v("sequence_length");
  p.globalBatch = v("global_batch");
  const QString name = name_->text().trimmed();
  if (name != toQString(base_.name) || !(p == base_)) {
    // An edited model is a model of its own, not the preset it started from.
    p.name = toStd(name.isEmpty() ? toQString(base_.name) : name);
    if (p.id == base_.id && !(p == base_)) p.id = base_.id + "-edited";
  }
  return p;
}

QString ModelDialog::problem() const {
  try {
    model().validate();
  } catch (const std::exception& e) {
    return toQString(e.what());
  }
  return {};
}

void ModelDialog::check() {
  const QString why = problem();
  if (auto* ok = findChild<QDialogButtonBox*>())
    ok->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
  if (!why.isEmpty()) {
    summary_->setText(tr("<span style='color:#b01818'>%1</span>").arg(why.toHtmlEscaped()));
    return;
  }
  const Preset p = model();
  summary_->setText(p.family() == ModelFamily::MixtureOfExperts
                        ? tr("%1 B parameters, %2 B active per token")
                              .arg(p.parameterCount() / 1e9, 0, 'f', 2)
                              .arg(p.activeParameterCount() / 1e9, 0, 'f', 2)
                        : tr("%1 B parameters").arg(p.parameterCount() / 1e9, 0, 'f', 2));
}

}  // namespace libra::studio
