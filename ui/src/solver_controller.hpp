// Latest-wins background solving (the threaded Mandelbrot example's pattern, with
// LibrePCB's immutable snapshots and real cancellation):
//  - every edit makes an immutable SolveRequest holding a Problem snapshot;
//  - at most one solve runs (on the global thread pool) and one waits; a newer
//    request replaces the waiting one and cancels the running one through its own
//    std::atomic<bool>;
//  - a finished job is delivered through QFutureWatcher's queued signal; results of
//    any generation older than the newest request are dropped, never shown;
//  - the GUI thread never waits for a job: a cancelled job is abandoned and winds
//    down on its own, holding only its own snapshot.
#pragma once

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <libra/problem.hpp>
#include <libra/solver.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace libra::studio {

struct SolveRequest {
  quint64 generation = 0;                       // set by SolverController::submit
  std::shared_ptr<const Problem> problem;       // every constraint, the cost budget too
  std::shared_ptr<const Problem> frontProblem;  // without the cost budget (null: no front)
  Objective objective = Objective::Performance;
  Backend backend = Backend::Native;
  int paretoPoints = 50;
  std::optional<double> costBudgetUsd;  // drawn on the front
};

struct SolveResult {
  quint64 generation = 0;
  std::vector<std::string> dimNames;
  Solution optimum;
  ParetoFront front;
  bool hasFront = false;
  // The naive design: the optimum's total bandwidth split equally over the dimensions.
  std::vector<double> equalSplit;
  Evaluation equalSplitEval;
  // Exposed communication time attributed to the dimension(s) that bound each
  // collective; sums to the evaluation's communicationNs.
  std::vector<double> communicationByDim;
  std::vector<double> equalSplitCommunicationByDim;
  std::optional<double> costBudgetUsd;
  Objective objective = Objective::Performance;
  double solveMs = 0;  // wall time of the whole job (optimum + front)
};
using SolveResultPtr = std::shared_ptr<const SolveResult>;

// Communication time per dimension at `bw` (Evaluation::communicationByDimNs,
// computed by the engine); zeros when `bw` does not fit or the time is infinite.
std::vector<double> communicationByDimension(const Problem& problem, const std::vector<double>& bw,
                                             const Evaluation& eval);

// Runs one request to completion on the calling thread (the job body; also used
// headless, where there is nothing to keep responsive).
SolveResult runSolve(const SolveRequest& request, const std::atomic<bool>* cancel = nullptr);

class SolverController : public QObject {
  Q_OBJECT

 public:
  explicit SolverController(QObject* parent = nullptr);
  ~SolverController() override;

  // Stamps the request with the next generation and schedules it; returns that generation.
  quint64 submit(SolveRequest request);
  // Drops the waiting request and cancels the running one (e.g. the project became invalid).
  void cancelAll();

  quint64 latestGeneration() const { return latestGeneration_; }
  bool isBusy() const { return running_.has_value() || pending_.has_value(); }
  // How many jobs were started and how many results were dropped as stale (for tests).
  int startedJobs() const { return startedJobs_; }
  int droppedResults() const { return droppedResults_; }

 Q_SIGNALS:
  void solveStarted(quint64 generation);
  // Only for the newest generation, and only once.
  void resultReady(libra::studio::SolveResultPtr result);
  void busyChanged(bool busy);

 private:
  struct Job {
    SolveRequest request;
    std::shared_ptr<std::atomic<bool>> cancel;
  };
  void start(SolveRequest request);
  void onJobFinished();

  QFutureWatcher<SolveResultPtr> watcher_;
  std::optional<Job> running_;
  std::optional<SolveRequest> pending_;
  quint64 latestGeneration_ = 0;
  int startedJobs_ = 0;
  int droppedResults_ = 0;
};

}  // namespace libra::studio
