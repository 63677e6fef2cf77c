// The results view paints a design together with its front when the front is
// due within a frame, and the design at once when fronts are slow. Split from
// the solver controller's tests because it needs the charts (the ThreadSanitizer
// tree builds only the controller core) and its premise is a frame's timing.
#include <QAbstractScrollArea>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTest>
#include <algorithm>
#include <libra/analysis.hpp>
#include <libra/edits.hpp>
#include <libra/project_io.hpp>
#include <map>
#include <memory>
#include <vector>

#include "charts.hpp"
#include "format.hpp"
#include "results_view.hpp"
#include "sensitivity_view.hpp"
#include "solver_controller.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

// Counts the paint events of the widgets it filters.
class PaintCounter : public QObject {
 public:
  explicit PaintCounter(std::map<QObject*, int>& counts) : counts_(counts) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Paint) ++counts_[watched];
    return false;
  }

 private:
  std::map<QObject*, int>& counts_;
};

// The start time of the last timer event of the GUI thread that was not
// `ignored`'s: ResultsView applies a result inside its frame timer's event, so
// the last timer event before a resultShown is where that frame began.
class TimerEventClock : public QObject {
 public:
  TimerEventClock(const QElapsedTimer& clock, const QObject* ignored)
      : clock_(clock), ignored_(ignored) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Timer && watched != ignored_) lastMs = clock_.elapsed();
    return false;
  }
  qint64 lastMs = -1;

 private:
  const QElapsedTimer& clock_;
  const QObject* ignored_;
};

template <typename T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? T{} : v[v.size() / 2];
}

class ResultsViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    test::isolateSettings();
    qRegisterMetaType<SolveResultPtr>();
  }

  // The sensitivity panel shows one rate where the two directions agree, and
  // both where the optimum sits on a kink: in LIBRA's ideal model a collective
  // takes the maximum over its dimensions, so a cap exactly at the uncapped
  // optimum's bandwidth is worth nothing for more and a finite rate for less.
  // No optimum is ever called "not an optimum", for either objective.
  void sensitivityShowsBothDirectionsWhereTheyDiffer() {
    Project project = loadProject(LIBRA_SOURCE_DIR "/resources/examples/gpt3-4d.json");
    project.model.collectives.chunks = ChunkSetting::ideal();
    auto rowsOf = [](const Project& p, Objective objective) {
      AnalysisOptions options;
      options.objective = objective;
      auto result = std::make_shared<SolveResult>();
      result->analysis = std::make_shared<const Analysis>(analyze(p, options));
      SensitivityView view;
      view.showResult(*result);
      return std::make_pair(view.rowTexts(), result->analysis);
    };
    const auto [smooth, optimum] = rowsOf(project, Objective::Performance);
    QVERIFY(optimum->sensitivity.computed);
    QVERIFY2(!smooth.first().contains(QStringLiteral("for less")), qPrintable(smooth.first()));
    project.constraints.push_back(
        "bw[pod] <= " + QString::number(optimum->design.bandwidth.back(), 'g', 17).toStdString());
    const auto [kinked, capped] = rowsOf(project, Objective::Performance);
    QVERIFY(capped->sensitivity.computed);
    QVERIFY2(kinked.last().contains(QStringLiteral(" for more, ")) &&
                 kinked.last().contains(QStringLiteral(" for less")),
             qPrintable(kinked.last()));
    const auto [perfPerCost, ppc] = rowsOf(project, Objective::PerfPerCost);
    QVERIFY2(ppc->sensitivity.computed, ppc->sensitivity.note.c_str());
    for (const QString& row : perfPerCost) {
      QVERIFY2(!row.contains(QStringLiteral("not an optimum")), qPrintable(row));
    }
  }

  // A design whose front follows within a few ms is painted with it, in one
  // frame (painting it alone first delayed the front by a whole repaint); a
  // design whose front is slow is shown at once, and the front follows.
  void aDesignWaitsForAFrontThatIsDue() {
    ResultsView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    std::vector<std::pair<quint64, bool>> shown;  // generation, complete
    connect(&view, &ResultsView::resultShown, this, [&](quint64 generation) {
      shown.emplace_back(generation, view.shownGeneration() == generation && !view.isMarkedStale());
    });
    const Project project = loadExample(QStringLiteral("gpt3-3d"));
    quint64 generation = 0;
    // Delivers a design, then its front `lagMs` later, as the controller does;
    // returns how long the front really came after its design (ms).
    auto deliver = [&](int lagMs) -> qint64 {
      SolveRequest request = makeRequest(project);
      request.generation = ++generation;
      SolveResultPtr design;
      const SolveResult complete = runSolve(request, nullptr, [&](SolveResult partial) {
        design = std::make_shared<const SolveResult>(std::move(partial));
      });
      if (!design || design->complete) return -1;
      view.setRequestedGeneration(request.generation);
      QElapsedTimer lag;
      lag.start();
      view.submitResult(design);
      QTest::qWait(lagMs);
      const qint64 lagged = lag.elapsed();
      view.submitResult(std::make_shared<const SolveResult>(complete));
      if (!QTest::qWaitFor([&] {
            return view.shownGeneration() == request.generation && !view.isMarkedStale();
          })) {
        return -1;
      }
      QTest::qWait(ResultsView::kMinFrameIntervalMs + 5);
      return lagged;
    };
    // Paints of each chart (its viewport gets them).
    std::map<QObject*, int> paints;
    PaintCounter counter(paints);
    for (QAbstractScrollArea* chart : std::initializer_list<QAbstractScrollArea*>{
             view.paretoChart(), view.bandwidthChart(), view.breakdownChart()}) {
      chart->viewport()->installEventFilter(&counter);
    }
    // The premise is a front that comes within the hold the view learned from
    // the one before. A 2 ms wait can take far longer on a loaded machine (or
    // under a sanitizer): such a try does not test the premise and is repeated.
    bool premiseHeld = false;
    for (int attempt = 0; attempt < 10 && !premiseHeld; ++attempt) {
      QVERIFY(deliver(2) >= 0);  // learns a fast front
      const qint64 hold = view.frontHoldMs();
      shown.clear();
      paints.clear();
      const qint64 lag = deliver(2);
      QVERIFY(lag >= 0);
      if (hold < 0 || lag + 1 >= hold) continue;  // the front came too late to be held for
      premiseHeld = true;
      QCOMPARE(shown.size(), std::size_t(1));  // one frame: the design with its front
      QVERIFY(shown.front().second);
      // Painted once each (QtCharts' deferred layout used to paint them twice).
      QCOMPARE(paints.size(), std::size_t(3));
      for (const auto& [chart, count] : paints) QCOMPARE(count, 1);
    }
    QVERIFY2(premiseHeld, "in ten tries no front came within the hold the view had learned");
    QVERIFY(deliver(40) >= 0);  // learns a slow front
    QCOMPARE(view.frontHoldMs(), qint64(-1));
    shown.clear();
    QVERIFY(deliver(40) >= 0);
    QCOMPARE(shown.size(), std::size_t(2));  // the design at once, then its front
    QVERIFY(!shown.front().second);
    QVERIFY(shown.back().second);
  }

  // Results that come faster than the display (every 5 ms) are painted at the
  // display's pace: the next frame starts 16 ms after the last one began, or as
  // soon as the GUI thread is free of it if that is later, not 33 ms after (the
  // frame timer once capped the live chart at 30 fps). The results are fed
  // straight into the view, so the pace is the view's own, not the solver's.
  // Only frames that leave the thread free within 1.5 intervals are judged (a
  // slower frame sets the pace itself, cap or not); a try on a machine too
  // loaded to give enough of them is repeated.
  void framesArePaintedAtTheDisplaysPace() {
    ResultsView view;
    view.resize(700, 450);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // A few designs of different totals, cycled, so that every frame draws new
    // data; short fronts, so that a frame's own work (under a sanitizer too)
    // leaves the timer to set the pace.
    constexpr int kFrontPoints = 10;
    const Project project = loadExample(QStringLiteral("gpt3-3d"));
    std::vector<SolveResult> solved;
    for (double total : {600.0, 700.0, 800.0, 900.0, 1000.0}) {
      Project p = project;
      setTotalBandwidth(p, total);
      SolveRequest request = makeRequest(p);
      request.options.paretoPoints = kFrontPoints;
      solved.push_back(runSolve(request));
      QVERIFY(solved.back().ok() && solved.back().complete);
    }
    constexpr qint64 kInterval = ResultsView::kMinFrameIntervalMs;
    quint64 generation = 0;
    QString tries;
    bool premiseHeld = false;
    for (int attempt = 0; attempt < 10 && !premiseHeld; ++attempt) {
      QElapsedTimer clock;
      QTimer feeder;
      feeder.setTimerType(Qt::PreciseTimer);
      feeder.setInterval(5);
      std::vector<qint64> fedAt;  // ms
      connect(&feeder, &QTimer::timeout, this, [&] {
        auto result = std::make_shared<SolveResult>(solved[generation % solved.size()]);
        result->generation = ++generation;
        view.setRequestedGeneration(result->generation);
        view.submitResult(result);
        fedAt.push_back(clock.elapsed());
      });
      struct Frame {
        qint64 started = -1, painted = -1;  // ms: its frame timer fired; its last chart painted
      };
      std::map<quint64, Frame> frames;
      TimerEventClock timerEvents(clock, &feeder);
      qApp->installEventFilter(&timerEvents);
      std::vector<QMetaObject::Connection> connections;
      connections.push_back(connect(&view, &ResultsView::resultShown, this, [&](quint64 shown) {
        frames[shown].started = timerEvents.lastMs;
      }));
      std::map<quint64, int> chartsPainted;
      for (ResultChartView* chart : std::initializer_list<ResultChartView*>{
               view.paretoChart(), view.bandwidthChart(), view.breakdownChart()}) {
        connections.push_back(
            connect(chart, &ResultChartView::framePainted, this, [&](quint64 painted) {
              if (++chartsPainted[painted] == 3) frames[painted].painted = clock.elapsed();
            }));
      }
      clock.start();
      feeder.start();
      QEventLoop loop;
      QTimer::singleShot(1000, &loop, &QEventLoop::quit);
      loop.exec();
      feeder.stop();
      qApp->removeEventFilter(&timerEvents);
      for (const QMetaObject::Connection& c : connections) disconnect(c);
      QTest::qWait(kInterval + 5);  // the last frame, out of the record

      // A frame keeps the GUI thread busy from its timer until the thread is free
      // again (the feeder's next tick, overdue by then): apply, paint, flush.
      // The next frame could start an interval after the first began, or when
      // the thread got free, whichever is later; its delay is how much later it
      // did. A 33 ms cap delays it by 33 - max(16, busy).
      constexpr qint64 kLight = kInterval * 3 / 2;
      std::vector<qint64> gaps, delays, busy;
      const Frame* previous = nullptr;
      qint64 previousFree = -1;
      for (const auto& [g, frame] : frames) {
        const auto next = std::lower_bound(fedAt.begin(), fedAt.end(), frame.painted);
        if (frame.started < 0 || frame.painted < 0 || next == fedAt.end()) {
          previous = nullptr;
          continue;
        }
        const qint64 free = *next;
        busy.push_back(free - frame.started);
        if (previous && previousFree - previous->started <= kLight) {
          gaps.push_back(frame.painted - previous->painted);
          delays.push_back(frame.started - std::max(previous->started + kInterval, previousFree));
        }
        previous = &frame;
        previousFree = free;
      }
      tries += QStringLiteral(
                   "[%1 frames, median busy %2 ms; %3 light pairs: median gap %4 ms, "
                   "median delay %5 ms] ")
                   .arg(busy.size())
                   .arg(median(busy))
                   .arg(gaps.size())
                   .arg(median(gaps))
                   .arg(median(delays));
      if (delays.size() < 10) continue;  // too loaded: the work set the pace
      premiseHeld = true;
      // Measured: 1 ms (3 ms under ASan, whose frames keep the thread busy for
      // ~23 ms); with a 33 ms cap, 18 ms (10 ms).
      QVERIFY2(median(delays) * 3 <= kInterval, qPrintable(tries));
    }
    QVERIFY2(premiseHeld, qPrintable(QStringLiteral("in ten tries too few frames left the GUI "
                                                    "thread the time to paint at 60 Hz: ") +
                                     tries));
    qInfo().noquote() << tries;
  }

  // During a drag the summary and the sensitivity are rewritten after a frame
  // is on screen, never inside one: their layout and paint cost as much as the
  // three charts, and written with a frame's result they held that frame back
  // (one frame in ten of a drag was late by their 8 ms). When no frame comes
  // (the view is not painted) they still catch up.
  void duringADragTheTextsFollowAfterTheFrame() {
    ResultsView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const Project project = loadExample(QStringLiteral("gpt3-3d"));
    quint64 generation = 0;
    auto solved = [&](double total) {
      Project p = project;
      setTotalBandwidth(p, total);
      SolveRequest request = makeRequest(p);
      request.options.paretoPoints = 8;
      request.generation = ++generation;
      return std::make_shared<const SolveResult>(runSolve(request));
    };
    auto timeOf = [](const SolveResultPtr& r) {
      return formatTimeNs(r->a().design.eval.iterationNs);
    };
    const SolveResultPtr first = solved(600);
    QVERIFY(first->ok() && first->complete);
    view.setRequestedGeneration(first->generation);
    view.showResultNow(first);
    QVERIFY(view.summaryText().contains(timeOf(first)));

    view.setAxesHeld(true);
    QTest::qWait(ResultsView::kHeldTextIntervalMs + 10);  // the texts are due
    const SolveResultPtr second = solved(900);
    QVERIFY(second->ok() && timeOf(second) != timeOf(first));
    QString summaryInFrame;
    const auto inFrame = connect(&view, &ResultsView::resultShown, this, [&](quint64 shown) {
      if (shown == second->generation) summaryInFrame = view.summaryText();
    });
    view.setRequestedGeneration(second->generation);
    view.submitResult(second);
    QTRY_VERIFY(view.paretoChart()->paintedGenerations().contains(second->generation));
    disconnect(inFrame);
    QVERIFY2(summaryInFrame.contains(timeOf(first)), qPrintable(summaryInFrame));
    QTRY_VERIFY2(view.summaryText().contains(timeOf(second)), qPrintable(view.summaryText()));

    // Not painted at all: the timer writes them.
    view.hide();
    QTest::qWait(ResultsView::kHeldTextIntervalMs + 10);
    const SolveResultPtr third = solved(750);
    view.setRequestedGeneration(third->generation);
    view.submitResult(third);
    QTRY_VERIFY_WITH_TIMEOUT(view.shownGeneration() == third->generation, 2000);
    QVERIFY(!view.paretoChart()->paintedGenerations().contains(third->generation));
    QTRY_VERIFY_WITH_TIMEOUT(view.summaryText().contains(timeOf(third)), 2000);
  }
};

QTEST_MAIN(ResultsViewTest)
#include "test_results_view.moc"
