// The GUI's own part of a project: its view state, kept in Project::uiState (JSON
// text owned by the GUI). The edits of the project itself (dimensions, budgets,
// constraints) are the engine's, in libra/edits.hpp.
#pragma once

#include <QString>
#include <QStringList>
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

// A comparison as the user set it up, saved with the project: the scenarios
// whose fronts the Pareto chart does not overlay, {"hidden_fronts": ["Value"]}
// (absent: every front), and the comparison's baseline scenario,
// {"comparison_baseline": "Wide"} (absent or empty: the first).
QStringList hiddenFrontsOf(const Project& project);
void setHiddenFronts(Project& project, const QStringList& names);
QString comparisonBaselineOf(const Project& project);
void setComparisonBaseline(Project& project, const QString& name);
// Both follow a scenario renamed from `before` to `after`, and forget one that
// is removed (`after` empty).
void renameInComparison(Project& project, const QString& before, const QString& after);

}  // namespace libra::studio
