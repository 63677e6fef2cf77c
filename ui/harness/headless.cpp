#include "headless.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMouseEvent>
#include <QPixmap>
#include <QSlider>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <libra/display_text.hpp>
#include <libra/error.hpp>
#include <map>
#include <vector>

#include "budget_panel.hpp"
#include "charts.hpp"
#include "document.hpp"
#include "endurance.hpp"
#include "examples.hpp"
#include "explorer_controller.hpp"
#include "export.hpp"
#include "file_controller.hpp"
#include "format.hpp"
#include "main_window.hpp"
#include "results_view.hpp"
#include "trace.hpp"
#include "wait.hpp"

namespace libra::studio {

namespace {

void printLine(const QString& text) {
  std::fputs(text.toUtf8().constData(), stdout);
  std::fputc('\n', stdout);
}

int fail(const QString& message, int code = 2) {
  std::fprintf(stderr, "libra-studio: %s\n", message.toUtf8().constData());
  return code;
}

bool loadProject(const StudioOptions& options, Project& project, QString& error) {
  try {
    if (!options.project.isEmpty()) {
      project = Document::loadFile(options.project);
    } else {
      project = loadExample(options.example.isEmpty() ? defaultExampleId() : options.example);
    }
    return true;
  } catch (const std::exception& e) {
    error = toQString(e.what());
    return false;
  }
}

void printOptimum(const SolveResult& result) {
  const Analysis& a = result.a();
  printLine(QStringLiteral("status: ") + toQString(statusWord(a)));
  printLine(QStringLiteral("objective: ") + toQString(std::string(toString(a.objective))));
  if (!a.ok()) {
    printLine(QStringLiteral("message: ") + toQString(a.message));
    return;
  }
  const std::vector<std::string> names =
      a.problem ? a.problem->dimNames : std::vector<std::string>{};
  const Evaluation& e = a.design.eval;
  QStringList parts;
  for (std::size_t d = 0; d < a.design.bandwidth.size() && d < names.size(); ++d) {
    parts << shownName(names[d]) + QLatin1Char('=') + formatFixed(a.design.bandwidth[d], 3);
  }
  printLine(QStringLiteral("bandwidth_gbps: ") + parts.join(QLatin1Char(' ')));
  printLine(QStringLiteral("iteration_time_ns: ") + QString::number(e.iterationNs, 'g', 10));
  printLine(QStringLiteral("compute_time_ns: ") + QString::number(e.computeNs, 'g', 10));
  printLine(QStringLiteral("communication_time_ns: ") +
            QString::number(e.communicationNs, 'g', 10));
  printLine(QStringLiteral("network_cost_usd: ") + QString::number(e.costUsd, 'g', 10));
  printLine(QStringLiteral("summary: iteration %1, network cost %2, %3")
                .arg(formatTimeNs(e.iterationNs), formatCostUsd(e.costUsd),
                     formatSplit(names, a.design.bandwidth)));
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = p * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(rank);
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

int runExports(const StudioOptions& options, const Project& project) {
  SolveRequest request = makeRequest(project);
  request.generation = 1;
  const SolveResult result = runSolve(request);
  if (result.invalidInput) return fail(toQString(result.a().message));
  printOptimum(result);
  QString error;
  const QString heading = figureHeading(shownText(project.name, kDisplayTitleLimit), result);
  const std::pair<QString, FigureFormat> figures[] = {{options.exportChart, FigureFormat::Png},
                                                      {options.exportSvg, FigureFormat::Svg},
                                                      {options.exportPdf, FigureFormat::Pdf}};
  for (const auto& [path, defaultFormat] : figures) {
    if (path.isEmpty()) continue;
    const FigureFormat format = figureFormatFor(path).value_or(defaultFormat);
    if (!exportFigure(result, heading, path, format, &error)) return fail(error);
    printLine(QStringLiteral("wrote: ") + path);
  }
  if (!options.exportCsv.isEmpty()) {
    if (!writeFileAtomic(options.exportCsv, resultsCsv(result), &error)) return fail(error);
    printLine(QStringLiteral("wrote: ") + options.exportCsv);
  }
  if (!options.exportJson.isEmpty()) {
    if (!writeFileAtomic(options.exportJson, resultsJson(result), &error)) return fail(error);
    printLine(QStringLiteral("wrote: ") + options.exportJson);
  }
  return result.ok() ? 0 : 1;
}

int runScreenshot(const StudioOptions& options, const Project& project) {
  MainWindow window(nullptr, false);
  window.files()->setPromptsEnabled(false);
  QString error;
  if (!openWindowAndWait(window, project, error)) return fail(error, 1);
  if (options.windowSize) {
    // "minimum": the smallest size the layouts allow.
    window.resize(options.windowSize->isEmpty()
                      ? window.minimumSizeHint().expandedTo(window.minimumSize())
                      : *options.windowSize);
  }
  // Let the last layout and paint settle before grabbing.
  waitUntil([] { return false; }, 200);
  const QPixmap pixmap = window.grab();
  if (!pixmap.save(options.screenshot, "PNG"))
    return fail(QObject::tr("%1: cannot write the screenshot").arg(options.screenshot));
  if (const SolveResultPtr r = window.results()->shownResult()) printOptimum(*r);
  printLine(QStringLiteral("wrote: ") + options.screenshot);
  return 0;
}

// Slider change -> repainted Pareto chart, measured two ways:
//  - isolated: one change, wait for its frame, pause 50 ms, repeat;
//  - drag: changes every 16 ms (a 60 Hz pointer) with the slider held down; for
//    every frame that reaches the screen, the time since the change it shows.
// A left-button press (or release) on the slider's handle, sent through the
// application so that the window's event filters see it as a user's.
void pressHandle(QSlider* slider, bool press) {
  QStyleOptionSlider option;
  option.initFrom(slider);
  option.orientation = slider->orientation();
  option.minimum = slider->minimum();
  option.maximum = slider->maximum();
  option.sliderPosition = slider->sliderPosition();
  option.sliderValue = slider->value();
  option.singleStep = slider->singleStep();
  option.pageStep = slider->pageStep();
  option.upsideDown =
      slider->orientation() == Qt::Horizontal
          ? slider->invertedAppearance() != (slider->layoutDirection() == Qt::RightToLeft)
          : !slider->invertedAppearance();
  option.subControls = QStyle::SC_All;
  const QPointF at =
      slider->style()
          ->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, slider)
          .center();
  QMouseEvent event(press ? QEvent::MouseButtonPress : QEvent::MouseButtonRelease, at,
                    slider->mapToGlobal(at), Qt::LeftButton, press ? Qt::LeftButton : Qt::NoButton,
                    Qt::NoModifier);
  QApplication::sendEvent(slider, &event);
}

// What a latency run measured, and its report (text or JSON).
struct LatencyRun {
  std::vector<double> isolated, drag;  // ms from a change to its painted frame
  // ms from an isolated change to the frame of the project's own front (later
  // than `isolated` where a slow front comes coarse first: ExplorerController)
  std::vector<double> fullFront;
  double dragSeconds = 0, dragCpuMs = 0, settleMs = 0;
  std::size_t frontPoints = 0;
  int changes = 0;
  long long jobsStarted = 0, resultsDropped = 0;
};

void printLatency(const LatencyRun& r, const Project& project, bool json) {
  const std::vector<double>& isolated = r.isolated;
  const std::vector<double>& drag = r.drag;
  const double dragSeconds = r.dragSeconds, dragCpuMs = r.dragCpuMs, settle = r.settleMs;
  const std::size_t frontPoints = r.frontPoints;
  const int n = r.changes;
  const double dragFps = static_cast<double>(drag.size()) / std::max(dragSeconds, 1e-9);
  if (json) {
    QJsonObject o;
    o[QStringLiteral("project")] = toQString(project.name);
    o[QStringLiteral("dimensions")] = static_cast<int>(project.network.size());
    o[QStringLiteral("front_points")] = static_cast<int>(frontPoints);
    o[QStringLiteral("changes")] = n;
    o[QStringLiteral("isolated_median_ms")] = percentile(isolated, 0.5);
    o[QStringLiteral("isolated_p95_ms")] = percentile(isolated, 0.95);
    o[QStringLiteral("isolated_max_ms")] = percentile(isolated, 1.0);
    o[QStringLiteral("isolated_full_front_median_ms")] = percentile(r.fullFront, 0.5);
    o[QStringLiteral("isolated_full_front_p95_ms")] = percentile(r.fullFront, 0.95);
    o[QStringLiteral("drag_seconds")] = dragSeconds;
    o[QStringLiteral("drag_frames")] = static_cast<int>(drag.size());
    o[QStringLiteral("drag_fps")] = dragFps;
    o[QStringLiteral("drag_median_ms")] = percentile(drag, 0.5);
    o[QStringLiteral("drag_p95_ms")] = percentile(drag, 0.95);
    o[QStringLiteral("drag_max_ms")] = percentile(drag, 1.0);
    o[QStringLiteral("release_to_last_frame_ms")] = settle;
    o[QStringLiteral("drag_gui_cpu_ms_per_frame")] =
        dragCpuMs / std::max<double>(1.0, static_cast<double>(drag.size()));
    o[QStringLiteral("jobs_started")] = static_cast<qint64>(r.jobsStarted);
    o[QStringLiteral("results_dropped")] = static_cast<qint64>(r.resultsDropped);
    printLine(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented)).trimmed());
    return;
  }
  printLine(QStringLiteral("project: %1 (%2 dimensions, %3-point Pareto front)")
                .arg(shownName(project.name))
                .arg(project.network.size())
                .arg(frontPoints));
  printLine(QStringLiteral("isolated changes: %1, slider change -> painted chart: median %2 ms, "
                           "p95 %3 ms, max %4 ms")
                .arg(isolated.size())
                .arg(percentile(isolated, 0.5), 0, 'f', 2)
                .arg(percentile(isolated, 0.95), 0, 'f', 2)
                .arg(percentile(isolated, 1.0), 0, 'f', 2));
  printLine(QStringLiteral("  -> the project's own front painted: median %1 ms, p95 %2 ms")
                .arg(percentile(r.fullFront, 0.5), 0, 'f', 2)
                .arg(percentile(r.fullFront, 0.95), 0, 'f', 2));
  printLine(QStringLiteral("60 Hz drag: %1 changes in %2 s, %3 frames painted (%4 per s), change "
                           "-> frame: median %5 ms, "
                           "p95 %6 ms, max %7 ms; last change painted %8 ms after release")
                .arg(n)
                .arg(dragSeconds, 0, 'f', 2)
                .arg(drag.size())
                .arg(dragFps, 0, 'f', 1)
                .arg(percentile(drag, 0.5), 0, 'f', 2)
                .arg(percentile(drag, 0.95), 0, 'f', 2)
                .arg(percentile(drag, 1.0), 0, 'f', 2)
                .arg(settle, 0, 'f', 2));
  printLine(
      QStringLiteral("window thread: %1 ms of CPU per frame painted during the drag")
          .arg(dragCpuMs / std::max<double>(1.0, static_cast<double>(drag.size())), 0, 'f', 2));
  printLine(QStringLiteral("solver: %1 jobs started, %2 results dropped as stale")
                .arg(r.jobsStarted)
                .arg(r.resultsDropped));
}

