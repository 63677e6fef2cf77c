// The scenarios of a project in memory (project.hpp): order, the active one,
// the naming rule, and the edits the GUI will make (duplicate, rename, remove).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine_test_support.hpp"
#include "libra/edits.hpp"
#include "libra/project.hpp"

namespace libra {
namespace {

using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using test::thrownMessage;
using ::testing::HasSubstr;

// One AllReduce over a Ring(4) x Switch(2) network under `total == budget`.
Project budgetProject(double budget) {
  Network net;
  net.dims = {makeDim("chip", BuildingBlock::Ring, 4, "A"),
              makeDim("pod", BuildingBlock::Switch, 2, "B")};
  Workload w;
  w.name = "w";
  w.communicator = makeCommunicator({1, 1}, {1, 1}, {4, 2});
  w.layers = {
      makeLayer("L", makePhase(10), makePhase(20), makePhase(30, CollectiveType::AllReduce, 1e6))};
  return test::makeProject(net,
                           test::makeCostModel({{"A", CostLevel{2.0, std::nullopt, std::nullopt}},
                                                {"B", CostLevel{5.0, 7.0, 11.0}}}),
                           {w}, TrainingLoop::NoOverlap, {"total == " + test::exactNumber(budget)});
}

Scenario content(double budget) {
  return budgetProject(budget);
}

// Scenarios a (100), b (200, active), c (300).
Project threeScenarios() {
  Project p = budgetProject(0);
  p.name = "three";
  setScenarios(p, {{"a", content(100)}, {"b", content(200)}, {"c", content(300)}}, 1);
  return p;
}

std::vector<std::string> budgets(const Project& p) {
  std::vector<std::string> out;
  for (const NamedScenario& s : scenarios(p)) out.push_back(s.scenario.constraints.at(0));
  return out;
}

TEST(Scenarios, TheActiveOneIsTheProjectItself) {
  const Project p = threeScenarios();
  EXPECT_EQ(scenarioCount(p), 3u);
  EXPECT_EQ(scenarioNames(p), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(p.activeScenario, 1u);
  EXPECT_EQ(p.scenarioName, "b");
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 200"});
  EXPECT_EQ(budgets(p), (std::vector<std::string>{"total == 100", "total == 200", "total == 300"}));
  EXPECT_EQ(findScenario(p, "c"), 2u);
  EXPECT_EQ(findScenario(p, "d"), std::nullopt);
  // A project as every other part of the engine makes it: one unnamed scenario.
  const Project one = budgetProject(100);
  EXPECT_EQ(scenarioCount(one), 1u);
  EXPECT_EQ(scenarioNames(one), std::vector<std::string>{""});
  EXPECT_NO_THROW(validateScenarioNames(one));
}

TEST(Scenarios, ActivatingKeepsOrderAndContent) {
  Project p = threeScenarios();
  activateScenario(p, 2);
  EXPECT_EQ(p.scenarioName, "c");
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 300"});
  EXPECT_EQ(scenarioNames(p), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(budgets(p), (std::vector<std::string>{"total == 100", "total == 200", "total == 300"}));
  activateScenario(p, 0);
  EXPECT_EQ(p.scenarioName, "a");
  EXPECT_EQ(budgets(p), (std::vector<std::string>{"total == 100", "total == 200", "total == 300"}));
  activateScenario(p, 1);
  EXPECT_EQ(p, threeScenarios());
  EXPECT_EQ(thrownMessage<InputError>([&] { activateScenario(p, 3); }),
            "there is no scenario 4 (the project has 3)");
  const Project q = withActiveScenario(p, 2);
  EXPECT_EQ(q.scenarioName, "c");
  EXPECT_EQ(p.scenarioName, "b");
}

// An edit of "the project" edits the active scenario only.
TEST(Scenarios, EditsChangeTheActiveScenarioOnly) {
  Project p = threeScenarios();
  renameDimension(p, 1, "rack");
  EXPECT_EQ(p.network.dims[1].name, "rack");
  for (const NamedScenario& s : scenarios(p)) {
    EXPECT_EQ(s.scenario.network.dims[1].name, s.name == "b" ? "rack" : "pod") << s.name;
  }
}

TEST(Scenarios, DuplicateCopiesTheActiveOneAfterIt) {
  Project p = budgetProject(100);
  duplicateScenario(p, freshScenarioName(p));
  EXPECT_EQ(scenarioNames(p), (std::vector<std::string>{"Scenario 1", "Scenario 2"}));
  EXPECT_EQ(p.activeScenario, 1u);
  EXPECT_EQ(static_cast<const Scenario&>(p), content(100));
  EXPECT_EQ(scenarios(p)[0].scenario, content(100));

  Project q = threeScenarios();
  duplicateScenario(q, "b2");
  EXPECT_EQ(scenarioNames(q), (std::vector<std::string>{"a", "b", "b2", "c"}));
  EXPECT_EQ(q.scenarioName, "b2");
  EXPECT_EQ(q.constraints, std::vector<std::string>{"total == 200"});

  const Project before = q;
  EXPECT_EQ(thrownMessage<InputError>([&] { duplicateScenario(q, "a"); }),
            "another scenario is already named 'a'; scenario names must differ");
  EXPECT_EQ(thrownMessage<InputError>([&] { duplicateScenario(q, "  "); }),
            "scenario 4: the name is empty; in a project of several scenarios each has a name");
  EXPECT_EQ(q, before);
}

TEST(Scenarios, RenameKeepsNamesUniqueAndNonEmpty) {
  Project p = threeScenarios();
  renameScenario(p, 0, "first");
  renameScenario(p, 1, "second");
  EXPECT_EQ(scenarioNames(p), (std::vector<std::string>{"first", "second", "c"}));
  EXPECT_EQ(p.scenarioName, "second");
  EXPECT_EQ(thrownMessage<InputError>([&] { renameScenario(p, 2, "first"); }),
            "another scenario is already named 'first'; scenario names must differ");
  EXPECT_THAT(thrownMessage<InputError>([&] { renameScenario(p, 0, ""); }),
              HasSubstr("scenario 1: the name is empty"));
  EXPECT_EQ(scenarioNames(p), (std::vector<std::string>{"first", "second", "c"}));
  // A lone scenario may be unnamed, but not blank.
  Project one = budgetProject(1);
  renameScenario(one, 0, "named");
  renameScenario(one, 0, "");
  EXPECT_THAT(thrownMessage<InputError>([&] { renameScenario(one, 0, " \t"); }),
              HasSubstr("the name is empty"));
}

TEST(Scenarios, RemovingTheActiveOneActivatesItsSuccessor) {
  Project p = threeScenarios();
  removeScenario(p, 1);
  EXPECT_EQ(scenarioNames(p), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(p.scenarioName, "c");
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 300"});
  removeScenario(p, 1);  // the last one: its predecessor
  EXPECT_EQ(p.scenarioName, "a");
  EXPECT_EQ(p.constraints, std::vector<std::string>{"total == 100"});
  EXPECT_EQ(thrownMessage<InputError>([&] { removeScenario(p, 0); }),
            "the project's only scenario cannot be removed");

  Project q = threeScenarios();
  removeScenario(q, 0);  // before the active one: it stays active
  EXPECT_EQ(q.scenarioName, "b");
  EXPECT_EQ(q.activeScenario, 0u);
  EXPECT_EQ(budgets(q), (std::vector<std::string>{"total == 200", "total == 300"}));
}

TEST(Scenarios, SetScenariosChecksBeforeChanging) {
  Project p = threeScenarios();
  const Project before = p;
  EXPECT_EQ(thrownMessage<InputError>([&] { setScenarios(p, {}, 0); }),
            "a project has at least one scenario");
  EXPECT_EQ(thrownMessage<InputError>([&] {
              setScenarios(p, {{"x", content(1)}}, 1);
            }),
            "there is no scenario 2 to make active (1 given)");
  EXPECT_EQ(thrownMessage<InputError>([&] {
              setScenarios(p, {{"x", content(1)}, {"x", content(2)}}, 0);
            }),
            "scenario 2: the name 'x' is already used by scenario 1");
  EXPECT_EQ(thrownMessage<InputError>([&] {
              setScenarios(p, {{"", content(1)}, {"y", content(2)}}, 0);
            }),
            "scenario 1: the name is empty; in a project of several scenarios each has a name");
  EXPECT_EQ(p, before);

  p.activeScenario = 3;
  EXPECT_EQ(thrownMessage<InputError>([&] { validateScenarioNames(p); }),
            "the active scenario is number 4, but the project has 3");
}

TEST(Scenarios, FreshNamesAreUnused) {
  Project p = threeScenarios();
  EXPECT_EQ(freshScenarioName(p), "Scenario 4");
  renameScenario(p, 0, "Scenario 4");
  EXPECT_EQ(freshScenarioName(p), "Scenario 5");
}

// validateProject checks every scenario, and says which one is wrong.
TEST(Scenarios, ValidationNamesTheScenario) {
  Project p = threeScenarios();
  EXPECT_NO_THROW(validateProject(p));
  activateScenario(p, 2);
  p.constraints = {"bw[rack] <= 3"};
  activateScenario(p, 0);
  EXPECT_THAT(thrownMessage<InputError>([&] { validateProject(p); }),
              HasSubstr("scenarios[2] ('c'): constraints[0]: constraint 'bw[rack] <= 3'"));
  // The active scenario still builds: a solve of it does not depend on the others.
  EXPECT_NO_THROW((void)buildProblem(p));
}

}  // namespace
}  // namespace libra
