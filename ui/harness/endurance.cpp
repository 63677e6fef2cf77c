#include "endurance.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <cstdio>
#include <exception>
#include <libra/memory_usage.hpp>

#include "autosave.hpp"
#include "charts.hpp"
#include "document.hpp"
#include "edit_driver.hpp"
#include "explorer_controller.hpp"
#include "file_controller.hpp"
#include "format.hpp"
#include "headless.hpp"
#include "main_window.hpp"
#include "results_view.hpp"
#include "wait.hpp"

namespace libra::studio {

namespace {

// "VmRSS:   123456 kB" from /proc/self/status; 0 when it cannot be read.
long statusKb(const char* key) {
  QFile file(QStringLiteral("/proc/self/status"));
  if (!file.open(QIODevice::ReadOnly)) return 0;
  const QByteArray prefix = QByteArray(key) + ':';
  for (const QByteArray& line : file.readAll().split('\n')) {
    if (!line.startsWith(prefix)) continue;
    QByteArray value = line.mid(prefix.size()).trimmed();
    if (value.endsWith(" kB")) value.chop(3);
    return value.trimmed().toLong();
  }
  return 0;
}

// Bytes malloc handed out and not freed, in kB.
long heapInUseKb() {
  return static_cast<long>(heapInUseBytes() / 1024);
}

struct Run {
  explicit Run(MainWindow* w) : window(w) {}
  MainWindow* window;
  int checkpoints = 0;
  int answered = 0;
  QJsonArray rssAtCheckpoints;
  QJsonArray heapAtCheckpoints;  // kB, one per checkpoint: the trend, not only the ends
  QStringList failures;

  // The newest request was answered: delivered complete, and painted when it solved.
  bool answeredNow() const {
    const SolverController* solver = window->explorer()->solver();
    const SolveResultPtr latest = window->explorer()->latestResult();
    if (solver->isBusy() || !latest || latest->generation != solver->latestGeneration() ||
        !latest->complete)
      return false;
    if (!latest->ok()) return true;
    const ResultsView* results = window->results();
    const auto& painted = results->paretoChart()->paintedGenerations();
    return results->shownGeneration() == latest->generation && !painted.isEmpty() &&
           painted.back() == latest->generation;
  }

  void checkpoint(const QString& where) {
    ++checkpoints;
    const bool ok =
        waitUntil([this] { return answeredNow(); }, EnduranceBounds::kCheckpointTimeoutMs);
    rssAtCheckpoints.append(static_cast<qint64>(statusKb("VmRSS")));
    heapAtCheckpoints.append(static_cast<qint64>(heapInUseKb()));
    if (ok) {
      ++answered;
      return;
    }
    const SolverController* solver = window->explorer()->solver();
    failures << QStringLiteral("%1: request %2 not answered within %3 s (solver %4)")
                    .arg(where)
                    .arg(solver->latestGeneration())
                    .arg(EnduranceBounds::kCheckpointTimeoutMs / 1000)
                    .arg(solver->isBusy() ? QStringLiteral("busy") : QStringLiteral("idle"));
  }
};

// What an endurance run measured, for its bounds and its report.
struct EnduranceFigures {
  int warmupSteps = 0;
  double warmupSeconds = 0;
  int edits = 0;
  double editSeconds = 0;
  int undoSteps = 0;
  int frames = 0;
  int jobsWarm = 0;
  long rssStart = 0, rssWarm = 0, rssEnd = 0, rssPeak = 0;
  long heapWarm = 0, heapEnd = 0;
  bool recoveryMatches = false;