// What the latency phases share: the widgets they drive and watch, one clock,
// and when each generation was asked for and painted.
struct LatencyProbe {
  ParetoChartView* chart;
  SolverController* solver;
  QSlider* slider;
  int base;
  int n;
  QElapsedTimer clock;
  std::map<quint64, qint64> changedAt;  // generation -> ns
  std::map<quint64, double> latencyOf;  // generation -> ms from its change to its frame
  std::map<quint64, qint64> paintedAt;  // generation -> ns when its first frame was painted
  std::vector<double> frameLatencies;

  LatencyProbe(ParetoChartView* c, SolverController* s, QSlider* sl, int changes)
      : chart(c), solver(s), slider(sl), base(sl->value()), n(changes) {}

  int valueFor(int i) const { return std::max(10, base - 150 + (i * 37) % 300); }

  // Moves the slider to `v` (or next to it, when it is there already) and notes
  // when; returns the generation it asked for.
  quint64 change(int v) {
    if (v == slider->value()) v += 1;
    const qint64 t0 = clock.nsecsElapsed();
    slider->setValue(v);
    const quint64 generation = solver->latestGeneration();
    changedAt[generation] = t0;
    return generation;
  }
};

// One change at a time: wait for its frame and for the project's own front
// (the solver idle, its last request painted), pause 50 ms, repeat.
bool measureIsolated(LatencyProbe& p, LatencyRun& run, QString& error) {
  for (int i = 0; i < p.n; ++i) {
    const quint64 generation = p.change(p.valueFor(i));
    const bool settled = waitUntil(
        [&] {
          return !p.solver->isBusy() && p.chart->paintedGenerations().contains(generation) &&
                 p.paintedAt.contains(p.solver->latestGeneration());
        },
        10000);
    if (!settled) {
      error = QObject::tr("change %1 was never painted").arg(i);
      return false;
    }
    run.isolated.push_back(p.latencyOf.at(generation));
    const qint64 full = p.paintedAt.at(p.solver->latestGeneration());
    run.fullFront.push_back(static_cast<double>(full - p.changedAt.at(generation)) / 1e6);
    waitUntil([] { return false; }, 50);
  }
  return true;
}

