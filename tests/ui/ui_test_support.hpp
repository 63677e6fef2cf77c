// Shared helpers of the GUI tests.
#pragma once

#include <QApplication>
#include <QStandardPaths>
#include <cmath>
#include <libra/project.hpp>
#include <libra/solver.hpp>

#include "examples.hpp"

namespace libra::studio::test {

// Settings go to a throw-away test location, never the user's.
inline void isolateSettings() {
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName(QStringLiteral("LibraStudioTests"));
  QApplication::setApplicationName(QStringLiteral("libra-studio-tests"));
}

inline bool close(double a, double b, double relative = 1e-6) {
  return std::fabs(a - b) <= relative * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// What the engine itself says for this project (the reference the charts must show).
inline Solution engineOptimum(const Project& project) {
  const Problem problem = buildProblem(project);
  return solve(problem, project.objective);
}

}  // namespace libra::studio::test
