#include "autosave.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QLockFile>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <libra/project_io.hpp>
#include <optional>
#include <string_view>

#include "document.hpp"
#include "format.hpp"

namespace libra::studio {

namespace {

const QString kProjectSuffix = QStringLiteral(".project.json");
const QString kInfoSuffix = QStringLiteral(".info.json");
const QString kLockSuffix = QStringLiteral(".lock");
const QString kFormat = QStringLiteral("libra-studio-recovery");

struct WriteOutcome {
  QString error;  // empty: written
  double ms = 0;
};

// The worker's job: the info first, then the project (both atomic), so a
// project file never names an older origin than its own.
WriteOutcome writeRecovery(const Project& project, const QByteArray& info,
                           const QString& projectPath, const QString& infoPath) {
  QElapsedTimer clock;
  clock.start();
  WriteOutcome outcome;
  try {
    writeFileAtomically(infoPath.toStdString(), std::string_view(info.constData(), info.size()));
    saveProject(project, projectPath.toStdString());
  } catch (const std::exception& e) {
    outcome.error = toQString(e.what());
  }
  outcome.ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  return outcome;
}

// Removes a session's files, the writer's temporaries (".<name>.tmp-...") included.
void removeSession(const QString& directory, const QString& base) {
  QDir dir(directory);
  for (const QString& suffix : {kProjectSuffix, kInfoSuffix}) dir.remove(base + suffix);
  const QStringList temporaries = dir.entryList({QLatin1Char('.') + base + QLatin1Char('*')},
                                                QDir::Files | QDir::Hidden | QDir::System);
  for (const QString& name : temporaries) dir.remove(name);
}

QString baseOf(const QString& fileName, const QString& suffix) {
  return fileName.left(fileName.size() - suffix.size());
}

// Takes the lock of a session whose process is gone: false while it runs.
bool claim(QLockFile& lock) {
  lock.setStaleLockTime(0);  // age says nothing: an instance may run for days
  if (lock.tryLock(0)) return true;
  if (lock.error() != QLockFile::LockFailedError) return false;
  // QLockFile takes a lock whose PID is this very process for a live one; here
  // that PID was reused by this process, so its writer is gone. The lock file
  // still goes only when no one holds its flock (another instance in this process).
  qint64 pid = 0;
  if (!lock.getLockInfo(&pid, nullptr, nullptr) || pid != QCoreApplication::applicationPid())
    return false;
  return lock.removeStaleLockFile() && lock.tryLock(0);
}

}  // namespace

QString AutosaveController::defaultDirectory() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("recovery"));
}

AutosaveController::AutosaveController(Document* document, const QString& directory,
                                       QObject* parent)
    : QObject(parent),
      document_(document),
      directory_(QDir(directory).absolutePath()),
      base_(QStringLiteral("session-%1-%2")
                .arg(QCoreApplication::applicationPid())
                .arg(QDateTime::currentMSecsSinceEpoch())) {
  worker_.setMaxThreadCount(1);
  timer_.setSingleShot(true);
  connect(&timer_, &QTimer::timeout, this, &AutosaveController::writeSnapshot);

  QString error;
  if (!QDir().mkpath(directory_)) {
    error = tr("cannot create the recovery folder '%1'").arg(directory_);
  } else {
    lock_ = std::make_unique<QLockFile>(QDir(directory_).filePath(base_ + kLockSuffix));
    lock_->setStaleLockTime(0);
    if (!lock_->tryLock(0)) {
      error = tr("cannot create '%1' (%2)")
                  .arg(lock_->fileName(), lock_->error() == QLockFile::PermissionError
                                              ? tr("permission denied")
                                              : tr("the folder cannot be written"));
      lock_.reset();
    }
  }
  if (!error.isEmpty()) {
    lastError_ = tr("autosave is off: %1").arg(error);
    QTimer::singleShot(0, this, [this] { Q_EMIT failed(lastError_); });
    return;
  }

  connect(document_, &Document::projectChanged, this, &AutosaveController::schedule);
  connect(document_, &Document::filePathChanged, this, &AutosaveController::schedule);
  connect(document_, &Document::modifiedChanged, this, [this](bool modified) {
    if (modified) {
      schedule();
    } else {
      queueRemoval();
    }
  });
  schedule();  // a document modified before autosave started
}

AutosaveController::~AutosaveController() {
  timer_.stop();
  worker_.waitForDone();
  if (lock_) removeSession(directory_, base_);
}