// A continuous drag: the mouse holds the slider's handle (a press on it, as
// the window sees one: the charts hold their axes) while the value moves 60
// times a second; then it lets go.
bool measureDrag(LatencyProbe& p, LatencyRun& run, QString& error) {
  pressHandle(p.slider, true);
  if (!p.slider->isSliderDown() || !p.chart->axesHeld()) {
    error = QObject::tr("the mouse press missed the slider's handle");
    return false;
  }
  int tick = 0;
  QTimer pointer;
  pointer.setTimerType(Qt::PreciseTimer);
  pointer.setInterval(16);
  quint64 lastGeneration = 0;
  qint64 dragStart = p.clock.nsecsElapsed();
  QObject::connect(&pointer, &QTimer::timeout, &pointer, [&] {
    lastGeneration = p.change(p.valueFor(tick + 7));
    if (++tick >= p.n) pointer.stop();
  });
  const double cpuAtStart = threadCpuMs();
  pointer.start();
  waitUntil([&] { return !pointer.isActive(); }, 60000);
  run.dragSeconds = static_cast<double>(p.clock.nsecsElapsed() - dragStart) / 1e9;
  run.dragCpuMs = threadCpuMs() - cpuAtStart;
  const qint64 released = p.clock.nsecsElapsed();
  pressHandle(p.slider, false);
  // Letting go asks for the project's own front of the same design (a drag's
  // fronts are coarse): its frame is the last change's final one.
  if (p.solver->latestGeneration() > lastGeneration)
    p.changedAt[p.solver->latestGeneration()] = p.changedAt.at(lastGeneration);
  // The end of the drag may ask for a finer front (a newer generation of the
  // same design): that one painted, the drag's last change is on screen.
  const auto paintedSince = [&](quint64 generation) {
    const QList<quint64>& painted = p.chart->paintedGenerations();
    return std::any_of(painted.begin(), painted.end(),
                       [generation](quint64 g) { return g >= generation; });
  };
  // The settled front (the release's finer one) is the one counted below.
  const quint64 settled = std::max(lastGeneration, p.solver->latestGeneration());
  if (!waitUntil([&] { return paintedSince(settled); }, 10000)) {
    error = QObject::tr("the last change of the drag was never painted");
    return false;
  }
  run.settleMs = static_cast<double>(p.clock.nsecsElapsed() - released) / 1e6;
  run.drag = p.frameLatencies;
  return true;
}

