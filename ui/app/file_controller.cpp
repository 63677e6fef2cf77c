#include "file_controller.hpp"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QWidget>
#include <exception>
#include <libra/file_names.hpp>

#include "document.hpp"
#include "examples.hpp"
#include "format.hpp"
#include "import_dialog.hpp"

namespace libra::studio {

namespace {

const QString kRecentKey = QStringLiteral("recentFiles");
const QString kLastDirKey = QStringLiteral("lastDirectory");
const QString kProjectFilter = QObject::tr("Libra projects (*.json);;All files (*)");

QString lastDirectory() {
  return QSettings().value(kLastDirKey, QDir::homePath()).toString();
}

void rememberDirectory(const QString& path) {
  QSettings().setValue(kLastDirKey, QFileInfo(path).absolutePath());
}

}  // namespace

FileController::FileController(Document* document, QWidget* window)
    : QObject(window), document_(document), window_(window) {
  new_ = new QAction(tr("&New"), this);
  new_->setShortcut(QKeySequence::New);
  new_->setToolTip(tr("Start a new project from the default example"));
  open_ = new QAction(tr("&Open…"), this);
  open_->setShortcut(QKeySequence::Open);
  save_ = new QAction(tr("&Save"), this);
  save_->setShortcut(QKeySequence::Save);
  saveAs_ = new QAction(tr("Save &As…"), this);
  saveAs_->setShortcut(QKeySequence::SaveAs);
  // The generic Unix platform theme (a desktop without Qt's KDE or GNOME theme,
  // the offscreen platform) binds no key to Save As: Ctrl+Shift+S, as those do.
  if (saveAs_->shortcut().isEmpty()) saveAs_->setShortcut(QKeySequence(tr("Ctrl+Shift+S")));
  import_ = new QAction(tr("&Import LIBRA Files…"), this);
  import_->setShortcut(QKeySequence(tr("Ctrl+I")));
  import_->setToolTip(
      tr("Build a project from the LIBRA reference inputs (network, workload, "
         "communicator, cost model)"));
  rename_ = new QAction(tr("Re&name Project…"), this);
  rename_->setObjectName(QStringLiteral("renameAction"));
  rename_->setToolTip(
      tr("Name the project; an empty name goes back to one that follows the network and "
         "workload"));
  recent_ = new QMenu(tr("Open &Recent"), window_);
  recent_->setObjectName(QStringLiteral("recentMenu"));
  examples_ = new QMenu(tr("Open &Example"), window_);
  for (const ExampleInfo& e : bundledExamples()) {
    QAction* a = examples_->addAction(e.title);
    connect(a, &QAction::triggered, this, [this, id = e.id] {
      if (!maybeSave()) return;
      QString message;
      if (!openExample(id, &message)) error(tr("Cannot open the example"), message);
    });
  }

  connect(new_, &QAction::triggered, this, &FileController::newDocument);
  connect(open_, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const QString path =
        QFileDialog::getOpenFileName(window_, tr("Open Project"), lastDirectory(), kProjectFilter);
    if (!path.isEmpty()) open(path);
  });
  connect(save_, &QAction::triggered, this, &FileController::save);
  connect(saveAs_, &QAction::triggered, this, &FileController::saveAs);
  connect(import_, &QAction::triggered, this, &FileController::importLibraFiles);
  connect(rename_, &QAction::triggered, this, [this] {
    bool ok = false;
    const QString name = QInputDialog::getText(
        window_, tr("Rename Project"), tr("Project name (empty: follow the network and workload):"),
        QLineEdit::Normal, toQString(document_->project().name), &ok);
    if (ok) renameProject(name);
  });
  connect(recent_, &QMenu::aboutToShow, this, &FileController::rebuildRecentMenu);
  connect(document_, &Document::filePathChanged, this, &FileController::updateTitle);
  connect(document_, &Document::modifiedChanged, this, &FileController::updateTitle);
  connect(document_, &Document::documentReset, this, &FileController::updateTitle);
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & Document::Name) updateTitle();  // an unsaved document shows its name
  });
  rebuildRecentMenu();
  updateTitle();
}

void FileController::updateTitle() {
  // "[*]" is where Qt puts the modified mark.
  window_->setWindowTitle(document_->displayName() + QStringLiteral("[*] — Libra Studio"));
  window_->setWindowModified(document_->isModified());
  window_->setWindowFilePath(document_->filePath());
}

