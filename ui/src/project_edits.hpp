// The GUI's own part of a project: its view state, kept in Project::uiState (JSON
// text owned by the GUI). The edits of the project itself (dimensions, budgets,
// constraints) are the engine's, in libra/edits.hpp.
#pragma once

#include <libra/project.hpp>

namespace libra::studio {

// {"pareto_points": 50}. Unknown keys are kept by every setter.
inline constexpr int kDefaultParetoPoints = 50;
int paretoPointsOf(const Project& project);
void setParetoPoints(Project& project, int points);

// The Pareto chart's axes: {"pareto_log_cost": true, "pareto_log_time": false}
// (absent: linear).
struct ParetoAxes {
  bool logCost = false;
  bool logTime = false;
  bool operator==(const ParetoAxes&) const = default;
};
ParetoAxes paretoAxesOf(const Project& project);
void setParetoAxes(Project& project, ParetoAxes axes);

}  // namespace libra::studio