int runLatency(const StudioOptions& options, const Project& project) {
  MainWindow window(nullptr, false);
  window.files()->setPromptsEnabled(false);
  QString error;
  if (!openWindowAndWait(window, project, error)) return fail(error, 1);
  QSlider* slider = window.budgetPanel()->totalSlider();
  if (!slider->isEnabled())
    return fail(QObject::tr("the project has no total bandwidth budget to drag"));
  LatencyProbe p(window.results()->paretoChart(), window.explorer()->solver(), slider,
                 std::max(options.latencyChanges, 2));
  p.clock.start();
  // Timed in the paint itself: the end of the Pareto chart's paintEvent for that generation.
  QObject::connect(p.chart, &ResultChartView::framePainted, p.chart, [&p](quint64 generation) {
    p.paintedAt.try_emplace(generation, p.clock.nsecsElapsed());
    const auto it = p.changedAt.find(generation);
    if (it == p.changedAt.end()) return;
    const double ms = static_cast<double>(p.clock.nsecsElapsed() - it->second) / 1e6;
    p.latencyOf[generation] = ms;
    p.frameLatencies.push_back(ms);
  });

  LatencyRun run;
  if (!measureIsolated(p, run, error)) return fail(error, 1);
  p.frameLatencies.clear();
  if (!measureDrag(p, run, error)) return fail(error, 1);

  run.frontPoints =
      window.results()->shownFront() ? window.results()->shownFront()->a().front.points.size() : 0;
  run.changes = p.n;
  run.jobsStarted = p.solver->startedJobs();
  run.resultsDropped = p.solver->droppedResults();
  printLatency(run, project, options.json);
  window.document()->undoStack()->setClean();
  return 0;
}

}  // namespace

