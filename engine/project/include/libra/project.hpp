// A Libra Studio project: everything needed to pose and solve one design problem.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libra/cost.hpp"
#include "libra/network.hpp"
#include "libra/presets.hpp"
#include "libra/problem.hpp"
#include "libra/workload.hpp"

namespace libra {

// What one scenario poses: a network, the workloads it trains, the model, the
// constraints and the objective; everything one solve needs.
struct Scenario {
  Network network;
  CostModel costModel;
  std::vector<Workload> workloads;       // weighted sum when there are several
  ModelOptions model;                    // training loop and collective model
  BlockLimits limits;                    // what the building blocks can be
  std::vector<std::string> constraints;  // expressions, see constraints.hpp
  Objective objective = Objective::Performance;
  CostScope costScope = CostScope::Network;  // what perf-per-cost and budgets count
  std::optional<double> npuPriceUsd;         // $ per NPU; overrides the device's list price

  bool operator==(const Scenario&) const = default;
};

struct NamedScenario {
  std::string name;
  Scenario scenario;

  bool operator==(const NamedScenario&) const = default;
};

// A project is a list of named scenarios (designs to compare), one of them
// active. The active scenario is the Project itself (its Scenario base): every
// function that poses, edits, solves or shows "the project" works on the
// active scenario, and the GUI edits it; the others wait in otherScenarios.
// Most projects have one scenario, unnamed (scenarioName empty, no others); a
// project of several gives each a unique, non-empty name (validateScenarioNames).
//
// The order of the scenarios is the order of otherScenarios with the active one
// inserted at activeScenario (0..otherScenarios.size()); scenarios() lists them.
struct Project : Scenario {
  std::string name;
  std::string scenarioName;                   // the active scenario's name
  std::vector<NamedScenario> otherScenarios;  // the inactive ones, in order
  std::size_t activeScenario = 0;             // the active one's position among all
  std::string uiState;  // opaque JSON text owned by the GUI (view state); may be empty

  bool operator==(const Project&) const = default;
};

// --- scenarios (engine/project/src/scenarios.cpp) ------------------------------------------

std::size_t scenarioCount(const Project& project);
// Every scenario in order, the active one at project.activeScenario.
std::vector<NamedScenario> scenarios(const Project& project);
std::vector<std::string> scenarioNames(const Project& project);
// The position of the scenario named `name`, nullopt when there is none.
std::optional<std::size_t> findScenario(const Project& project, std::string_view name);
// Throws InputError when the names break the rule above: a project of several
// scenarios with an empty (or blank) or repeated name, naming the position
// ("scenario 2: the name 'A' is already used by scenario 1"); also an
// activeScenario past the end.
void validateScenarioNames(const Project& project);
// Replaces the scenarios: `list` in order, list[active] active. Checks the
// names (validateScenarioNames) and leaves the project unchanged when they are
// bad. Throws InputError for an empty list or `active` past its end.
void setScenarios(Project& project, std::vector<NamedScenario> list, std::size_t active);
// Makes scenario `index` the active one (the others keep their order and
// content). Throws InputError when there is no such scenario.
void activateScenario(Project& project, std::size_t index);
// A copy of the project with scenario `index` active.
Project withActiveScenario(const Project& project, std::size_t index);
// Scenario `index` alone: a project of that one scenario, its name and the
// project's name kept, the others left out. What comparing every scenario of a
// project needs of each: copying the whole project for each made comparing n
// scenarios take n^2 memory (2.9 GB for 1,000).
Project scenarioAlone(const Project& project, std::size_t index);
// Adds a copy of the active scenario named `name` right after it and makes it
// the active one (the GUI's "Duplicate scenario"). An unnamed active scenario
// is first named freshScenarioName(). Throws InputError for a bad name.
void duplicateScenario(Project& project, const std::string& name);
void renameScenario(Project& project, std::size_t index, const std::string& name);
// Removes scenario `index`; when it was the active one, its successor (else
// its predecessor) becomes active. The last scenario cannot be removed.
void removeScenario(Project& project, std::size_t index);
// A name no scenario has: "Scenario 2", "Scenario 3", ... (counting from the
// number of scenarios plus one).
std::string freshScenarioName(const Project& project);

// Model settings a command line or a study sets for one run over the
// project's own (spec/cli.md: --chunks, --latency).
struct ModelOverrides {
  std::optional<ChunkSetting> chunks;
  std::optional<CostScope> costScope;  // --cost-scope
  std::optional<double> npuPriceUsd;   // --npu-price
  // Link latency in ns: empty keeps the project's, one value sets every
  // dimension, otherwise one value per dimension, innermost first.
  std::vector<double> latencyNs;
  std::optional<double> endpointDelayNs;  // --endpoint-delay, ns per message bundle

