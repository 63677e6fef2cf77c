// No lost work: an autosave of the open project to a recovery file a few seconds
// after the last change, and the offer to restore it after a crash.
//
// Each running instance owns three files in the recovery folder (by default
// QStandardPaths::AppDataLocation + "/recovery", e.g.
// ~/.local/share/LibraStudio/libra-studio/recovery; XDG_DATA_HOME moves it):
//   session-<pid>-<ms>.lock          a QLockFile held while the instance runs;
//   session-<pid>-<ms>.project.json  the project, a regular project file written
//                                    by the engine's atomic writer (libra and
//                                    libra-studio open it as any project);
//   session-<pid>-<ms>.info.json     where it came from: the original path (empty
//                                    for a project never saved) and its name.
// Two instances never share a file. The project is written only while the
// document is modified, kDelayMs after the last change (at most kMaxDelayMs
// after the first unsaved one while changes keep coming), on a worker thread:
// the bundled example is 0.5 MB of JSON, too much to serialize and fsync on the
// GUI thread. The files go when the document becomes unmodified (saved, undone
// to the saved state, discarded by New or Open) and on a normal exit.
//
// A recovery file whose lock is stale (its process is gone: QLockFile checks the
// PID, the program's name and the boot) is an orphan. At start the window
// offers each orphan: Restore (the project comes back modified, under its
// original path, so Save writes there), Discard (its files are removed) or Keep
// for Later (offered again at the next start). An orphan is removed only after
// it was offered and restored or discarded.
#pragma once

#include <QDateTime>
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <libra/project.hpp>
#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QLockFile;
class QWidget;
QT_END_NAMESPACE

namespace libra::studio {

class Document;

// A recovery file of an instance that no longer runs, claimed (its lock held) by
// this instance while it is offered.
struct RecoveryFile {
  QString projectPath;   // session-....project.json
  QString infoPath;      // session-....info.json
  QString originalPath;  // where the project was saved before; empty when never
  QString projectName;
  QDateTime savedAt;  // when the recovery file was written
  std::shared_ptr<QLockFile> lock;
};

class AutosaveController : public QObject {
  Q_OBJECT

 public:
  static constexpr int kDelayMs = 3000;
  static constexpr int kMaxDelayMs = 15000;

  // The per-user default: QStandardPaths::AppDataLocation + "/recovery".
  static QString defaultDirectory();

  // Takes this instance's lock in `directory` (created when missing). When that
  // fails, autosave is off and failed() says why (on the next turn of the loop).
  AutosaveController(Document* document, const QString& directory, QObject* parent = nullptr);
  // A normal exit: waits for a write in progress and removes this instance's files.
  ~AutosaveController() override;

  QString directory() const { return directory_; }
  // This instance's recovery file (it exists only while there is unsaved work).
  QString recoveryPath() const;
  bool isActive() const { return lock_ != nullptr; }
  // A write is scheduled (the timer runs) or in progress.
  bool isPending() const;
  int writesCompleted() const { return writes_; }
  // The time scheduled writes took on the GUI thread (copying the project,
  // queueing the job), the mean and the longest, and the longest on the worker
  // (serializing and writing, fsync included), in ms.
  double meanGuiThreadMs() const { return guiCount_ > 0 ? guiTotalMs_ / guiCount_ : 0; }
  double longestGuiThreadMs() const { return longestGuiMs_; }
  double longestWriteMs() const { return longestWriteMs_; }
  // The last write's error, empty after a write that succeeded.
  QString lastError() const { return lastError_; }
  int delayMs() const { return delayMs_; }
  void setDelayMs(int ms) { delayMs_ = ms; }
  int maxDelayMs() const { return maxDelayMs_; }
  void setMaxDelayMs(int ms) { maxDelayMs_ = ms; }

  // Writes now, on the calling thread after the writes already queued; false
  // with the reason in `error` when it failed. Nothing is written for an
  // unmodified document.
  bool saveNow(QString* error = nullptr);
  // Removes this instance's files now (after a write in progress).
  void removeRecovery();

  // The orphans in the folder, newest first, each claimed (locked) by this
  // instance; orphans a running instance claimed are left out.
  // Locks left by sessions that died before writing anything are removed.
  std::vector<RecoveryFile> orphans() const;
  // Loads an orphan's project. Throws (InputError naming the file) when it cannot.
  static Project loadRecovered(const RecoveryFile& file);
  // Replaces the document with the orphan's project, modified, under its
  // original path; writes it as this instance's recovery file, then removes the
  // orphan. False with the reason in `error` when the orphan cannot be read
  // (it is kept then).
  bool restore(const RecoveryFile& file, QString* error = nullptr);
  // Removes an orphan's files.
  static void discard(const RecoveryFile& file);

  // Offers every orphan in a message box (object name "recoveryDialog", buttons
  // "restoreButton", "discardButton", "keepButton") until one is restored; the
  // rest stay for the next start. Returns whether a project was restored.
  bool offerRecovery(QWidget* parent);

 Q_SIGNALS:
  // A write failed (once per distinct reason, until a write succeeds again).
  void failed(const QString& message);
  void written(const QString& path);

 private:
  void schedule();
  void writeSnapshot();
  void finishWrite(const QString& error, double ms);
  void queueRemoval();
  QByteArray infoJson() const;
  void restoreProject(const RecoveryFile& file, Project project);

  Document* document_;
  QString directory_;
  QString base_;  // session-<pid>-<ms>
  std::unique_ptr<QLockFile> lock_;
  QThreadPool worker_;  // one thread: writes and removals run in order
  QTimer timer_;
  QElapsedTimer unsavedSince_;  // the first change not written yet
  int delayMs_ = kDelayMs;
  int maxDelayMs_ = kMaxDelayMs;
  int inFlight_ = 0;
  int writes_ = 0;
  double longestGuiMs_ = 0;
  double guiTotalMs_ = 0;
  int guiCount_ = 0;
  double longestWriteMs_ = 0;
  QString lastError_;
  QString reportedError_;
};

}  // namespace libra::studio