bool openWindowAndWait(MainWindow& window, const Project& project, QString& error) {
  window.document()->reset(project, QString());
  window.resize(1500, 940);
  window.show();
  const bool ok = waitUntil(
      [&] {
        const ResultsView* r = window.results();
        return r->shownGeneration() != 0 && !r->paretoChart()->paintedGenerations().isEmpty() &&
               r->paretoChart()->paintedGenerations().back() == r->shownGeneration();
      },
      20000);
  if (!ok) error = QObject::tr("no result within 20 s: %1").arg(window.statusLabel()->text());
  return ok;
}

bool argumentsWantHeadless(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const char* flag :
         {"--export-chart", "--export-svg", "--export-pdf", "--export-csv", "--export-json",
          "--screenshot", "--measure-latency", "--endurance", "--help", "-h", "--version", "-v"}) {
      const std::size_t len = std::strlen(flag);
      if (std::strncmp(argv[i], flag, len) == 0 && (argv[i][len] == '\0' || argv[i][len] == '='))
        return true;
    }
  }
  return false;
}

// The Studio's command line: its options and their help.
struct StudioCommandLine {
  QCommandLineParser parser;
  const QCommandLineOption exampleOpt{
      QStringLiteral("example"), QObject::tr("Open a bundled example instead: gpt3-4d or gpt3-3d."),
      QStringLiteral("ID")};
  const QCommandLineOption chartOpt{
      QStringLiteral("export-chart"),
      QObject::tr("Render the result charts to FILE (.png, .svg or .pdf) and exit."),
      QStringLiteral("FILE")};
  const QCommandLineOption svgOpt{QStringLiteral("export-svg"),
                                  QObject::tr("Also write the charts as SVG to FILE."),
                                  QStringLiteral("FILE")};
  const QCommandLineOption pdfOpt{QStringLiteral("export-pdf"),
                                  QObject::tr("Also write the charts as PDF to FILE."),
                                  QStringLiteral("FILE")};
  const QCommandLineOption csvOpt{QStringLiteral("export-csv"),
                                  QObject::tr("Write the results as CSV to FILE."),
                                  QStringLiteral("FILE")};
  const QCommandLineOption jsonOpt{QStringLiteral("export-json"),
                                   QObject::tr("Write the results as JSON to FILE."),
                                   QStringLiteral("FILE")};
  const QCommandLineOption shotOpt{
      QStringLiteral("screenshot"),
      QObject::tr("Render the main window offscreen to FILE (.png) and exit."),
      QStringLiteral("FILE")};
  const QCommandLineOption sizeOpt{
      QStringLiteral("window-size"),
      QObject::tr("With --screenshot: the window's size, WIDTHxHEIGHT or 'minimum' (default "
                  "1500x940)."),
      QStringLiteral("SIZE")};
  const QCommandLineOption latencyOpt{
      QStringLiteral("measure-latency"),
      QObject::tr("Measure slider change to repainted chart latency and exit.")};
  const QCommandLineOption changesOpt{
      QStringLiteral("changes"), QObject::tr("Slider changes for --measure-latency (default 200)."),
      QStringLiteral("N"), QStringLiteral("200")};
  const QCommandLineOption latencyJsonOpt{
      QStringLiteral("json"),
      QObject::tr("With --measure-latency or --endurance: print the measurement as one JSON "
                  "object (keys isolated_p95_ms, drag_p95_ms, drag_fps, ...; "
                  "rss_growth_after_warmup_kb, checkpoints_answered, ...).")};
  const QCommandLineOption enduranceOpt{
      QStringLiteral("endurance"),
      QObject::tr("Edit the project through the window's widgets for SECONDS after a warm-up "
                  "that fills the undo history, then report memory (resident set) and the "
                  "solver's state and exit; exit 1 when the memory grew beyond its bound or a "
                  "request went unanswered."),
      QStringLiteral("SECONDS")};
  const QCommandLineOption replayOpt{
      QStringLiteral("replay-edits"),
      QObject::tr("Open the window, then make the first N edits of the --endurance run through "
                  "its widgets and stay open (for testing crash recovery)."),
      QStringLiteral("N")};
  const QCommandLineOption helpOpt{parser.addHelpOption()};
  const QCommandLineOption versionOpt{parser.addVersionOption()};

