#include "scenario_results.hpp"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "document.hpp"
#include "format.hpp"
#include "project_edits.hpp"

namespace libra::studio {

namespace {

const Scenario& contentOf(const Project& project) {
  return project;  // the active scenario is the Project's Scenario base
}

}  // namespace

struct ScenarioResults::Job {
  Scenario scenario;
  int points = 0;
  std::string name;
  std::shared_ptr<std::atomic<bool>> cancel;
  QFutureWatcher<SolveResultPtr>* watcher = nullptr;  // owned by the ScenarioResults
};

ScenarioResults::ScenarioResults(Document* document, SolverController* explorerSolver,
                                 QObject* parent)
    : QObject(parent), document_(document), explorerSolver_(explorerSolver) {
  connect(explorerSolver, &SolverController::resultReady, this, &ScenarioResults::onExplorerResult);
  // Another project: nothing known is of it (its scenarios may have the same names).
  connect(document_, &Document::documentReset, this, [this] {
    abandonRunning();
    known_.clear();
    lastByName_.clear();
    active_.reset();
    firstGeneration_ = explorerSolver_->latestGeneration() + 1;  // older solves are of the old one
  });
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    // Only a change of the list (a switch, an undo of one) or of the front's
    // points changes an inactive scenario; any edit changes the active one.
    if (parts & (Document::Scenarios | Document::ViewState)) refresh();
    Q_EMIT changed();
  });
  refresh();
}

ScenarioResults::~ScenarioResults() {
  abandonRunning();
}

const ScenarioResults::Known* ScenarioResults::find(const Scenario& scenario, int points) const {
  for (const Known& k : known_) {
    if (k.points == points && k.scenario == scenario) return &k;
  }
  return nullptr;
}

ScenarioResults::Entry ScenarioResults::entry(std::size_t index) const {
  const Project& project = document_->project();
  const int points = paretoPointsOf(project);
  const bool active = index == project.activeScenario;
  const NamedScenario* other = nullptr;
  if (!active) {
    const std::size_t k = index < project.activeScenario ? index : index - 1;
    if (k >= project.otherScenarios.size()) return {};
    other = &project.otherScenarios[k];
  }
  const Scenario& content = active ? contentOf(project) : other->scenario;
  const std::string& name = active ? project.scenarioName : other->name;
  // The active scenario's design is current as soon as the explorer has it,
  // before its front.
  if (active && active_ && active_->project && contentOf(*active_->project) == content)
    return {active_, true};
  if (const Known* k = find(content, points)) return {k->result, true};
  const auto last = lastByName_.find(name);
  return {last == lastByName_.end() ? nullptr : last->second, false};
}

bool ScenarioResults::allCurrent() const {
  const std::size_t count = scenarioCount(document_->project());
  for (std::size_t i = 0; i < count; ++i) {
    if (!entry(i).current) return false;
  }
  return true;
}

std::optional<Comparison> ScenarioResults::comparison(const std::string& baseline) const {
  const Project& project = document_->project();
  std::vector<DesignInput> inputs = scenarioDesigns(project, toStd(document_->filePath()));
  std::vector<DesignComparison> designs;
  designs.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Entry e = entry(i);
    if (!e.result) return std::nullopt;
    DesignComparison d;
    d.input = std::move(inputs[i]);
    d.analysis = e.result->a();
    d.refused = e.result->invalidInput;
    designs.push_back(std::move(d));
  }
  return compareAnalyzed(std::move(designs), baseline);
}

void ScenarioResults::remember(const Scenario& scenario, int points, const SolveResultPtr& result) {
  if (!find(scenario, points)) known_.push_back({scenario, points, result});
}

