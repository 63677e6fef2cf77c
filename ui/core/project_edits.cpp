#include "project_edits.hpp"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace libra::studio {

namespace {

QJsonObject uiStateOf(const Project& project) {
  if (project.uiState.empty()) return {};
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(project.uiState));
  return doc.isObject() ? doc.object() : QJsonObject{};
}

void setUiState(Project& project, const QJsonObject& state) {
  project.uiState = QJsonDocument(state).toJson(QJsonDocument::Compact).toStdString();
}

const QString kHiddenFronts = QStringLiteral("hidden_fronts");
const QString kBaseline = QStringLiteral("comparison_baseline");

}  // namespace

int paretoPointsOf(const Project& project) {
  const int points =
      uiStateOf(project).value(QStringLiteral("pareto_points")).toInt(kDefaultParetoPoints);
  return std::clamp(points, 2, 500);
}

void setParetoPoints(Project& project, int points) {
  QJsonObject state = uiStateOf(project);
  state[QStringLiteral("pareto_points")] = std::clamp(points, 2, 500);
  setUiState(project, state);
}

ParetoAxes paretoAxesOf(const Project& project) {
  const QJsonObject state = uiStateOf(project);
  return {state.value(QStringLiteral("pareto_log_cost")).toBool(false),
          state.value(QStringLiteral("pareto_log_time")).toBool(false)};
}

void setParetoAxes(Project& project, ParetoAxes axes) {
  QJsonObject state = uiStateOf(project);
  state[QStringLiteral("pareto_log_cost")] = axes.logCost;
  state[QStringLiteral("pareto_log_time")] = axes.logTime;
  setUiState(project, state);
}

QStringList hiddenFrontsOf(const Project& project) {
  QStringList names;
  for (const auto& v : uiStateOf(project).value(kHiddenFronts).toArray()) {
    if (v.isString() && !names.contains(v.toString())) names << v.toString();
  }
  return names;
}

void setHiddenFronts(Project& project, const QStringList& names) {
  QJsonObject state = uiStateOf(project);
  if (names.isEmpty()) {
    state.remove(kHiddenFronts);
  } else {
    state[kHiddenFronts] = QJsonArray::fromStringList(names);
  }
  setUiState(project, state);
}

QString comparisonBaselineOf(const Project& project) {
  return uiStateOf(project).value(kBaseline).toString();
}

void setComparisonBaseline(Project& project, const QString& name) {
  QJsonObject state = uiStateOf(project);
  if (name.isEmpty()) {
    state.remove(kBaseline);
  } else {
    state[kBaseline] = name;
  }
  setUiState(project, state);
}

void renameInComparison(Project& project, const QString& before, const QString& after) {
  QStringList hidden = hiddenFrontsOf(project);
  if (hidden.removeAll(before) > 0) {
    if (!after.isEmpty()) hidden << after;
    setHiddenFronts(project, hidden);
  }
  if (comparisonBaselineOf(project) == before) setComparisonBaseline(project, after);
}

}  // namespace libra::studio