  StudioCommandLine() {
    parser.setApplicationDescription(QObject::tr(
        "Libra Studio: explore the bandwidth split of multi-dimensional AI training networks.\n"
        "Without options it opens PROJECT (or the bundled 4D GPT-3 example) in a window."));
    parser.addPositionalArgument(QStringLiteral("project"),
                                 QObject::tr("Project file to open (.json)"),
                                 QStringLiteral("[PROJECT]"));
    parser.addOptions({exampleOpt, chartOpt, svgOpt, pdfOpt, csvOpt, jsonOpt, shotOpt, sizeOpt,
                       latencyOpt, changesOpt, latencyJsonOpt, enduranceOpt, replayOpt});
  }
};

namespace {

// The project file or bundled example to open; false with `error` when both
// are given or either is not one.
bool readProjectChoice(const StudioCommandLine& cl, StudioOptions& options, QString& error) {
  const QStringList positional = cl.parser.positionalArguments();
  if (positional.size() > 1) {
    error = QObject::tr("one project file at most, got %1: %2")
                .arg(positional.size())
                .arg(positional.join(QLatin1Char(' ')));
    return false;
  }
  if (!positional.isEmpty()) options.project = positional.front();
  options.example = cl.parser.value(cl.exampleOpt);
  if (!options.example.isEmpty()) {
    bool known = false;
    for (const ExampleInfo& e : bundledExamples()) known = known || e.id == options.example;
    if (!known) {
      error = QObject::tr("--example: unknown example '%1'").arg(options.example);
      return false;
    }
    if (!options.project.isEmpty()) {
      error = QObject::tr("give a project file or --example, not both");
      return false;
    }
  }
  return true;
}

// --window-size, WIDTHxHEIGHT or 'minimum', which goes with --screenshot.
bool readWindowSize(const StudioCommandLine& cl, StudioOptions& options, QString& error) {
  if (!cl.parser.isSet(cl.sizeOpt)) return true;
  const QString size = cl.parser.value(cl.sizeOpt);
  const QStringList parts = size.split(QLatin1Char('x'));
  bool w = false, h = false;
  if (size == QStringLiteral("minimum")) {
    options.windowSize = QSize(0, 0);
  } else if (parts.size() == 2) {
    options.windowSize = QSize(parts[0].toInt(&w), parts[1].toInt(&h));
  }
  if (!options.windowSize ||
      (size != QStringLiteral("minimum") &&
       (!w || !h || options.windowSize->width() < 1 || options.windowSize->height() < 1 ||
        options.windowSize->width() > 10000 || options.windowSize->height() > 10000))) {
    error = QObject::tr(
                "--window-size: '%1' is not WIDTHxHEIGHT (1 to 10000 each) or "
                "'minimum'")
                .arg(size);
    return false;
  }
  if (options.screenshot.isEmpty()) {
    error = QObject::tr("--window-size goes with --screenshot");
    return false;
  }
  return true;
}

// --measure-latency, --json, --endurance, --replay-edits and --changes.
bool readMeasurementOptions(const StudioCommandLine& cl, StudioOptions& options, QString& error) {
  const QCommandLineParser& parser = cl.parser;
  options.measureLatency = parser.isSet(cl.latencyOpt);
  options.json = parser.isSet(cl.latencyJsonOpt);
  bool ok = false;
  if (parser.isSet(cl.enduranceOpt)) {
    options.enduranceSeconds = parser.value(cl.enduranceOpt).toDouble(&ok);
    if (!ok || !(options.enduranceSeconds > 0) || options.enduranceSeconds > 86400) {
      error = QObject::tr("--endurance: '%1' is not a number of seconds between 0 and 86400")
                  .arg(parser.value(cl.enduranceOpt));
      return false;
    }
  }
  if (options.json && !options.measureLatency && options.enduranceSeconds <= 0) {
    error = QObject::tr(
        "--json goes with --measure-latency or --endurance (exports name their format)");
    return false;
  }
  if (parser.isSet(cl.replayOpt)) {
    options.replayEdits = parser.value(cl.replayOpt).toInt(&ok);
    if (!ok || options.replayEdits < 0) {
      error = QObject::tr("--replay-edits: '%1' is not a whole number >= 0")
                  .arg(parser.value(cl.replayOpt));
      return false;
    }
  }
  options.latencyChanges = parser.value(cl.changesOpt).toInt(&ok);
  if (!ok || options.latencyChanges < 2) {
    error =
        QObject::tr("--changes: '%1' is not a whole number >= 2").arg(parser.value(cl.changesOpt));
    return false;
  }
  return true;
}

}  // namespace

