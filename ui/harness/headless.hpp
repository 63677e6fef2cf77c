// The command-line modes of libra-studio that need no user:
//   --export-chart FILE.png [--export-svg FILE.svg]   render the results and exit
//   --screenshot FILE.png [--window-size WxH|minimum]  grab the main window and exit
//   --measure-latency [--changes N] [--json]          slider-change-to-frame latency
//   --endurance SECONDS [--json]                      continuous edits; memory and solver
// They run on the offscreen platform (main() selects it before QApplication exists).
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <libra/project.hpp>
#include <optional>

namespace libra::studio {

struct StudioOptions {
  QString project;  // empty: the default bundled example
  QString example;  // a bundled example id instead of a file
  QString exportChart;
  QString exportSvg;
  QString exportPdf;
  QString exportCsv;
  QString exportJson;
  QString screenshot;
  // --window-size: the screenshot's window size; empty QSize for the minimum.
  std::optional<QSize> windowSize;
  bool measureLatency = false;
  int latencyChanges = 200;
  bool json = false;            // --measure-latency and --endurance print one JSON object
  double enduranceSeconds = 0;  // --endurance: edits for this long (endurance.hpp)
  int replayEdits = 0;          // interactive: the first N edits of the endurance run
  bool headless() const {
    return !exportChart.isEmpty() || !exportSvg.isEmpty() || !exportPdf.isEmpty() ||
           !exportCsv.isEmpty() || !exportJson.isEmpty() || !screenshot.isEmpty() ||
           measureLatency || enduranceSeconds > 0;
  }
};

// True when argv asks for a mode without a user: main() then selects the offscreen
// platform before creating the application.
bool argumentsWantHeadless(int argc, char** argv);

// Parses the arguments (QApplication must exist). On a usage error returns false
// with one line in `error`; `--help` and `--version` print and set `exitNow`.
bool parseStudioOptions(const QStringList& arguments, StudioOptions& options, QString& error,
                        bool& exitNow);

class MainWindow;
// Opens `project` in `window` at the default layout and waits for its first
// painted frame (20 s at most; false with the reason in `error`).
bool openWindowAndWait(MainWindow& window, const Project& project, QString& error);

// Drops the offscreen platform's harmless warnings (call before QApplication).
void installHeadlessMessageFilter();

// Runs the headless modes; returns the process exit code (0 ok, 1 no solution,
// 2 bad input).
int runHeadless(const StudioOptions& options);

}  // namespace libra::studio