QStringList FileController::recentFiles() {
  return QSettings().value(kRecentKey).toStringList();
}

void FileController::addRecentFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentKey, files);
}

void FileController::rebuildRecentMenu() {
  recent_->clear();
  const QStringList files = recentFiles();
  for (int i = 0; i < files.size(); ++i) {
    QAction* a =
        recent_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName()));
    a->setToolTip(files[i]);
    a->setStatusTip(files[i]);
    connect(a, &QAction::triggered, this, [this, path = files[i]] {
      if (maybeSave()) open(path);
    });
  }
  if (files.isEmpty()) {
    recent_->addAction(tr("(none)"))->setEnabled(false);
  } else {
    recent_->addSeparator();
    connect(recent_->addAction(tr("Clear Menu")), &QAction::triggered, this,
            [] { QSettings().remove(kRecentKey); });
  }
}

bool FileController::openFile(const QString& path, QString* message) {
  try {
    Project project = Document::loadFile(path);
    document_->reset(std::move(project), QFileInfo(path).absoluteFilePath());
    addRecentFile(path);
    return true;
  } catch (const std::exception& e) {
    if (message) *message = toQString(e.what());
    return false;
  }
}

bool FileController::saveFile(const QString& path, QString* message) {
  try {
    document_->saveTo(QFileInfo(path).absoluteFilePath());
    addRecentFile(path);
    return true;
  } catch (const std::exception& e) {
    if (message) *message = toQString(e.what());
    return false;
  }
}

bool FileController::openExample(const QString& id, QString* message) {
  try {
    document_->reset(loadExample(id), QString());
    return true;
  } catch (const std::exception& e) {
    if (message) *message = toQString(e.what());
    return false;
  }
}

bool FileController::open(const QString& path) {
  QString message;
  if (openFile(path, &message)) {
    rememberDirectory(path);
    return true;
  }
  error(tr("Cannot open the project"), message);
  return false;
}

bool FileController::save() {
  if (document_->filePath().isEmpty()) return saveAs();
  QString message;
  if (saveFile(document_->filePath(), &message)) return true;
  error(tr("Cannot save the project"), message);
  return false;
}

bool FileController::saveAs() {
  QString suggestion = document_->filePath();
  if (suggestion.isEmpty()) {
    const QString name = toQString(fileStem(document_->project().name, '-'));
    suggestion = QDir(lastDirectory())
                     .filePath((name.isEmpty() ? tr("project") : name) + QStringLiteral(".json"));
  }
  QString path =
      QFileDialog::getSaveFileName(window_, tr("Save Project As"), suggestion, kProjectFilter);
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
  QString message;
  if (saveFile(path, &message)) {
    rememberDirectory(path);
    return true;
  }
  error(tr("Cannot save the project"), message);
  return false;
}

bool FileController::renameProject(const QString& name) {
  const std::string chosen = name.trimmed().toStdString();
  return document_->edit(tr("Rename project"),
                         [&](Project& p) { p.name = chosen.empty() ? describedName(p) : chosen; });
}

void FileController::newDocument() {
  if (!maybeSave()) return;
  try {
    Project project = loadExample(defaultExampleId());
    project.name = describedName(project);  // follows the edits until it is renamed
    document_->reset(std::move(project), QString());
  } catch (const std::exception& e) {
    error(tr("Cannot create a project"), toQString(e.what()));
  }
}

bool FileController::maybeSave() {
  if (!document_->isModified() || !prompts_) return true;
  const auto answer = QMessageBox::warning(
      window_, tr("Unsaved Changes"),
      tr("“%1” has unsaved changes. Save them first?").arg(document_->displayName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void FileController::importLibraFiles() {
  if (!maybeSave()) return;
  ImportDialog dialog(window_);
  if (dialog.exec() != QDialog::Accepted) return;
  document_->reset(dialog.project(), QString());
  // An import is new content: modified until the user saves it somewhere.
  document_->undoStack()->resetClean();
  const QStringList notes = dialog.notes();
  if (!notes.isEmpty() && prompts_) {
    QMessageBox::information(window_, tr("Imported"), notes.join(QStringLiteral("\n\n")));
  }
}

void FileController::error(const QString& title, const QString& text) {
  if (prompts_) {
    QMessageBox::warning(window_, title, text);
  } else {
    qWarning("%s: %s", qPrintable(title), qPrintable(text));
  }
}

}  // namespace libra::studio