bool parseStudioOptions(const QStringList& arguments, StudioOptions& options, QString& error,
                        bool& exitNow) {
  exitNow = false;
  StudioCommandLine cl;
  QCommandLineParser& parser = cl.parser;
  if (!parser.parse(arguments)) {
    error = parser.errorText();
    return false;
  }
  if (parser.isSet(cl.helpOpt)) {
    printLine(parser.helpText());
    exitNow = true;
    return true;
  }
  if (parser.isSet(cl.versionOpt)) {
    printLine(QCoreApplication::applicationName() + QLatin1Char(' ') +
              QCoreApplication::applicationVersion());
    exitNow = true;
    return true;
  }
  if (!readProjectChoice(cl, options, error)) return false;
  options.exportChart = parser.value(cl.chartOpt);
  options.exportSvg = parser.value(cl.svgOpt);
  options.exportPdf = parser.value(cl.pdfOpt);
  options.exportCsv = parser.value(cl.csvOpt);
  options.exportJson = parser.value(cl.jsonOpt);
  options.screenshot = parser.value(cl.shotOpt);
  if (!readWindowSize(cl, options, error) || !readMeasurementOptions(cl, options, error))
    return false;
  if (!options.exportChart.isEmpty() && !figureFormatFor(options.exportChart)) {
    error =
        QObject::tr("--export-chart: '%1' must end in .png, .svg or .pdf").arg(options.exportChart);
    return false;
  }
  if (!options.project.isEmpty() && !QFileInfo(options.project).isFile()) {
    error = QObject::tr("%1: no such file").arg(options.project);
    return false;
  }
  return true;
}

void installHeadlessMessageFilter() {
  // Without a session the platform warns about a missing runtime directory and size
  // hints it cannot pass on: noise beside the one line a failing headless run prints.
  static QtMessageHandler previous = nullptr;
  previous = qInstallMessageHandler(
      [](QtMsgType type, const QMessageLogContext& context, const QString& message) {
        if (type == QtWarningMsg && (message.contains(QStringLiteral("propagateSizeHints")) ||
                                     message.contains(QStringLiteral("XDG_RUNTIME_DIR")))) {
          return;
        }
        if (previous) previous(type, context, message);
      });
}

int runHeadless(const StudioOptions& options) {
  Project project;
  QString error;
  if (!loadProject(options, project, error)) return fail(error);
  int code = 0;
  if (!options.exportChart.isEmpty() || !options.exportSvg.isEmpty() ||
      !options.exportPdf.isEmpty() || !options.exportCsv.isEmpty() ||
      !options.exportJson.isEmpty()) {
    code = runExports(options, project);
    if (code == 2) return code;
  }
  if (!options.screenshot.isEmpty()) {
    const int c = runScreenshot(options, project);
    if (c != 0) return c;
  }
  if (options.measureLatency) {
    const int c = runLatency(options, project);
    if (c != 0) return c;
  }
  if (options.enduranceSeconds > 0) {
    const int c = runEndurance(options, project);
    if (c != 0) return c;
  }
  return code;
}

}  // namespace libra::studio
