// No lost work: the autosave to a recovery file, the offer to restore it after a
// crash (the real program killed with SIGKILL), and saves that fail.
#include <signal.h>
#include <sys/resource.h>

#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <csignal>
#include <libra/project_io.hpp>
#include <memory>

#include "autosave.hpp"
#include "document.hpp"
#include "edit_driver.hpp"
#include "file_controller.hpp"
#include "format.hpp"
#include "main_window.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

namespace {

QByteArray slurp(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void clickButton(QMessageBox* box, const char* name) {
  auto* button = box->findChild<QPushButton*>(QString::fromLatin1(name));
  QVERIFY2(button, name);
  button->click();
}

// Files in `dir` (hidden ones too), sorted.
QStringList filesIn(const QString& dir) {
  return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name);
}

// A recovery file left by an instance that is gone (no lock: it was kept for
// later), as the autosave writes it.
void writeOrphan(const QString& dir, const QString& base, const Project& project,
                 const QString& originalPath) {
  saveProject(project, QDir(dir).filePath(base + QStringLiteral(".project.json")).toStdString());
  QFile info(QDir(dir).filePath(base + QStringLiteral(".info.json")));
  QVERIFY(info.open(QIODevice::WriteOnly));
  info.write(QStringLiteral("{\"format\": \"libra-studio-recovery\", \"original_path\": \"%1\", "
                            "\"project_name\": \"%2\"}")
                 .arg(originalPath, toQString(project.name))
                 .toUtf8());
}

}  // namespace

class RecoveryTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<QTemporaryDir> dir_;
  std::unique_ptr<MainWindow> window_;

  QString recoveryDir() const { return dir_->filePath(QStringLiteral("recovery")); }
  Document* doc() { return window_->document(); }
  AutosaveController* autosave() { return window_->autosave(); }
  QSlider* totalSlider() {
    return window_->findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"));
  }

 private Q_SLOTS:
  void initTestCase() { test::isolateSettings(); }

  void init() {
    dir_ = std::make_unique<QTemporaryDir>();
    window_ = std::make_unique<MainWindow>(nullptr, false);
    window_->files()->setPromptsEnabled(false);
    QString error;
    QVERIFY2(window_->files()->openExample(QStringLiteral("gpt3-4d"), &error), qPrintable(error));
    window_->enableAutosave(recoveryDir());
    QVERIFY(autosave()->isActive());
  }

  void cleanup() { window_.reset(); }

  // An edit is written to the recovery file a few seconds later (not at once), and
  // the file goes when the document is saved, or undone to its saved state.
  void anEditIsAutosavedAndGoesWithTheUnsavedWork() {
    QCOMPARE(autosave()->delayMs(), AutosaveController::kDelayMs);
    const QString recovery = autosave()->recoveryPath();
    QVERIFY(recovery.startsWith(recoveryDir() + QStringLiteral("/session-")));
    QVERIFY(!autosave()->isPending());
    totalSlider()->setValue(640);
    QVERIFY(doc()->isModified());
    QVERIFY(autosave()->isPending());
    QVERIFY(!QFileInfo::exists(recovery));  // debounced: not at every change
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(recovery) && !autosave()->isPending(), 20000);
    QCOMPARE(autosave()->writesCompleted(), 1);
    QVERIFY(Document::loadFile(recovery) == doc()->project());

    // Saved: nothing left to recover.
    const QString saved = dir_->filePath(QStringLiteral("p.json"));
    QString error;
    QVERIFY2(window_->files()->saveFile(saved, &error), qPrintable(error));
    QTRY_VERIFY(!QFileInfo::exists(recovery) && !autosave()->isPending());

    // Modified again, then undone to the saved state.
    autosave()->setDelayMs(50);
    totalSlider()->setValue(700);
    QTRY_VERIFY(QFileInfo::exists(recovery) && !autosave()->isPending());
    QVERIFY(Document::loadFile(recovery) == doc()->project());
    doc()->undoStack()->undo();
    QVERIFY(!doc()->isModified());
    QTRY_VERIFY(!QFileInfo::exists(recovery) && !autosave()->isPending());

    // A normal exit leaves nothing behind, the lock included.
    totalSlider()->setValue(710);
    QTRY_VERIFY(QFileInfo::exists(recovery) && !autosave()->isPending());
    QVERIFY(!filesIn(recoveryDir()).isEmpty());
    window_.reset();
    QCOMPARE(filesIn(recoveryDir()), QStringList());
  }

  // Closing the window asks about the unsaved changes: Cancel keeps the window
  // and the recovery file, Discard closes it and removes the file at once.
  void closingAndDiscardingRemovesTheRecoveryFile() {
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    window_->files()->setPromptsEnabled(true);
    totalSlider()->setValue(640);
    QString error;
    QVERIFY2(autosave()->saveNow(&error), qPrintable(error));
    const QString recovery = autosave()->recoveryPath();
    // Closes the window answering the question with `button`; what it said in `said`.
    auto closeAnswering = [&](QMessageBox::StandardButton button, QStringList& said) {
      bool closed = false;
      said = test::answerMessageBoxes([&] { closed = window_->close(); },
                                      [button](QMessageBox* box) { box->button(button)->click(); });
      return closed;
    };
    QStringList said;
    QVERIFY(!closeAnswering(QMessageBox::Cancel, said));
    QCOMPARE(said.size(), 1);
    QVERIFY2(said.front().contains(QStringLiteral("unsaved changes")), qPrintable(said[0]));
    QVERIFY(window_->isVisible());
    QVERIFY(QFileInfo::exists(recovery));
    QVERIFY(closeAnswering(QMessageBox::Discard, said));
    QCOMPARE(said.size(), 1);
    QVERIFY(!QFileInfo::exists(recovery));
  }

  // Continuous edits are written at the latest the longest delay after the first one.
  void continuousEditsAreStillWritten() {
    // The delays scaled down 7.5 times (3 s and 15 s by default) so that the
    // test waits 2 s, not 15.
    autosave()->setDelayMs(400);
    autosave()->setMaxDelayMs(2000);
    const QString recovery = autosave()->recoveryPath();
    QElapsedTimer clock;
    clock.start();
    int value = 300;
    // Edits every 100 ms (a debounce of 400 ms alone would never fire) until the
    // file is there, for at most the longest delay and 8 s for the write (a
    // loaded CI machine under AddressSanitizer).
    while (!QFileInfo::exists(recovery) && clock.elapsed() < autosave()->maxDelayMs() + 8000LL) {
      totalSlider()->setValue(++value);
      QTest::qWait(100);
    }
    QVERIFY2(QFileInfo::exists(recovery), "no autosave during continuous edits");
  }

  // Two instances never write the same file, never offer each other's files while
  // they run, and each removes only its own.
  void twoInstancesKeepTheirOwnFiles() {
    MainWindow other(nullptr, false);
    other.files()->setPromptsEnabled(false);
    QString error;
    QVERIFY(other.files()->openExample(QStringLiteral("gpt3-3d"), &error));
    AutosaveController* second = other.enableAutosave(recoveryDir());
    QVERIFY(second->recoveryPath() != autosave()->recoveryPath());
    totalSlider()->setValue(650);
    other.findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"))->setValue(450);
    QVERIFY2(autosave()->saveNow(&error), qPrintable(error));
    QVERIFY2(second->saveNow(&error), qPrintable(error));
    QVERIFY(Document::loadFile(autosave()->recoveryPath()) == doc()->project());
    QVERIFY(Document::loadFile(second->recoveryPath()) == other.document()->project());
    QVERIFY(autosave()->orphans().empty());
    QVERIFY(second->orphans().empty());
    const QString mine = autosave()->recoveryPath();
    window_.reset();
    QVERIFY(!QFileInfo::exists(mine));
    QVERIFY(QFileInfo::exists(second->recoveryPath()));
  }

  // An orphan (its instance is gone) is offered with its name, original path
  // and time; Restore brings it back modified under its original path (Save
  // writes there) and removes it; this instance's own recovery file holds it
  // until then.
  void anOrphanIsOfferedAndRestored() {
    const QString original = dir_->filePath(QStringLiteral("explored.json"));
    Project lost = loadExample(QStringLiteral("gpt3-3d"));
    lost.name = "What the crash took";
    QVERIFY(QDir().mkpath(recoveryDir()));
    writeOrphan(recoveryDir(), QStringLiteral("session-1-1"), lost, original);
    saveProject(loadExample(QStringLiteral("gpt3-3d")), original.toStdString());
    const QByteArray before = slurp(original);

    bool restored = false;
    const QStringList said =
        test::answerMessageBoxes([&] { restored = autosave()->offerRecovery(window_.get()); },
                                 [](QMessageBox* box) {
                                   QCOMPARE(box->objectName(), QStringLiteral("recoveryDialog"));
                                   clickButton(box, "restoreButton");
                                 });
    QVERIFY(restored);
    QCOMPARE(said.size(), 1);
    QVERIFY2(said.front().contains(QStringLiteral("“What the crash took”")), qPrintable(said[0]));
    QVERIFY2(said.front().contains(QStringLiteral("Original file: ") + original),
             qPrintable(said[0]));
    QVERIFY2(said.front().contains(QStringLiteral("Autosaved: ")), qPrintable(said[0]));
    QVERIFY(doc()->project() == lost);
    QCOMPARE(doc()->filePath(), original);
    QVERIFY(doc()->isModified());
    QVERIFY(window_->isWindowModified());
    QCOMPARE(slurp(original), before);  // nothing written until the user saves
    // The orphan is gone; this instance holds the work now.
    QVERIFY(!QFileInfo::exists(QDir(recoveryDir()).filePath("session-1-1.project.json")));
    QVERIFY(!QFileInfo::exists(QDir(recoveryDir()).filePath("session-1-1.info.json")));
    QVERIFY(Document::loadFile(autosave()->recoveryPath()) == lost);

    QVERIFY(window_->files()->save());
    QVERIFY(loadProject(original.toStdString()) == lost);
    QTRY_VERIFY(!QFileInfo::exists(autosave()->recoveryPath()) && !autosave()->isPending());
  }

  // Keep for Later leaves the orphan for the next start; Discard removes it; one
  // that cannot be read can only be kept or discarded.
  void anOrphanCanBeKeptOrDiscarded() {
    QVERIFY(QDir().mkpath(recoveryDir()));
    const Project lost = loadExample(QStringLiteral("gpt3-3d"));
    writeOrphan(recoveryDir(), QStringLiteral("session-2-2"), lost, QString());
    const Project before = doc()->project();
    auto offer = [&](const char* button) {
      bool restored = true;
      const QStringList said =
          test::answerMessageBoxes([&] { restored = autosave()->offerRecovery(window_.get()); },
                                   [button](QMessageBox* box) { clickButton(box, button); });
      QVERIFY(!restored);
      QCOMPARE(said.size(), 1);
      QVERIFY2(said.front().contains(QStringLiteral("Original file: none (never saved)")),
               qPrintable(said[0]));
    };
    offer("keepButton");
    QVERIFY(doc()->project() == before);
    QVERIFY(QFileInfo::exists(QDir(recoveryDir()).filePath("session-2-2.project.json")));
    QVERIFY(!QFileInfo::exists(QDir(recoveryDir()).filePath("session-2-2.lock")));
    offer("keepButton");  // offered again
    offer("discardButton");
    QVERIFY(!QFileInfo::exists(QDir(recoveryDir()).filePath("session-2-2.project.json")));
    QVERIFY(!QFileInfo::exists(QDir(recoveryDir()).filePath("session-2-2.info.json")));
    QVERIFY(autosave()->orphans().empty());

    // Unreadable: no Restore button, and the reason.
    QFile broken(QDir(recoveryDir()).filePath("session-3-3.project.json"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{ \"format\": \"libra-project\", ");
    broken.close();
    const QStringList said = test::answerMessageBoxes(
        [&] { QVERIFY(!autosave()->offerRecovery(window_.get())); },
        [](QMessageBox* box) {
          QVERIFY(!box->findChild<QPushButton*>(QStringLiteral("restoreButton")));
          clickButton(box, "keepButton");
        });
    QCOMPARE(said.size(), 1);
    QVERIFY2(said.front().contains(QStringLiteral("It cannot be restored: ")) &&
                 said.front().contains(QStringLiteral("session-3-3.project.json")),
             qPrintable(said[0]));
    QVERIFY(broken.exists());
  }

  // A save that fails leaves the original file as it was, says why in one
  // message (the system's reason), keeps the document modified and keeps the
  // recovery file. As root (CI) permission bits do not stop a write, so the
  // failures are ones root gets too: a file size limit (a full disk), a folder
  // that is a file, a full device.
  void aFailedSaveKeepsTheOriginalAndTheRecoveryAndSaysWhy() {
    window_->files()->setPromptsEnabled(true);
    const QString path = dir_->filePath(QStringLiteral("p.json"));
    QString error;
    QVERIFY2(window_->files()->saveFile(path, &error), qPrintable(error));
    const QByteArray original = slurp(path);
    totalSlider()->setValue(640);
    QVERIFY2(autosave()->saveNow(&error), qPrintable(error));
    const Project edited = doc()->project();
    autosave()->setDelayMs(60 * 60 * 1000);  // no autosave in the middle of the checks

    auto saveAndExpect = [&](const QString& target, const QString& reason,
                             const std::function<void()>& during = {}) {
      doc()->setFilePath(target);
      bool saved = true;
      const QStringList said = test::answerMessageBoxes(
          [&] {
            if (during) during();
            saved = window_->files()->save();
          },
          [](QMessageBox* box) { box->button(QMessageBox::Ok)->click(); });
      QVERIFY(!saved);
      QCOMPARE(said.size(), 1);
      QVERIFY2(said.front().contains(QStringLiteral("cannot write '") + target + "': " + reason),
               qPrintable(said.front()));
      QVERIFY(doc()->isModified());
      QVERIFY(window_->isWindowModified());
      QVERIFY(doc()->project() == edited);
      QVERIFY(Document::loadFile(autosave()->recoveryPath()) == edited);
    };

    // A full disk: the process may not write a file larger than 4 kB.
    struct rlimit old {};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
    auto* oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    saveAndExpect(path, QStringLiteral("File too large"), [&] {
      struct rlimit limited = old;
      limited.rlim_cur = 4096;
      QCOMPARE(::setrlimit(RLIMIT_FSIZE, &limited), 0);
    });
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &old), 0);
    std::signal(SIGXFSZ, oldHandler);
    QCOMPARE(slurp(path), original);
    QCOMPARE(filesIn(dir_->path()), QStringList{QStringLiteral("p.json")});  // no temporary left

    // A folder that is a file.
    QFile notes(dir_->filePath(QStringLiteral("notes.txt")));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("notes\n");
    notes.close();
    saveAndExpect(dir_->filePath(QStringLiteral("notes.txt/p.json")),
                  QStringLiteral("Not a directory"));
    QCOMPARE(slurp(notes.fileName()), QByteArray("notes\n"));

    // A full device.
    if (QFileInfo::exists(QStringLiteral("/dev/full")))
      saveAndExpect(QStringLiteral("/dev/full"), QStringLiteral("No space left on device"));

    // The same file saves once the cause is gone.
    doc()->setFilePath(path);
    QVERIFY(window_->files()->save());
    QVERIFY(!doc()->isModified());
    QVERIFY(loadProject(path.toStdString()) == edited);
    QTRY_VERIFY(!QFileInfo::exists(autosave()->recoveryPath()) && !autosave()->isPending());
  }

  // A recovery folder that cannot be made: autosave is off, and says why once.
  void anUnusableRecoveryFolderIsReported() {
    QFile file(dir_->filePath(QStringLiteral("file")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    Document document(loadExample(QStringLiteral("gpt3-4d")));
    AutosaveController controller(&document, dir_->filePath(QStringLiteral("file/recovery")));
    QSignalSpy failed(&controller, &AutosaveController::failed);
    QVERIFY(!controller.isActive());
    QTRY_COMPARE(failed.size(), 1);
    QVERIFY2(failed.front().front().toString().contains(QStringLiteral("file/recovery")),
             qPrintable(failed.front().front().toString()));
    QString error;
    document.edit(QStringLiteral("x"), [](Project& p) { p.name = "x"; });
    QVERIFY(!controller.saveNow(&error));
    QVERIFY(error.contains(QStringLiteral("autosave is off")));
  }

  // The real program, killed with SIGKILL after edits made through its widgets:
  // the next start offers its recovery file, and Restore gives back exactly the
  // edited project, under its original path.
  void afterSigkillTheNextStartRestoresTheEdits() {
    constexpr int kEdits = 40;  // two rounds of the sequence and then some
    const QString home = dir_->filePath(QStringLiteral("home"));
    const QString project = dir_->filePath(QStringLiteral("p.json"));
    saveProject(loadExample(QStringLiteral("gpt3-4d")), project.toStdString());

    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), home + QStringLiteral("/cache"));
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process.start(QStringLiteral(LIBRA_STUDIO_BINARY),
                  {project, QStringLiteral("--replay-edits"), QString::number(kEdits)});
    QVERIFY(process.waitForStarted());
    // The per-user location under XDG_DATA_HOME, named after the application.
    const QString dir = home + QStringLiteral("/data/LibraStudio/libra-studio/recovery");
    auto written = [&] {
      return !QDir(dir)
                  .entryList({QStringLiteral("session-*.project.json")}, QDir::Files)
                  .isEmpty();
    };
    QTRY_VERIFY_WITH_TIMEOUT(written() || process.state() != QProcess::Running, 60000);
    QCOMPARE(process.state(), QProcess::Running);
    ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitStatus(), QProcess::CrashExit);
    // What it left: its lock, its project and where it came from.
    QCOMPARE(QDir(dir).entryList({QStringLiteral("session-*")}, QDir::Files).size(), 3);

    // The same edits, replayed here.
    MainWindow replay(nullptr, false);
    replay.files()->setPromptsEnabled(false);
    QVERIFY(replay.files()->open(project));
    EditDriver(&replay).applyFirst(kEdits);
    const Project expected = replay.document()->project();
    QVERIFY(expected != loadProject(project.toStdString()));
    replay.document()->undoStack()->setClean();

    // The next start.
    cleanup();
    window_ = std::make_unique<MainWindow>(nullptr, false);
    window_->files()->setPromptsEnabled(false);
    QString error;
    QVERIFY(window_->files()->openExample(QStringLiteral("gpt3-3d"), &error));
    window_->enableAutosave(dir);
    bool restored = false;
    const QStringList said =
        test::answerMessageBoxes([&] { restored = autosave()->offerRecovery(window_.get()); },
                                 [](QMessageBox* box) { clickButton(box, "restoreButton"); });
    QVERIFY(restored);
    QCOMPARE(said.size(), 1);
    QVERIFY2(said.front().contains(QStringLiteral("Original file: ") + project),
             qPrintable(said.front()));
    QVERIFY2(said.front().contains(toQString(expected.name)), qPrintable(said.front()));
    QVERIFY(doc()->project() == expected);
    QCOMPARE(doc()->filePath(), project);
    QVERIFY(doc()->isModified());
    // The orphan is gone: only this instance's files are left.
    const QString own = QFileInfo(autosave()->recoveryPath()).fileName().chopped(13);
    QCOMPARE(filesIn(dir),
             (QStringList{own + QStringLiteral(".info.json"), own + QStringLiteral(".lock"),
                          own + QStringLiteral(".project.json")}));
    QVERIFY(window_->files()->save());
    QVERIFY(loadProject(project.toStdString()) == expected);
  }
};

QTEST_MAIN(RecoveryTest)
#include "test_recovery.moc"