  bool empty() const {
    return !chunks && latencyNs.empty() && !costScope && !npuPriceUsd && !endpointDelayNs;
  }
};
// Applies `overrides` to `project` (a Project: its active scenario). Throws
// InputError naming the flag (--chunks, --latency) when a value does not fit: a
// latency that is negative or not finite, or a list whose length is neither 1
// nor the dimension count.
void applyModelOverrides(Scenario& project, const ModelOverrides& overrides);

// The price of one NPU for the system cost scope and where it comes from: the
// project's npu_price_usd, else the list price of the device its workloads were
// generated for (presets.hpp). nullopt when neither is known. Throws InputError
// when the workloads name devices of different prices.
struct NpuPrice {
  double usd = 0;
  std::string source;  // "npu_price_usd" or "list price of <device name> (<source>)"
};
std::optional<NpuPrice> npuPrice(const Scenario& project);
// What the NPUs add to every cost: N * npuPrice in the system cost scope, 0 in
// the network scope (Problem::fixedCostUsd). Throws InputError when the scope
// is system and no price is known, or the product is too large.
double npuCostUsd(const Scenario& project);

// The name a project's content suggests: its workloads (preset names, else the
// workload names, joined by " + ") on its network, "GPT-3 175B on a 4D network
// (Ring 4 x FC 8 x Ring 4 x Switch 32)".
std::string describedName(const Project& project);
// The naming rule of an edit from `before` to `after`: a project whose name was
// empty or its described name (nobody chose it) follows its content, so
// `after` gets its own described name; a name the user chose is kept.
void followDescribedName(const Project& before, Project& after);

// Validates a scenario (a Project: its active one) and compiles it.
// `extraConstraints` are added to its own. Throws InputError (or
// ConstraintError) naming what is wrong.
Problem buildProblem(const Scenario& project, std::span<const std::string> extraConstraints = {});
// The same with a time model given (its workloads are not read): the execution
// search's designs, from a tallied workload (buildTimeModel of a WorkloadTally).
Problem buildProblem(const Scenario& project, TimeModel time);

// Throws InputError for an invalid project: network, prices, workloads (layers,
// communicators, phase groups, weights) and constraints ("constraints[2]: ...")
// of every scenario, and the scenario names. In a project of several scenarios
// a message starts with the scenario's position in the file and its name:
// "scenarios[1] ('fast'): constraints[0]: ...".
void validateProject(const Project& project);

// A new project from a preset (moved here from presets.hpp: the presets are below
// the project).
struct ProjectOptions {
  std::string name;  // empty: describedName (project.hpp)
  // Recompute is realized by the generator (parallelism.recompute) with the
  // no-overlap loop, so that it also combines with ZeRO-3 correctly; see
  // docs/workloads.md section 5.
  TrainingLoop trainingLoop = TrainingLoop::NoOverlap;
  // The collective model of the project; and whether dimensions without a link
  // latency get their building block's default (defaultLinkLatencyNs).
  CollectiveModel collectives = defaultCollectiveModel();
  bool defaultLatencies = true;
  CostModel costModel = referenceCostModel();
  std::vector<std::string> constraints{"total == 500"};
  Objective objective = Objective::Performance;
  GeneratorOptions generator;
};

// `network` as a project of `options` holds it: with its building blocks'
// default link latencies where it has none (options.defaultLatencies).
Network projectNetwork(const Network& network, const ProjectOptions& options);

// A project holding the generated workload on `network` (for `libra new --preset`).
Project makeProject(const Preset& preset, const Parallelism& parallelism, const Device& device,
                    const Network& network, const ProjectOptions& options = {});

}  // namespace libra
