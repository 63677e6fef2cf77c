#include "solver_controller.hpp"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <chrono>
#include <exception>
#include <libra/error.hpp>
#include <libra/sanitizers.hpp>
#include <thread>

#include "project_edits.hpp"
#include "trace.hpp"

// ThreadSanitizer cannot see the synchronisation inside Qt (QThreadPool's queue,
// QFutureInterface's results), which is not instrumented: without these marks it
// reports the request moved into a job and every result handed back as races.
// Each mark names the object handed over; Qt's own locking is what really
// orders them, these only tell TSan so.
#if defined(LIBRA_THREAD_SANITIZER)
#include <sanitizer/tsan_interface.h>
#define LIBRA_HANDOFF_RELEASE(object) \
  __tsan_release(const_cast<void*>(static_cast<const void*>(object)))
#define LIBRA_HANDOFF_ACQUIRE(object) \
  __tsan_acquire(const_cast<void*>(static_cast<const void*>(object)))
#else
#define LIBRA_HANDOFF_RELEASE(object) static_cast<void>(object)
#define LIBRA_HANDOFF_ACQUIRE(object) static_cast<void>(object)
#endif

namespace libra::studio {

SolveRequest makeRequest(const Project& project, Backend backend) {
  SolveRequest request;
  request.project = std::make_shared<const Project>(project);
  request.options.backend = backend;
  request.options.paretoPoints = paretoPointsOf(project);
  request.options.frontWithinCostBudget = false;  // the budget is drawn on the front
  return request;
}

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point started) {
  return std::chrono::duration<double, std::milli>(Clock::now() - started).count();
}

SolveResult failure(const SolveRequest& request, SolveStatus status, std::string message,
                    bool invalidInput, Clock::time_point started) {
  auto analysis = std::make_shared<Analysis>();
  analysis->status = status;
  analysis->message = std::move(message);
  analysis->backend = request.options.backend;
  if (request.project) {
    analysis->projectName = request.project->name;
    analysis->objective = request.options.objective.value_or(request.project->objective);
  }
  SolveResult r;
  r.generation = request.generation;
  r.frontPoints = request.options.paretoPoints;
  r.analysis = std::move(analysis);
  r.project = request.project;
  r.invalidInput = invalidInput;
  r.elapsedMs = msSince(started);
  return r;
}

