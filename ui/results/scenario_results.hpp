// The analyses of a project's scenarios, for the Pareto chart's overlay and the
// comparison table (issue 10, item 2).
//  - The active scenario is the explorer's: its results come from the
//    explorer's solver as they are delivered (the design first, then its front).
//  - The inactive ones are analyzed here, on the thread pool, one at a time,
//    with the options the explorer solves with (makeRequest), and kept while
//    the scenario stays as it was: an edit of the active scenario costs
//    nothing here, and a switch reuses what is known (the scenario that was
//    active keeps the explorer's result).
//  - A scenario whose content changed (an undo, a pasted network) keeps its
//    last result, marked not current, until the new one comes. A job whose
//    scenario is gone or changed is cancelled and abandoned: the GUI thread
//    never waits for one.
#pragma once

#include <QObject>
#include <atomic>
#include <libra/compare.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "solver_controller.hpp"

QT_BEGIN_NAMESPACE
template <typename T>
class QFutureWatcher;
QT_END_NAMESPACE

namespace libra::studio {

class Document;

class ScenarioResults : public QObject {
  Q_OBJECT

 public:
  // `explorerSolver` delivers the active scenario's results.
  ScenarioResults(Document* document, SolverController* explorerSolver, QObject* parent = nullptr);
  ~ScenarioResults() override;

  struct Entry {
    SolveResultPtr result;  // null until an analysis of this scenario is known
    bool current = false;   // the result is of the scenario as it is now
  };
  // Scenario `index` in the project's order (the active one included).
  Entry entry(std::size_t index) const;
  // Every scenario has a current result.
  bool allCurrent() const;
  // An inactive scenario is being analyzed.
  bool isBusy() const { return running_ != nullptr; }
  // The jobs started so far (tests: a switch must not solve again what is known).
  int startedJobs() const { return startedJobs_; }

  // The scenarios compared (the engine's compareAnalyzed) against the one
  // named `baseline` (empty: the first), from the results known, current or
  // not; nullopt while a scenario has no result yet. Throws InputError for a
  // baseline no scenario has.
  std::optional<Comparison> comparison(const std::string& baseline = {}) const;

  // Every job pauses this long first, as a slow solve would (tests).
  void setArtificialDelayMs(int ms) { artificialDelayMs_ = ms; }

 Q_SIGNALS:
  // A result came, or a scenario's result stopped being current.
  void changed();

 private:
  // A result and what it is of: a scenario's content at a number of front points.
  struct Known {
    Scenario scenario;
    int points = 0;
    SolveResultPtr result;
  };
  struct Job;

  const Known* find(const Scenario& scenario, int points) const;
  // After a change of the list of scenarios (or the front points): keeps what
  // is still of use, cancels what is not, starts what is missing.
  void refresh();
  void startNext();
  void abandonRunning();
  void onExplorerResult(const SolveResultPtr& result);
  void onJobFinished();
  void remember(const Scenario& scenario, int points, const SolveResultPtr& result);

  Document* document_;
  SolverController* explorerSolver_;
  quint64 firstGeneration_ = 0;  // the explorer's results of this document start here
  std::vector<Known> known_;
  std::map<std::string, SolveResultPtr> lastByName_;  // the newest result per scenario name
  SolveResultPtr active_;                             // the explorer's newest result
  std::unique_ptr<Job> running_;
  int startedJobs_ = 0;
  int artificialDelayMs_ = 0;
};

}  // namespace libra::studio