QString AutosaveController::recoveryPath() const {
  return QDir(directory_).filePath(base_ + kProjectSuffix);
}

bool AutosaveController::isPending() const {
  return timer_.isActive() || inFlight_ > 0;
}

void AutosaveController::schedule() {
  if (!lock_ || !document_->isModified()) return;
  if (!unsavedSince_.isValid()) unsavedSince_.start();
  const qint64 left = maxDelayMs_ - unsavedSince_.elapsed();
  timer_.start(static_cast<int>(std::clamp<qint64>(std::min<qint64>(delayMs_, left), 0, delayMs_)));
}

QByteArray AutosaveController::infoJson() const {
  QJsonObject info;
  info[QStringLiteral("format")] = kFormat;
  info[QStringLiteral("original_path")] = document_->filePath();
  info[QStringLiteral("project_name")] = toQString(document_->project().name);
  info[QStringLiteral("saved_at")] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
  return QJsonDocument(info).toJson();
}

void AutosaveController::finishWrite(const QString& error, double ms) {
  longestWriteMs_ = std::max(longestWriteMs_, ms);
  if (error.isEmpty()) {
    ++writes_;
    lastError_.clear();
    reportedError_.clear();
    Q_EMIT written(recoveryPath());
    return;
  }
  lastError_ = error;
  if (error != reportedError_) {
    reportedError_ = error;
    Q_EMIT failed(error);
  }
}

void AutosaveController::writeSnapshot() {
  unsavedSince_.invalidate();
  if (!lock_ || !document_->isModified()) return;
  QElapsedTimer clock;
  clock.start();
  // A copy shares the workloads with the document: cheap, and immutable for the worker.
  auto project = std::make_shared<const Project>(document_->project());
  ++inFlight_;
  QtConcurrent::run(&worker_, [project, info = infoJson(), path = recoveryPath(),
                               infoPath = QDir(directory_).filePath(base_ + kInfoSuffix)] {
    return writeRecovery(*project, info, path, infoPath);
  }).then(this, [this](const WriteOutcome& outcome) {
    --inFlight_;
    finishWrite(outcome.error, outcome.ms);
  });
  const double ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  longestGuiMs_ = std::max(longestGuiMs_, ms);
  guiTotalMs_ += ms;
  ++guiCount_;
}

void AutosaveController::queueRemoval() {
  timer_.stop();
  unsavedSince_.invalidate();
  if (!lock_) return;
  ++inFlight_;
  QtConcurrent::run(&worker_, [directory = directory_, base = base_] {
    removeSession(directory, base);
  }).then(this, [this] { --inFlight_; });
}

bool AutosaveController::saveNow(QString* error) {
  timer_.stop();
  unsavedSince_.invalidate();
  if (!lock_) {
    if (error) *error = lastError_;
    return false;
  }
  if (!document_->isModified()) return true;
  worker_.waitForDone();  // after what is queued, on this thread
  const WriteOutcome outcome = writeRecovery(document_->project(), infoJson(), recoveryPath(),
                                             QDir(directory_).filePath(base_ + kInfoSuffix));
  finishWrite(outcome.error, outcome.ms);
  if (error) *error = lastError_;
  return lastError_.isEmpty();
}

void AutosaveController::removeRecovery() {
  timer_.stop();
  unsavedSince_.invalidate();
  worker_.waitForDone();
  if (lock_) removeSession(directory_, base_);
}

std::vector<RecoveryFile> AutosaveController::orphans() const {
  std::vector<RecoveryFile> found;
  const QDir dir(directory_);
  // Newest first.
  const QFileInfoList projects =
      dir.entryInfoList({QStringLiteral("session-*") + kProjectSuffix}, QDir::Files, QDir::Time);
  for (const QFileInfo& project : projects) {
    const QString base = baseOf(project.fileName(), kProjectSuffix);
    if (base == base_) continue;
    auto lock = std::make_shared<QLockFile>(dir.filePath(base + kLockSuffix));
    if (!claim(*lock)) continue;  // its instance still runs
    RecoveryFile f;
    f.projectPath = project.absoluteFilePath();
    f.infoPath = dir.filePath(base + kInfoSuffix);
    f.savedAt = project.lastModified();
    f.lock = std::move(lock);
    QFile infoFile(f.infoPath);
    if (infoFile.open(QIODevice::ReadOnly)) {
      const QJsonObject info = QJsonDocument::fromJson(infoFile.readAll()).object();
      if (info.value(QStringLiteral("format")).toString() == kFormat) {
        f.originalPath = info.value(QStringLiteral("original_path")).toString();
        f.projectName = info.value(QStringLiteral("project_name")).toString();
      }
    }
    found.push_back(std::move(f));
  }
  // Locks of sessions that died before writing anything: nothing to offer.
  for (const QFileInfo& lockInfo :
       dir.entryInfoList({QStringLiteral("session-*") + kLockSuffix}, QDir::Files)) {
    const QString base = baseOf(lockInfo.fileName(), kLockSuffix);
    if (base == base_ || dir.exists(base + kProjectSuffix)) continue;
    QLockFile lock(lockInfo.absoluteFilePath());
    if (claim(lock)) removeSession(directory_, base);  // the lock goes with `lock`
  }
  return found;
}