// Sleeps `ms` in small steps; false when cancelled meanwhile.
bool pause(int ms, const std::atomic<bool>* cancel) {
  const auto until = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < until) {
    if (cancel && cancel->load()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

SolveResult runSolve(const SolveRequest& request, const std::atomic<bool>* cancel,
                     const std::function<void(SolveResult)>& onPartial) {
  const auto started = Clock::now();
  if (!request.project) {
    return failure(request, SolveStatus::Error, "there is no project to solve", true, started);
  }
  if (request.artificialDelayMs > 0 && !pause(request.artificialDelayMs, cancel)) {
    return failure(request, SolveStatus::Cancelled, "cancelled", false, started);
  }
  try {
    if (request.onStart) request.onStart();
    AnalysisOptions options = request.options;
    options.cancel = cancel;
    if (onPartial && options.paretoPoints >= 2) {
      options.onDesign = [&](const Analysis& design) {
        if (design.hasFront()) return;  // already complete: the final result follows at once
        SolveResult partial;
        partial.generation = request.generation;
        partial.frontPoints = request.options.paretoPoints;
        partial.analysis = std::make_shared<const Analysis>(design);
        partial.project = request.project;
        partial.complete = false;
        partial.elapsedMs = msSince(started);
        onPartial(std::move(partial));
      };
    }
    SolveResult r;
    r.generation = request.generation;
    r.frontPoints = request.options.paretoPoints;
    r.analysis = std::make_shared<const Analysis>(analyze(*request.project, options));
    r.project = request.project;
    r.elapsedMs = msSince(started);
    return r;
  } catch (const InputError& e) {
    return failure(request, SolveStatus::Error, e.what(), true, started);
  } catch (const std::exception& e) {
    // Anything else is a failure of this design, shown as such; never an exception in a slot.
    return failure(request, SolveStatus::Error, std::string("the analysis failed: ") + e.what(),
                   false, started);
  } catch (...) {
    return failure(request, SolveStatus::Error, "the analysis failed for an unknown reason", false,
                   started);
  }
}

SolverController::SolverController(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<SolveResultPtr>::resultReadyAt, this,
          &SolverController::onResultAt);
  connect(&watcher_, &QFutureWatcher<SolveResultPtr>::finished, this,
          &SolverController::onJobFinished);
}

SolverController::~SolverController() {
  // Abandon, never wait: the job owns its snapshot and its cancel flag.
  if (running_) running_->cancel->store(true);
  watcher_.disconnect(this);
}

qint64 SolverController::frontMsAt(int points) const {
  if (frontMs_ < 0 || frontMsPoints_ <= 0 || points == frontMsPoints_) return frontMs_;
  return frontMs_ * points / frontMsPoints_;
}

qint64 SolverController::expectedFrontMs() const {
  return running_ ? frontMsAt(running_->frontPoints) : frontMs_;
}

bool SolverController::frontDueWithinAFrame() const {
  const qint64 expected = expectedFrontMs();
  return running_ && running_->designDelivered && expected >= 0 &&
         expected - running_->sinceDesign.elapsed() <= frameMs_;
}

bool SolverController::frontStarved() const {
  const qint64 expected = expectedFrontMs();
  if (expected > 4 * qint64{screenBudgetMs_}) return false;
  const qint64 interval = std::max(qint64{screenBudgetMs_}, 3 * expected);
  return !sinceFront_.isValid() || sinceFront_.elapsed() > interval;
}

bool SolverController::worthRestarting() const {
  // Only a stale front is left: worth finishing when it is nearly done, or
  // when the screen has had no front for too long.
  if (running_->designDelivered) return !frontDueWithinAFrame() && !frontStarved();
  if (designMs_ <= screenBudgetMs_) return false;
  const bool young = running_->started.elapsed() * 2 < designMs_;
  const bool screenFresh = sinceDelivered_.isValid() && sinceDelivered_.elapsed() * 2 < designMs_;
  return young && screenFresh;
}

quint64 SolverController::submit(SolveRequest request) {
  request.generation = ++latestGeneration_;
  const quint64 generation = request.generation;
  const bool wasBusy = isBusy();
  if (running_) {
    if (worthRestarting()) running_->cancel->store(true);
    if (pending_) ++droppedResults_;  // the waiting request is superseded unseen
    pending_ = std::move(request);
  } else {
    start(std::move(request));
  }
  if (!wasBusy) Q_EMIT busyChanged(true);
  return generation;
}

void SolverController::cancelAll() {
  ++latestGeneration_;
  deliveredGeneration_ = latestGeneration_;  // whatever is in flight is now stale
  if (pending_) {
    pending_.reset();
    ++droppedResults_;
  }
  if (running_) running_->cancel->store(true);
}

void SolverController::start(SolveRequest request) {
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  running_ = Job{request.generation, cancel, request.options.paretoPoints, false, {}, {}};
  running_->started.start();
  ++startedJobs_;
  Q_EMIT solveStarted(request.generation);
  LIBRA_HANDOFF_RELEASE(cancel.get());  // the request and its flag go to the pool
  watcher_.setFuture(
      QtConcurrent::run([request = std::move(request), cancel](QPromise<SolveResultPtr>& promise) {
        LIBRA_HANDOFF_ACQUIRE(cancel.get());
        traceEvent("job start");
        const auto handBack = [&promise](SolveResult result) {
          traceEvent(result.complete ? "job front" : "job design");
          auto shared = std::make_shared<const SolveResult>(std::move(result));
          LIBRA_HANDOFF_RELEASE(shared.get());
          promise.addResult(std::move(shared));
        };
        SolveResult final = runSolve(request, cancel.get(), handBack);
        handBack(std::move(final));
      }));
}

void SolverController::deliver(const SolveResultPtr& result) {
  const bool newer =
      result->generation > deliveredGeneration_ ||
      (result->generation == deliveredGeneration_ && !deliveredComplete_ && result->complete);
  if (!newer || result->a().status == SolveStatus::Cancelled) {
    ++droppedResults_;
    return;
  }
  deliveredGeneration_ = result->generation;
  deliveredComplete_ = result->complete;
  sinceDelivered_.restart();
  if (result->complete) sinceFront_.restart();
  Q_EMIT resultReady(result);
}

void SolverController::onResultAt(int index) {
  const SolveResultPtr result = watcher_.future().resultAt(index);
  if (!result) return;
  LIBRA_HANDOFF_ACQUIRE(result.get());
  if (!running_ || result->generation != running_->generation) return;
  if (!running_->designDelivered && result->a().status != SolveStatus::Cancelled)
    designMs_ = running_->started.elapsed();
  if (!result->complete) {
    running_->designDelivered = true;
    running_->sinceDesign.start();
    // A newer request waits: the rest of this job is a stale front.
    if (pending_ && !frontDueWithinAFrame() && !frontStarved()) running_->cancel->store(true);
  } else if (running_->designDelivered && result->a().status != SolveStatus::Cancelled) {
    frontMs_ = running_->sinceDesign.elapsed();
    frontMsPoints_ = running_->frontPoints;
  }
  deliver(result);
}

void SolverController::onJobFinished() {
  running_.reset();
  if (pending_) {
    SolveRequest next = std::move(*pending_);
    pending_.reset();
    start(std::move(next));
  }
  if (!isBusy()) Q_EMIT busyChanged(false);
}

}  // namespace libra::studio
