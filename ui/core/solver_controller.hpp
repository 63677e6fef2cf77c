// Latest-wins background analysis (the threaded Mandelbrot example's pattern, with
// LibrePCB's immutable snapshots and real cancellation):
//  - every edit makes an immutable SolveRequest holding a Project snapshot (cheap:
//    workloads are shared, not copied); the worker builds the problem and runs the
//    engine's analyze(), so the GUI thread never compiles or solves anything;
//  - at most one job runs (on the global thread pool) and one waits; a newer
//    request always replaces the waiting one. The running one is cancelled
//    (through its own std::atomic<bool>) when all it has left to do is a stale
//    front (unless that front is due within a frame, or the screen has shown no
//    front for longer than screenBudgetMs()), or when it is slow, young and the
//    screen is fresh: a design that
//    takes longer than screenBudgetMs() is abandoned in the first half of its
//    expected time if a result was delivered less than half that time ago, so
//    the newest input is answered soon and the screen still gets a result at
//    least every ~1.5 solve times. A design that comes within the budget is let
//    finish: restarting it would not show the newer input any sooner, only leave
//    the screen without a result; a drag whose solves are slower than its ticks
//    would show nothing until it ends;
//  - results are progressive: the design (optimum, breakdown, baseline) is
//    delivered as soon as it is known, the Pareto front follows in a second result;
//  - a result older than one already delivered, or from before cancelAll(), is
//    dropped, never shown;
//  - a job that throws (bad input, anything else) delivers an error result;
//  - the GUI thread never waits for a job: a cancelled job is abandoned and winds
//    down on its own, holding only its own snapshot.
#pragma once

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <functional>
#include <libra/analysis.hpp>
#include <libra/project.hpp>
#include <memory>
#include <optional>

namespace libra::studio {

// One frame of a 60 Hz display: the screen's pace for the solver and the charts.
inline constexpr int kFrameMs = 16;

struct SolveRequest {
  quint64 generation = 0;  // set by SolverController::submit
  std::shared_ptr<const Project> project;
  // Backend, front points, ...; `cancel` and `onDesign` are the controller's.
  AnalysisOptions options;
  // Makes the job pause this long before it solves, as a slow solve would
  // (cancellable; for tests and measurements only).
  int artificialDelayMs = 0;
  // Runs on the worker before the analysis (tests: an exception thrown here must
  // come back as an error result).
  std::function<void()> onStart;
};

// The request for `project` as the window shows it: its objective and
// constraints, the front over the whole cost range (a cost budget is drawn on
// it), as many front points as the project's view state asks for.
SolveRequest makeRequest(const Project& project, Backend backend = Backend::Native);

struct SolveResult {
  quint64 generation = 0;
  std::shared_ptr<const Analysis> analysis;  // never null
  // The project the analysis is of (the request's; null only when it had none).
  std::shared_ptr<const Project> project;
  // False for the design delivered ahead of its front; the complete result follows.
  bool complete = true;
  // The project could not be posed (InputError, ConstraintError): analysis->message says why.
  bool invalidInput = false;
  double elapsedMs = 0;  // wall time of the job up to this result
  // The front's points asked for: fewer than the project's for a drag's or a
  // coarse-first front (ExplorerController).
  int frontPoints = 0;

  const Analysis& a() const { return *analysis; }
  bool ok() const { return analysis->ok(); }
};
using SolveResultPtr = std::shared_ptr<const SolveResult>;

// Runs one request to completion on the calling thread (the job body; also used
// headless). `onPartial`, when given, receives the design before the front.
// Never throws: failures are results.
SolveResult runSolve(const SolveRequest& request, const std::atomic<bool>* cancel = nullptr,
                     const std::function<void(SolveResult)>& onPartial = {});

class SolverController : public QObject {
  Q_OBJECT

 public:
  explicit SolverController(QObject* parent = nullptr);
  ~SolverController() override;

  // Stamps the request with the next generation and schedules it; returns that generation.
  quint64 submit(SolveRequest request);
  // Drops the waiting request and cancels the running one (e.g. the project became
  // invalid); nothing submitted before is delivered any more.
  void cancelAll();

  // Designs expected within this time are never restarted (default 100 ms: a
  // drag stays live while its solves take less).
  void setScreenBudgetMs(int ms) { screenBudgetMs_ = ms; }
  // A front expected within this time of its design is finished before a
  // waiting request starts (default kFrameMs; a test on a slow machine scales
  // it with the fronts it measures).
  void setFrameMs(int ms) { frameMs_ = ms; }

  quint64 latestGeneration() const { return latestGeneration_; }
  // How long a front of `points` points is expected to take after its design:
  // the last front's time, scaled to that number of points (ms; -1 while no
  // front was timed).
  qint64 frontMsAt(int points) const;
  bool isBusy() const { return running_.has_value() || pending_.has_value(); }
  // How many jobs were started and how many results were dropped as stale (for tests).
  int startedJobs() const { return startedJobs_; }
  int droppedResults() const { return droppedResults_; }

 Q_SIGNALS:
  void solveStarted(quint64 generation);
  // Newer than every result delivered before; a generation may come twice (its
  // design, then complete).
  void resultReady(libra::studio::SolveResultPtr result);
  void busyChanged(bool busy);

 private:
  struct Job {
    quint64 generation = 0;
    std::shared_ptr<std::atomic<bool>> cancel;
    int frontPoints = 0;  // how many points its front has
    bool designDelivered = false;
    QElapsedTimer started;
    QElapsedTimer sinceDesign;  // started when its design was delivered
  };
  void start(SolveRequest request);
  void onResultAt(int index);
  void onJobFinished();
  void deliver(const SolveResultPtr& result);
  bool worthRestarting() const;
  // Whether the running job's front, its design delivered, is expected within
  // one frame: then it is finished before a newer request starts (a drag keeps
  // its front on screen instead of a front that never completes).
  bool frontDueWithinAFrame() const;
  // Whether no front has reached the screen for a while (the screen budget, or
  // three times the expected front, whichever is longer) while fronts are
  // expected to take at most four budgets: then the running front is let
  // finish. That bounds how stale the front gets under fast input (a front
  // then takes at most about a quarter of the time), and measures again how
  // long fronts take: one slow front (the first after opening a project, a
  // hiccup of a loaded machine) would otherwise have every later front
  // cancelled for as long as input keeps coming. A front expected to take
  // longer (a huge project) never holds up the designs during input.
  bool frontStarved() const;
  // How long the running job's front is expected to take after its design: the
  // last front's time, scaled to this job's number of points (a drag asks for
  // fewer points than the project: the project's slow front must not make the
  // drag's fast ones look too slow to finish). -1 while no front was timed.
  qint64 expectedFrontMs() const;

  QFutureWatcher<SolveResultPtr> watcher_;
  std::optional<Job> running_;
  std::optional<SolveRequest> pending_;
  quint64 latestGeneration_ = 0;
  quint64 deliveredGeneration_ = 0;  // newest generation delivered (or cancelled by cancelAll)
  bool deliveredComplete_ = true;
  qint64 designMs_ = 0;    // how long the last job took to its design (0: not known yet)
  qint64 frontMs_ = -1;    // how long the last front took after its design (-1: not known yet)
  int frontMsPoints_ = 0;  // of how many points that front was
  int screenBudgetMs_ = 100;
  int frameMs_ = kFrameMs;
  QElapsedTimer sinceDelivered_;
  QElapsedTimer sinceFront_;  // since a complete result (a front) was last delivered
  int startedJobs_ = 0;
  int droppedResults_ = 0;
};

}  // namespace libra::studio
