// libra-studio: the live design-space explorer. Thin entry point; everything
// lives in the GUI libraries under ui/.
#include <QApplication>
#include <QIcon>
#include <QTimer>
#include <clocale>
#include <cstdio>

#include "autosave.hpp"
#include "edit_driver.hpp"
#include "file_controller.hpp"
#include "headless.hpp"
#include "main_window.hpp"

int main(int argc, char** argv) {
  using namespace libra::studio;
  // Rendering without a user must work without any display: pick the offscreen
  // platform before QApplication looks for one.
  const bool noDisplay =
      qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
  const bool headless = argumentsWantHeadless(argc, argv);
  const bool platformChosen = !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
  if (headless || (noDisplay && !platformChosen)) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    installHeadlessMessageFilter();
  }

  QApplication app(argc, argv);
  // QApplication sets the C library's locale from the environment, so under
  // LC_ALL=de_DE printf and strtod use a decimal comma; the engine's messages
  // and the files it writes (ASTRA-sim exports) must not. Qt's QCoreApplication
  // documentation ("Locale Settings") prescribes this call.
  std::setlocale(LC_NUMERIC, "C");
  QApplication::setOrganizationName(QStringLiteral("LibraStudio"));
  QApplication::setApplicationName(QStringLiteral("libra-studio"));
  QApplication::setApplicationDisplayName(QStringLiteral("Libra Studio"));
  QApplication::setApplicationVersion(QStringLiteral(LIBRA_STUDIO_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("io.github.libra_studio.LibraStudio"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/libra-studio.svg")));

  StudioOptions options;
  QString error;
  bool exitNow = false;
  if (!parseStudioOptions(QApplication::arguments(), options, error, exitNow)) {
    std::fprintf(stderr, "libra-studio: %s\n", error.toUtf8().constData());
    return 2;
  }
  if (exitNow) return 0;
  if (options.headless()) return runHeadless(options);
  if (noDisplay && !platformChosen) {
    std::fprintf(
        stderr,
        "libra-studio: no display (DISPLAY and WAYLAND_DISPLAY are unset); use --export-chart, "
        "--screenshot or --measure-latency to run without one\n");
    return 2;
  }

  MainWindow window;
  // No lost work: autosave to the per-user recovery folder; after a crash the
  // recovery files of instances that are gone are offered once the window shows.
  window.enableAutosave(AutosaveController::defaultDirectory());
  QString message;
  if (!options.project.isEmpty()) {
    window.show();
    window.files()->open(options.project);
  } else {
    window.files()->openExample(
        options.example.isEmpty() ? QStringLiteral("gpt3-4d") : options.example, &message);
    window.show();
  }
  QTimer::singleShot(0, &window, [&window, replay = options.replayEdits] {
    window.autosave()->offerRecovery(&window);
    if (replay > 0) EditDriver(&window).applyFirst(replay);
  });
  return QApplication::exec();
}
