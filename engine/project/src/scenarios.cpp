// The scenarios of a project: the active one is the Project's Scenario base, the
// others wait in otherScenarios (project.hpp). These functions keep that layout
// and the naming rule; none of them looks inside a scenario.
#include <algorithm>
#include <utility>

#include "libra/error.hpp"
#include "libra/project.hpp"
#include "text.hpp"

namespace libra {

namespace {

// The naming rule over the names in order: a lone scenario may be unnamed;
// otherwise every name is non-blank and unique. Positions in messages count from 1.
void checkNames(const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const std::string where = "scenario " + std::to_string(i + 1);
    if (name.empty() && names.size() == 1) continue;
    if (text::trim(name).empty()) {
      throw InputError(where +
                       ": the name is empty; in a project of several scenarios each "
                       "has a name");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (names[j] == name) {
        throw InputError(where + ": the name " + text::quotedName(name) +
                         " is already used by scenario " + std::to_string(j + 1));
      }
    }
  }
}

// A name given to one scenario (renamed, added) against the others': the
// clash named by the name, as the user sees the scenarios.
void checkFreeName(const std::vector<std::string>& others, const std::string& name) {
  if (std::find(others.begin(), others.end(), name) != others.end() && !text::trim(name).empty()) {
    throw InputError("another scenario is already named " + text::quotedName(name) +
                     "; scenario names must differ");
  }
}

void checkIndex(const Project& project, std::size_t index) {
  const std::size_t count = scenarioCount(project);
  if (index >= count) {
    throw InputError("there is no scenario " + std::to_string(index + 1) + " (the project has " +
                     std::to_string(count) + ")");
  }
}

// Moves every scenario out of the project, in order.
std::vector<NamedScenario> take(Project& project) {
  std::vector<NamedScenario> list = std::move(project.otherScenarios);
  project.otherScenarios.clear();
  const std::size_t at = std::min(project.activeScenario, list.size());
  list.insert(
      list.begin() + static_cast<std::ptrdiff_t>(at),
      NamedScenario{std::move(project.scenarioName), std::move(static_cast<Scenario&>(project))});
  return list;
}

// Moves `list` into the project with list[active] active; no checks.
void put(Project& project, std::vector<NamedScenario>&& list, std::size_t active) {
  NamedScenario& chosen = list[active];
  static_cast<Scenario&>(project) = std::move(chosen.scenario);
  project.scenarioName = std::move(chosen.name);
  list.erase(list.begin() + static_cast<std::ptrdiff_t>(active));
  project.otherScenarios = std::move(list);
  project.activeScenario = active;
}

}  // namespace

std::size_t scenarioCount(const Project& project) {
  return project.otherScenarios.size() + 1;
}

std::vector<NamedScenario> scenarios(const Project& project) {
  std::vector<NamedScenario> list = project.otherScenarios;
  const std::size_t at = std::min(project.activeScenario, list.size());
  list.insert(list.begin() + static_cast<std::ptrdiff_t>(at),
              NamedScenario{project.scenarioName, static_cast<const Scenario&>(project)});
  return list;
}

std::vector<std::string> scenarioNames(const Project& project) {
  std::vector<std::string> names;
  for (const NamedScenario& s : project.otherScenarios) names.push_back(s.name);
  const std::size_t at = std::min(project.activeScenario, names.size());
  names.insert(names.begin() + static_cast<std::ptrdiff_t>(at), project.scenarioName);
  return names;
}

std::optional<std::size_t> findScenario(const Project& project, std::string_view name) {
  const std::vector<std::string> names = scenarioNames(project);
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<std::size_t>(it - names.begin());
}

void validateScenarioNames(const Project& project) {
  if (project.activeScenario > project.otherScenarios.size()) {
    throw InputError("the active scenario is number " + std::to_string(project.activeScenario + 1) +
                     ", but the project has " + std::to_string(scenarioCount(project)));
  }
  checkNames(scenarioNames(project));
}

void setScenarios(Project& project, std::vector<NamedScenario> list, std::size_t active) {
  if (list.empty()) throw InputError("a project has at least one scenario");
  if (active >= list.size()) {
    throw InputError("there is no scenario " + std::to_string(active + 1) + " to make active (" +
                     std::to_string(list.size()) + " given)");
  }
  std::vector<std::string> names;
  names.reserve(list.size());
  for (const NamedScenario& s : list) names.push_back(s.name);
  checkNames(names);
  put(project, std::move(list), active);
}

void activateScenario(Project& project, std::size_t index) {
  checkIndex(project, index);
  if (index == project.activeScenario) return;
  put(project, take(project), index);
}

Project withActiveScenario(const Project& project, std::size_t index) {
  Project copy = project;
  activateScenario(copy, index);
  return copy;
}

Project scenarioAlone(const Project& project, std::size_t index) {
  if (index >= scenarioCount(project)) {
    throw InputError("scenario " + std::to_string(index + 1) + ": the project has " +
                     std::to_string(scenarioCount(project)) + " scenarios");
  }
  Project out;
  out.name = project.name;
  if (index == project.activeScenario) {
    static_cast<Scenario&>(out) = project;
    out.scenarioName = project.scenarioName;
  } else {
    const NamedScenario& other =
        project.otherScenarios[index < project.activeScenario ? index : index - 1];
    static_cast<Scenario&>(out) = other.scenario;
    out.scenarioName = other.name;
  }
  return out;
}

void duplicateScenario(Project& project, const std::string& name) {
  std::vector<std::string> names = scenarioNames(project);
  const std::size_t at = project.activeScenario;
  const std::string original = names[at].empty() ? std::string("Scenario 1") : names[at];
  names[at] = original;
  checkFreeName(names, name);
  names.insert(names.begin() + static_cast<std::ptrdiff_t>(at) + 1, name);
  checkNames(names);
  std::vector<NamedScenario> list = take(project);
  list[at].name = original;
  NamedScenario copy = list[at];
  copy.name = name;
  list.insert(list.begin() + static_cast<std::ptrdiff_t>(at) + 1, std::move(copy));
  put(project, std::move(list), at + 1);
}

void renameScenario(Project& project, std::size_t index, const std::string& name) {
  checkIndex(project, index);
  std::vector<std::string> names = scenarioNames(project);
  std::vector<std::string> others = names;
  others.erase(others.begin() + static_cast<std::ptrdiff_t>(index));
  checkFreeName(others, name);
  names[index] = name;
  checkNames(names);
  if (index == project.activeScenario) {
    project.scenarioName = name;
  } else {
    project.otherScenarios[index < project.activeScenario ? index : index - 1].name = name;
  }
}

void removeScenario(Project& project, std::size_t index) {
  checkIndex(project, index);
  if (scenarioCount(project) == 1) {
    throw InputError("the project's only scenario cannot be removed");
  }
  std::size_t active = project.activeScenario;
  std::vector<NamedScenario> list = take(project);
  list.erase(list.begin() + static_cast<std::ptrdiff_t>(index));
  if (index < active) --active;
  active = std::min(active, list.size() - 1);
  put(project, std::move(list), active);
}

std::string freshScenarioName(const Project& project) {
  const std::vector<std::string> names = scenarioNames(project);
  for (std::size_t k = names.size() + 1;; ++k) {
    std::string name = "Scenario " + std::to_string(k);
    if (std::find(names.begin(), names.end(), name) == names.end()) return name;
  }
}

}  // namespace libra
