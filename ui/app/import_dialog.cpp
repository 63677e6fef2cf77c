#include "import_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <libra/libra_format.hpp>

#include "format.hpp"

namespace libra::studio {

ImportDialog::ImportDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Import LIBRA Files"));
  setObjectName(QStringLiteral("importDialog"));
  network_ = fileField(QStringLiteral("importNetwork"), tr("Network (*.yml *.yaml *.json)"), true);
  workload_ = fileField(QStringLiteral("importWorkload"), tr("Workload (*.txt)"), true);
  communicator_ =
      fileField(QStringLiteral("importCommunicator"), tr("Communicator (*.yml *.yaml)"), false);
  costModel_ =
      fileField(QStringLiteral("importCostModel"), tr("Cost model (*.yml *.yaml *.json)"), false);
  communicator_->setPlaceholderText(tr("optional: derived from the workload header"));
  costModel_->setPlaceholderText(tr("optional: the reference unit prices"));
  name_ = new QLineEdit;
  name_->setObjectName(QStringLiteral("importName"));
  name_->setPlaceholderText(tr("optional: from the file names"));
  loop_ = new QComboBox;
  loop_->setObjectName(QStringLiteral("importLoop"));
  loop_->addItem(tr("No overlap (reference)"), static_cast<int>(TrainingLoop::NoOverlap));
  loop_->addItem(tr("Activation recomputation"), static_cast<int>(TrainingLoop::Recompute));
  error_ = new QLabel;
  error_->setObjectName(QStringLiteral("importError"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("QLabel { color: #b01818; }"));
  error_->hide();

  auto row = [](QLineEdit* edit, const QString& filter, QWidget* owner) {
    auto* w = new QWidget;
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(edit, 1);
    auto* browse = new QPushButton(QObject::tr("Browse…"));
    // Tab goes from field to field: on the button, a typed path went nowhere.
    browse->setFocusPolicy(Qt::ClickFocus);
    browse->setToolTip(QObject::tr("Choose the file (or type its path in the field)"));
    l->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, owner, [edit, filter, owner] {
      const QString start = edit->text().isEmpty()
                                ? QSettings().value(QStringLiteral("importDirectory")).toString()
                                : QFileInfo(edit->text()).absolutePath();
      const QString path = QFileDialog::getOpenFileName(owner, QObject::tr("Choose a File"), start,
                                                        filter + QObject::tr(";;All files (*)"));
      if (path.isEmpty()) return;
      edit->setText(path);
      QSettings().setValue(QStringLiteral("importDirectory"), QFileInfo(path).absolutePath());
    });
    return w;
  };

  auto* form = new QFormLayout;
  form->addRow(tr("&Network:"), row(network_, tr("Network (*.yml *.yaml *.json)"), this));
  form->addRow(tr("&Workload:"), row(workload_, tr("Workload (*.txt)"), this));
  form->addRow(tr("&Communicator:"), row(communicator_, tr("Communicator (*.yml *.yaml)"), this));
  form->addRow(tr("Cost &model:"), row(costModel_, tr("Cost model (*.yml *.yaml *.json)"), this));
  form->addRow(tr("Training &loop:"), loop_);
  form->addRow(tr("N&ame:"), name_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Import"));
  connect(buttons, &QDialogButtonBox::accepted, this, &ImportDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &ImportDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(error_);
  layout->addWidget(buttons);
  // A hint about what was wrong goes once any field changes.
  for (QLineEdit* edit : {network_, workload_, communicator_, costModel_, name_}) {
    connect(edit, &QLineEdit::textEdited, error_, &QLabel::hide);
  }
  connect(loop_, &QComboBox::currentIndexChanged, error_, &QLabel::hide);
  // The fields as they were last left: importing again is a small change.
  const QSettings settings;
  for (QLineEdit* edit : {network_, workload_, communicator_, costModel_, name_}) {
    edit->setText(settings.value(settingsKey(edit)).toString());
  }
  loop_->setCurrentIndex(std::max(
      0, loop_->findData(settings.value(QStringLiteral("import/loop"), loop_->currentData()))));
  resize(620, sizeHint().height());
}

QString ImportDialog::settingsKey(const QLineEdit* edit) {
  return QStringLiteral("import/") + edit->objectName();
}

void ImportDialog::done(int result) {
  QSettings settings;
  for (QLineEdit* edit : {network_, workload_, communicator_, costModel_, name_}) {
    settings.setValue(settingsKey(edit), edit->text());
  }
  settings.setValue(QStringLiteral("import/loop"), loop_->currentData());
  QDialog::done(result);
}

QLineEdit* ImportDialog::fileField(const QString& name, const QString& filter, bool required) {
  auto* edit = new QLineEdit;
  edit->setObjectName(name);
  edit->setToolTip(filter + (required ? tr(" (required)") : tr(" (optional)")));
  return edit;
}

void ImportDialog::accept() {
  if (network_->text().trimmed().isEmpty() || workload_->text().trimmed().isEmpty()) {
    error_->setText(tr("Choose a network file and a workload file."));
    error_->show();
    return;
  }
  ImportOptions options;
  options.network = toStd(network_->text().trimmed());
  options.workload = toStd(workload_->text().trimmed());
  if (!communicator_->text().trimmed().isEmpty())
    options.communicator = toStd(communicator_->text().trimmed());
  if (!costModel_->text().trimmed().isEmpty())
    options.costModel = toStd(costModel_->text().trimmed());
  options.trainingLoop = static_cast<TrainingLoop>(loop_->currentData().toInt());
  if (!name_->text().trimmed().isEmpty()) options.name = toStd(name_->text().trimmed());
  try {
    std::vector<std::string> notes;
    project_ = importLibra(options, &notes);
    notes_.clear();
    for (const auto& n : notes) notes_ << toQString(n);
  } catch (const std::exception& e) {
    error_->setText(toQString(e.what()));
    error_->show();
    return;
  }
  QDialog::accept();
}

}  // namespace libra::studio
