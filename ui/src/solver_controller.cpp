#include "solver_controller.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <chrono>
#include <cmath>
#include <numeric>

namespace libra::studio {

std::vector<double> communicationByDimension(const Problem& problem, const std::vector<double>& bw,
                                             const Evaluation& eval) {
  if (static_cast<int>(bw.size()) != problem.dims() || !eval.finite) {
    return std::vector<double>(problem.dims(), 0.0);
  }
  return eval.communicationByDimNs.empty() ? problem.evaluate(bw).communicationByDimNs
                                           : eval.communicationByDimNs;
}

SolveResult runSolve(const SolveRequest& request, const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  SolveResult result;
  result.generation = request.generation;
  result.objective = request.objective;
  result.costBudgetUsd = request.costBudgetUsd;
  const Problem& problem = *request.problem;
  result.dimNames = problem.dimNames;
  const SolveOptions options{request.backend, cancel};

  if (request.frontProblem && request.paretoPoints >= 2) {
    result.front = paretoFront(*request.frontProblem, request.paretoPoints, options);
    result.hasFront = result.front.status == SolveStatus::Optimal;
  }
  // Without a cost budget the front's problem is the problem itself, and the front
  // already holds the refined perf-per-cost optimum.
  if (request.objective == Objective::PerfPerCost && result.hasFront && !request.costBudgetUsd &&
      result.front.perfPerCostOptimum.ok()) {
    result.optimum = result.front.perfPerCostOptimum;
  } else {
    result.optimum = solve(problem, request.objective, options);
  }

  if (result.optimum.ok() && problem.dims() > 0) {
    const double total =
        std::accumulate(result.optimum.bandwidth.begin(), result.optimum.bandwidth.end(), 0.0);
    result.equalSplit.assign(problem.dims(), total / problem.dims());
    result.equalSplitEval = problem.evaluate(result.equalSplit);
    result.communicationByDim =
        communicationByDimension(problem, result.optimum.bandwidth, result.optimum.eval);
    result.equalSplitCommunicationByDim =
        communicationByDimension(problem, result.equalSplit, result.equalSplitEval);
  }
  result.solveMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return result;
}

SolverController::SolverController(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<SolveResultPtr>::finished, this,
          &SolverController::onJobFinished);
}

SolverController::~SolverController() {
  // Abandon, never wait: the job owns its snapshot and its cancel flag.
  if (running_) running_->cancel->store(true);
  watcher_.disconnect(this);
}

quint64 SolverController::submit(SolveRequest request) {
  request.generation = ++latestGeneration_;
  const quint64 generation = request.generation;
  const bool wasBusy = isBusy();
  if (running_) {
    running_->cancel->store(true);
    if (pending_) ++droppedResults_;  // the waiting request is superseded unseen
    pending_ = std::move(request);
  } else {
    start(std::move(request));
  }
  if (!wasBusy) Q_EMIT busyChanged(true);
  return generation;
}

void SolverController::cancelAll() {
  ++latestGeneration_;  // whatever is in flight is now stale
  if (pending_) {
    pending_.reset();
    ++droppedResults_;
  }
  if (running_) running_->cancel->store(true);
}

void SolverController::start(SolveRequest request) {
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  running_ = Job{request, cancel};
  ++startedJobs_;
  Q_EMIT solveStarted(request.generation);
  watcher_.setFuture(QtConcurrent::run([request = std::move(request), cancel]() -> SolveResultPtr {
    return std::make_shared<const SolveResult>(runSolve(request, cancel.get()));
  }));
}

void SolverController::onJobFinished() {
  SolveResultPtr result = watcher_.future().result();
  running_.reset();
  const bool current = result && result->generation == latestGeneration_ &&
                       result->optimum.status != SolveStatus::Cancelled;
  if (pending_) {
    SolveRequest next = std::move(*pending_);
    pending_.reset();
    start(std::move(next));
  }
  if (current) {
    Q_EMIT resultReady(result);
  } else {
    ++droppedResults_;
  }
  if (!isBusy()) Q_EMIT busyChanged(false);
}

}  // namespace libra::studio
