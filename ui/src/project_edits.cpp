#include "project_edits.hpp"

#include <QByteArray>
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

}  // namespace

int paretoPointsOf(const Project& project) {
  const int points =
      uiStateOf(project).value(QStringLiteral("pareto_points")).toInt(kDefaultParetoPoints);
  return std::clamp(points, 2, 500);
}

void setParetoPoints(Project& project, int points) {
  QJsonObject state = uiStateOf(project);
  state[QStringLiteral("pareto_points")] = std::clamp(points, 2, 500);
  project.uiState = QJsonDocument(state).toJson(QJsonDocument::Compact).toStdString();
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
  project.uiState = QJsonDocument(state).toJson(QJsonDocument::Compact).toStdString();
}

}  // namespace libra::studio
