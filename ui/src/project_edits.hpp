// The GUI's own part of a project: its view state, kept in Project::uiState (JSON
// text owned by the GUI). The edits of the project itself (dimensions, budgets,
// constraints) are the engine's, in libra/edits.hpp.
#pragma once

#include <libra/project.hpp>

namespace libra::studio {

// {"pareto_points": 50}. Unknown keys are kept.
inline constexpr int kDefaultParetoPoints = 50;
int paretoPointsOf(const Project& project);
void setParetoPoints(Project& project, int points);

}  // namespace libra::studio