  long rssGrowth() const { return rssEnd - rssWarm; }
  long heapGrowth() const { return heapEnd - heapWarm; }
};

// Fills the undo stack to its limit, the steady state of a long session; the
// results are taken (and painted) once per round of the sequence. Returns the
// steps made.
int warmUp(EditDriver& driver, const QUndoStack& undo) {
  int step = 0;
  while (undo.count() < Document::kUndoLimit && step < 20 * Document::kUndoLimit) {
    driver.apply(step++);
    if (step % EditDriver::kCycle == 0) QCoreApplication::processEvents();
  }
  return step;
}

// Edits at a drag's pace for `seconds`, a checkpoint every kCheckpointEvery
// edits; `step` counts on. Returns the seconds it took.
double editAtDragPace(EditDriver& driver, Run& run, int& step, double seconds) {
  const int warmupSteps = step;
  QElapsedTimer phase;
  phase.start();
  QTimer pointer;
  pointer.setTimerType(Qt::PreciseTimer);
  pointer.setInterval(kFrameMs);
  QObject::connect(&pointer, &QTimer::timeout, &pointer, [&] {
    if (phase.elapsed() >= static_cast<qint64>(seconds * 1000)) {
      pointer.stop();
      return;
    }
    driver.apply(step++);
    if ((step - warmupSteps) % EnduranceBounds::kCheckpointEvery == 0) {
      pointer.stop();  // a checkpoint is a pause in the edits
      run.checkpoint(QStringLiteral("after edit %1").arg(step));
      pointer.start();
    }
  });
  pointer.start();
  waitUntil([&] { return !pointer.isActive(); }, static_cast<int>(seconds * 1000) + 600000);
  return static_cast<double>(phase.elapsed()) / 1000.0;
}

// The bounds on memory growth after the warm-up, and an idle solver at the end.
void checkBounds(const EnduranceFigures& f, const SolverController& solver, QStringList& failures) {
  if (f.rssWarm <= 0 || f.rssEnd <= 0) {
    failures << QStringLiteral("cannot read the resident set size from /proc/self/status");
  } else if (residentSetTracksHeap() && f.rssGrowth() > EnduranceBounds::kMaxRssGrowthKb) {
    failures << QStringLiteral("resident set grew %1 kB after the warm-up (bound %2 kB)")
                    .arg(f.rssGrowth())
                    .arg(EnduranceBounds::kMaxRssGrowthKb);
  }
  if (f.heapGrowth() > EnduranceBounds::kMaxHeapGrowthKb) {
    failures << QStringLiteral("the heap in use grew %1 kB after the warm-up (bound %2 kB)")
                    .arg(f.heapGrowth())
                    .arg(EnduranceBounds::kMaxHeapGrowthKb);
  }
  if (solver.isBusy()) failures << QStringLiteral("the solver is still busy at the end");
}

QJsonObject enduranceJson(const EnduranceFigures& f, const Run& run, const SolverController& solver,
                          const AutosaveController& autosave, const Project& project,
                          double seconds) {
  QJsonObject o;
  o[QStringLiteral("project")] = toQString(project.name);
  o[QStringLiteral("seconds")] = seconds;
  o[QStringLiteral("warmup_steps")] = f.warmupSteps;
  o[QStringLiteral("warmup_seconds")] = f.warmupSeconds;
  o[QStringLiteral("edit_steps")] = f.edits;
  o[QStringLiteral("edit_seconds")] = f.editSeconds;
  o[QStringLiteral("undo_steps")] = f.undoSteps;
  o[QStringLiteral("checkpoints")] = run.checkpoints;
  o[QStringLiteral("checkpoints_answered")] = run.answered;
  o[QStringLiteral("rss_start_kb")] = static_cast<qint64>(f.rssStart);
  o[QStringLiteral("rss_after_warmup_kb")] = static_cast<qint64>(f.rssWarm);
  o[QStringLiteral("rss_end_kb")] = static_cast<qint64>(f.rssEnd);
  o[QStringLiteral("heap_after_warmup_kb")] = static_cast<qint64>(f.heapWarm);
  o[QStringLiteral("heap_end_kb")] = static_cast<qint64>(f.heapEnd);
  o[QStringLiteral("heap_growth_after_warmup_kb")] = static_cast<qint64>(f.heapGrowth());
  o[QStringLiteral("heap_growth_bound_kb")] =
      static_cast<qint64>(EnduranceBounds::kMaxHeapGrowthKb);
  o[QStringLiteral("rss_at_checkpoints_kb")] = run.rssAtCheckpoints;
  o[QStringLiteral("heap_at_checkpoints_kb")] = run.heapAtCheckpoints;
  o[QStringLiteral("rss_peak_kb")] = static_cast<qint64>(f.rssPeak);
  o[QStringLiteral("rss_growth_after_warmup_kb")] = static_cast<qint64>(f.rssGrowth());
  o[QStringLiteral("rss_growth_bound_kb")] = static_cast<qint64>(EnduranceBounds::kMaxRssGrowthKb);
  // Under the sanitizers the resident set grows with their shadow memory and
  // quarantine: reported, but only the heap in use is held to its bound.
  o[QStringLiteral("rss_bound_checked")] = residentSetTracksHeap();
  o[QStringLiteral("jobs_started")] = solver.startedJobs();
  o[QStringLiteral("jobs_started_after_warmup")] = solver.startedJobs() - f.jobsWarm;
  o[QStringLiteral("results_dropped")] = solver.droppedResults();
  o[QStringLiteral("latest_generation")] = static_cast<qint64>(solver.latestGeneration());
  o[QStringLiteral("solver_busy_at_end")] = solver.isBusy();
  o[QStringLiteral("frames_painted")] = f.frames;
  o[QStringLiteral("autosaves_written")] = autosave.writesCompleted();
  o[QStringLiteral("autosave_gui_thread_mean_ms")] = autosave.meanGuiThreadMs();
  o[QStringLiteral("autosave_gui_thread_max_ms")] = autosave.longestGuiThreadMs();
  o[QStringLiteral("autosave_write_max_ms")] = autosave.longestWriteMs();
  o[QStringLiteral("recovery_matches_document")] = f.recoveryMatches;
  o[QStringLiteral("failures")] = QJsonArray::fromStringList(run.failures);
  o[QStringLiteral("ok")] = run.failures.isEmpty();
  return o;
}

void printEndurance(const EnduranceFigures& f, const Run& run, const SolverController& solver,
                    const AutosaveController& autosave) {
  std::printf(
      "warm-up: %d steps in %.1f s (undo stack full: %d steps)\n"
      "edits: %d steps in %.1f s, %d checkpoints, %d answered\n"
      "resident set: start %ld kB, after warm-up %ld kB, end %ld kB (growth %ld kB, bound %ld "
      "kB), peak %ld kB\n"
      "heap in use: after warm-up %ld kB, end %ld kB (growth %ld kB, bound %ld kB)\n"
      "solver: %d jobs started (%d after the warm-up), %d results dropped as stale, %s at the "
      "end\n"
      "autosave: %d writes (GUI thread %.2f ms on average, %.2f ms at most; the write on its "
      "worker at most %.1f ms), the last one %s\n",
      f.warmupSteps, f.warmupSeconds, f.undoSteps, f.edits, f.editSeconds, run.checkpoints,
      run.answered, f.rssStart, f.rssWarm, f.rssEnd, f.rssGrowth(),
      EnduranceBounds::kMaxRssGrowthKb, f.rssPeak, f.heapWarm, f.heapEnd, f.heapGrowth(),
      EnduranceBounds::kMaxHeapGrowthKb, solver.startedJobs(), solver.startedJobs() - f.jobsWarm,
      solver.droppedResults(), solver.isBusy() ? "busy" : "idle", autosave.writesCompleted(),
      autosave.meanGuiThreadMs(), autosave.longestGuiThreadMs(), autosave.longestWriteMs(),
      f.recoveryMatches ? "reads back as the document" : "does NOT read back as the document");
  for (const QString& failure : run.failures)
    std::printf("FAILED: %s\n", failure.toUtf8().constData());
}

}  // namespace

// Whether an autosave of the last state reads back as the document; a failure
// naming why otherwise.
bool recoveryReadsBack(AutosaveController& autosave, MainWindow& window, QStringList& failures) {
  QString autosaveError;
  bool matches = false;
  if (autosave.saveNow(&autosaveError)) {
    try {
      matches = Document::loadFile(autosave.recoveryPath()) == window.document()->project();
    } catch (const std::exception& e) {
      autosaveError = toQString(e.what());
    }
  }
  if (!matches) {
    failures << QStringLiteral("the recovery file does not read back as the document%1")
                    .arg(autosaveError.isEmpty() ? QString()
                                                 : QStringLiteral(": ") + autosaveError);
  }
  return matches;
}

int runEndurance(const StudioOptions& options, const Project& project) {
  QTemporaryDir recoveryDir;  // outlives the window, whose autosave writes into it
  MainWindow window(nullptr, false);
  window.files()->setPromptsEnabled(false);
  AutosaveController* autosave = window.enableAutosave(recoveryDir.path());
  QString error;
  if (!openWindowAndWait(window, project, error)) {
    std::fprintf(stderr, "libra-studio: %s\n", error.toUtf8().constData());
    return 1;
  }
  SolverController* solver = window.explorer()->solver();
  int frames = 0;
  QObject::connect(window.results()->paretoChart(), &ResultChartView::framePainted,
                   window.results(), [&frames] { ++frames; });
  Run run(&window);
  EnduranceFigures f;
  QElapsedTimer clock;
  clock.start();
  f.rssStart = statusKb("VmRSS");

  EditDriver driver(&window);
  QUndoStack* undo = window.document()->undoStack();
  int step = warmUp(driver, *undo);
  run.checkpoint(QStringLiteral("after the warm-up"));
  f.warmupSteps = step;
  f.warmupSeconds = static_cast<double>(clock.elapsed()) / 1000.0;
  f.rssWarm = statusKb("VmRSS");
  f.heapWarm = heapInUseKb();
  f.jobsWarm = solver->startedJobs();

  f.editSeconds = editAtDragPace(driver, run, step, options.enduranceSeconds);
  run.checkpoint(QStringLiteral("at the end"));
  f.rssEnd = statusKb("VmRSS");
  f.rssPeak = statusKb("VmHWM");
  f.heapEnd = heapInUseKb();

  f.recoveryMatches = recoveryReadsBack(*autosave, window, run.failures);
  checkBounds(f, *solver, run.failures);
  f.edits = step - f.warmupSteps;
  f.undoSteps = undo->count();
  f.frames = frames;
  if (options.json) {
    const QJsonObject o =
        enduranceJson(f, run, *solver, *autosave, project, options.enduranceSeconds);
    std::puts(QJsonDocument(o).toJson(QJsonDocument::Indented).trimmed().constData());
  } else {
    printEndurance(f, run, *solver, *autosave);
  }
  std::fflush(stdout);
  window.document()->undoStack()->setClean();
  return run.failures.isEmpty() ? 0 : 1;
}

}  // namespace libra::studio
