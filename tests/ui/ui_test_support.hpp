// Shared helpers of the GUI tests.
#pragma once

#include <QApplication>
#include <QImage>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <cmath>
#include <functional>
#include <libra/project.hpp>
#include <libra/solver.hpp>

#include "examples.hpp"

namespace libra::studio::test {

// Settings go to a throw-away folder of this test process, never the user's
// and never another test's: what one test (or an earlier run) left in the
// import dialog or the recent files must not decide what the next one sees.
// Call before anything creates a QSettings.
inline void isolateSettings() {
  static QTemporaryDir folder;
  QStandardPaths::setTestModeEnabled(true);
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, folder.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder.path());
  QApplication::setOrganizationName(QStringLiteral("LibraStudioTests"));
  QApplication::setApplicationName(QStringLiteral("libra-studio-tests"));
}

inline bool close(double a, double b, double relative = 1e-6) {
  return std::fabs(a - b) <= relative * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// Runs `action` and answers every message box that opens meanwhile with
// `answer` (e.g. a click on one of its buttons); returns what each box said
// (its text, a newline, its informative text), in order. A modal dialog never
// waits for a user.
inline QStringList answerMessageBoxes(const std::function<void()>& action,
                                      const std::function<void(QMessageBox*)>& answer) {
  QStringList seen;
  QList<QPointer<QMessageBox>> answered;
  QTimer poll;
  poll.setInterval(10);
  QObject::connect(&poll, &QTimer::timeout, [&] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box || answered.contains(QPointer<QMessageBox>(box))) return;
    answered << box;
    seen << box->text() + QLatin1Char('\n') + box->informativeText();
    answer(box);
  });
  poll.start();
  action();
  return seen;
}

// With LIBRA_TEST_SCREENSHOTS=DIR, saves `widget` as DIR/NAME.png for a person to
// look at (the tests check what they can in numbers; this is for the rest).
inline void saveScreenshot(const QImage& image, const QString& name) {
  const QString dir = qEnvironmentVariable("LIBRA_TEST_SCREENSHOTS");
  if (!dir.isEmpty()) image.save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}
inline void saveScreenshot(QWidget* widget, const QString& name) {
  if (qEnvironmentVariableIsSet("LIBRA_TEST_SCREENSHOTS"))
    saveScreenshot(widget->grab().toImage(), name);
}

// What the engine itself says for this project (the reference the charts must show).
inline Solution engineOptimum(const Project& project) {
  const Problem problem = buildProblem(project);
  return solve(problem, project.objective);
}

}  // namespace libra::studio::test