Project AutosaveController::loadRecovered(const RecoveryFile& file) {
  return Document::loadFile(file.projectPath);
}

void AutosaveController::discard(const RecoveryFile& file) {
  const QFileInfo project(file.projectPath);
  removeSession(project.absolutePath(), baseOf(project.fileName(), kProjectSuffix));
  if (file.lock) file.lock->unlock();
}

bool AutosaveController::restore(const RecoveryFile& file, QString* error) {
  try {
    restoreProject(file, loadRecovered(file));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = toQString(e.what());
    return false;
  }
}

void AutosaveController::restoreProject(const RecoveryFile& file, Project project) {
  document_->reset(std::move(project), file.originalPath);
  document_->undoStack()->resetClean();  // unsaved work: modified until saved
  // The orphan goes only once this instance holds the work in its own file.
  if (saveNow()) {
    discard(file);
  } else if (file.lock) {
    file.lock->unlock();  // kept for the next start
  }
}

bool AutosaveController::offerRecovery(QWidget* parent) {
  std::vector<RecoveryFile> files = orphans();
  bool restored = false;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const RecoveryFile& file = files[i];
    if (restored) {
      file.lock->unlock();  // one project at a time: the rest waits for the next start
      continue;
    }
    QString readError;
    std::optional<Project> project;
    try {
      project = loadRecovered(file);
    } catch (const std::exception& e) {
      readError = toQString(e.what());
    }
    QMessageBox box(parent);
    box.setObjectName(QStringLiteral("recoveryDialog"));
    box.setIcon(QMessageBox::Warning);
    box.setWindowTitle(tr("Recover Unsaved Changes"));
    const QString name =
        file.projectName.isEmpty() ? QFileInfo(file.originalPath).fileName() : file.projectName;
    box.setText((files.size() > 1 ? tr("(%1 of %2) ").arg(i + 1).arg(files.size()) : QString()) +
                tr("Libra Studio did not close normally. Unsaved changes to “%1” were autosaved.")
                    .arg(name.isEmpty() ? tr("Untitled") : name));
    QString details =
        tr("Original file: %1\nAutosaved: %2\nRecovery file: %3")
            .arg(file.originalPath.isEmpty() ? tr("none (never saved)")
                                             : QDir::toNativeSeparators(file.originalPath),
                 QLocale().toString(file.savedAt, QLocale::ShortFormat),
                 QDir::toNativeSeparators(file.projectPath));
    if (!readError.isEmpty()) details += tr("\n\nIt cannot be restored: %1").arg(readError);
    box.setInformativeText(details);
    QPushButton* restoreButton = nullptr;
    if (readError.isEmpty()) {
      restoreButton = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
      restoreButton->setObjectName(QStringLiteral("restoreButton"));
    }
    QPushButton* discardButton = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    discardButton->setObjectName(QStringLiteral("discardButton"));
    QPushButton* keepButton = box.addButton(tr("Keep for Later"), QMessageBox::RejectRole);
    keepButton->setObjectName(QStringLiteral("keepButton"));
    box.setDefaultButton(restoreButton ? restoreButton : keepButton);
    box.setEscapeButton(keepButton);
    box.exec();
    if (restoreButton && box.clickedButton() == restoreButton) {
      restoreProject(file, std::move(*project));
      restored = true;
    } else if (box.clickedButton() == discardButton) {
      discard(file);
    } else {
      file.lock->unlock();
    }
  }
  return restored;
}

}  // namespace libra::studio