void ScenarioResults::refresh() {
  const Project& project = document_->project();
  const int points = paretoPointsOf(project);
  // The scenario that was active keeps the explorer's result (once its front is in).
  if (active_ && active_->complete && active_->project && active_->frontPoints == points) {
    for (const NamedScenario& s : project.otherScenarios) {
      if (s.scenario == contentOf(*active_->project)) {
        remember(s.scenario, points, active_);
        break;
      }
    }
  }
  // Forget what no scenario is any more (an edited scenario's old content).
  auto inUse = [&](const Known& k) {
    if (k.points != points) return false;
    if (k.scenario == contentOf(project)) return true;
    return std::any_of(project.otherScenarios.begin(), project.otherScenarios.end(),
                       [&](const NamedScenario& s) { return s.scenario == k.scenario; });
  };
  known_.erase(
      std::remove_if(known_.begin(), known_.end(), [&](const Known& k) { return !inUse(k); }),
      known_.end());
  if (running_) {
    const bool wanted =
        running_->points == points &&
        std::any_of(project.otherScenarios.begin(), project.otherScenarios.end(),
                    [&](const NamedScenario& s) { return s.scenario == running_->scenario; });
    if (!wanted) abandonRunning();
  }
  startNext();
}

void ScenarioResults::startNext() {
  if (running_) return;
  const Project& project = document_->project();
  const int points = paretoPointsOf(project);
  const std::size_t count = scenarioCount(project);
  for (std::size_t i = 0; i < count; ++i) {
    if (i == project.activeScenario) continue;
    const NamedScenario& s = project.otherScenarios[i < project.activeScenario ? i : i - 1];
    if (find(s.scenario, points)) continue;
    // Copied here (cheap: the workloads are shared); posed and solved on the pool.
    SolveRequest request = makeRequest(withActiveScenario(project, i));
    request.generation = static_cast<quint64>(++startedJobs_);
    request.artificialDelayMs = artificialDelayMs_;
    auto job = std::make_unique<Job>();
    job->scenario = s.scenario;
    job->points = points;
    job->name = s.name;
    job->cancel = std::make_shared<std::atomic<bool>>(false);
    job->watcher = new QFutureWatcher<SolveResultPtr>(this);
    connect(job->watcher, &QFutureWatcher<SolveResultPtr>::finished, this,
            &ScenarioResults::onJobFinished);
    job->watcher->setFuture(
        QtConcurrent::run([request = std::move(request), cancel = job->cancel]() -> SolveResultPtr {
          return std::make_shared<const SolveResult>(runSolve(request, cancel.get()));
        }));
    running_ = std::move(job);
    return;
  }
}

void ScenarioResults::abandonRunning() {
  if (!running_) return;
  // The job holds only its own snapshot; it winds down on its own.
  running_->cancel->store(true);
  running_->watcher->disconnect(this);
  running_->watcher->deleteLater();
  running_.reset();
}

void ScenarioResults::onJobFinished() {
  if (!running_) return;
  const SolveResultPtr result = running_->watcher->result();
  running_->watcher->deleteLater();
  const std::unique_ptr<Job> job = std::move(running_);
  if (result && result->a().status != SolveStatus::Cancelled) {
    remember(job->scenario, job->points, result);
    lastByName_[job->name] = result;
    Q_EMIT changed();
  }
  startNext();
}

void ScenarioResults::onExplorerResult(const SolveResultPtr& result) {
  if (!result || !result->project) return;
  // A solve of the project that was open before (its result may still come).
  if (result->generation < firstGeneration_) return;
  active_ = result;
  lastByName_[result->project->scenarioName] = result;
  // A solve that was running when its scenario was made inactive: its result
  // is that scenario's.
  const Project& project = document_->project();
  const int points = paretoPointsOf(project);
  if (result->complete && result->frontPoints == points) {
    const Scenario& content = contentOf(*result->project);
    for (const NamedScenario& s : project.otherScenarios) {
      if (s.scenario != content) continue;
      remember(s.scenario, points, result);
      if (running_ && running_->scenario == content) {
        abandonRunning();
        startNext();
      }
      break;
    }
  }
  Q_EMIT changed();
}

}  // namespace libra::studio
