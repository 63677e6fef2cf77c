// The latest-wins solver controller: one job runs and one waits, nothing older
// than what was delivered is delivered, the design comes before its front,
// failures are results, a slow drag still reaches the screen, the GUI thread
// never waits.
#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <libra/edits.hpp>
#include <utility>
#include <vector>

#include "project_edits.hpp"
#include "solver_controller.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

namespace {

SolveResultPtr resultAt(const QSignalSpy& spy, int i) {
  return spy.at(i).front().value<SolveResultPtr>();
}

}  // namespace

class SolverControllerTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    test::isolateSettings();
    qRegisterMetaType<SolveResultPtr>();
  }

  void aBurstDeliversOnlyTheLastRequest() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    Project project = loadExample(QStringLiteral("gpt3-4d"));
    QElapsedTimer submitting;
    submitting.start();
    quint64 last = 0;
    for (int i = 0; i < 30; ++i) {
      setTotalBandwidth(project, 500 + 10 * i);
      last = controller.submit(makeRequest(project));
    }
    // Submitting never waits for a solve.
    QVERIFY2(submitting.elapsed() < 1000, "submit() blocked");
    QTRY_VERIFY(!controller.isBusy());
    QVERIFY(controller.startedJobs() <= 2);  // the first one, then only the newest waiting one
    // Whatever came, the last delivered result is the complete answer for the last request.
    QVERIFY(results.count() >= 1);
    const auto result = resultAt(results, results.count() - 1);
    QCOMPARE(result->generation, last);
    QVERIFY(result->complete);
    // The delivered result is the engine's answer for the last request.
    const Solution expected = test::engineOptimum(project);
    QVERIFY(result->ok());
    QVERIFY(test::close(result->a().design.eval.iterationNs, expected.eval.iterationNs));
    for (std::size_t d = 0; d < expected.bandwidth.size(); ++d) {
      QVERIFY(test::close(result->a().design.bandwidth[d], expected.bandwidth[d], 1e-5));
    }
    QCOMPARE(result->a().front.points.size(), std::size_t(50));
    // Generations only grow.
    for (int i = 1; i < results.count(); ++i)
      QVERIFY(resultAt(results, i)->generation >= resultAt(results, i - 1)->generation);
  }

  void theDesignComesBeforeItsFront() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    const Project project = loadExample(QStringLiteral("gpt3-4d"));
    const quint64 g = controller.submit(makeRequest(project));
    QTRY_VERIFY(!controller.isBusy());
    QCOMPARE(results.count(), 2);
    const auto design = resultAt(results, 0);
    const auto complete = resultAt(results, 1);
    QCOMPARE(design->generation, g);
    QCOMPARE(complete->generation, g);
    QVERIFY(!design->complete);
    QVERIFY(design->ok());
    QVERIFY(design->a().front.points.empty());
    QVERIFY(design->a().baseline.has_value());
    QVERIFY(complete->complete);
    QCOMPARE(complete->a().front.points.size(), std::size_t(50));
    // The same design in both.
    QCOMPARE(design->a().design.bandwidth, complete->a().design.bandwidth);
  }

  void cancelAllDropsEverythingInFlight() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    const Project project = loadExample(QStringLiteral("gpt3-4d"));
    controller.submit(makeRequest(project));
    controller.submit(makeRequest(project));
    controller.cancelAll();
    QTRY_VERIFY(!controller.isBusy());
    QTest::qWait(20);
    QCOMPARE(results.count(), 0);
    // It works again afterwards.
    const quint64 g = controller.submit(makeRequest(project));
    QTRY_VERIFY(!controller.isBusy());
    QVERIFY(results.count() >= 1);
    QCOMPARE(resultAt(results, results.count() - 1)->generation, g);
  }

  void infeasibleProblemsComeBackWithAReason() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    Project project = loadExample(QStringLiteral("gpt3-4d"));
    setExtraConstraints(project, {"bw[chiplet] >= 2000"});  // more than the 1000 GB/s total
    controller.submit(makeRequest(project));
    QTRY_COMPARE(results.count(), 1);
    const auto result = resultAt(results, 0);
    QVERIFY(result->a().status == SolveStatus::Infeasible);
    QVERIFY(!result->a().message.empty());
    QVERIFY(!result->invalidInput);
  }

  void invalidInputIsAResultNotAnException() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    Project project = loadExample(QStringLiteral("gpt3-4d"));
    setExtraConstraints(project, {"bw[nowhere] >= 1"});  // no such dimension
    controller.submit(makeRequest(project));
    QTRY_COMPARE(results.count(), 1);
    const auto result = resultAt(results, 0);
    QVERIFY(result->invalidInput);
    QVERIFY(result->a().status == SolveStatus::Error);
    QVERIFY2(QString::fromStdString(result->a().message).contains(QStringLiteral("nowhere")),
             result->a().message.c_str());
  }

  void anyExceptionOfTheJobBecomesAnErrorResult() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    SolveRequest request = makeRequest(loadExample(QStringLiteral("gpt3-3d")));
    request.onStart = [] { throw std::runtime_error("out of cheese"); };
    controller.submit(std::move(request));
    QTRY_COMPARE(results.count(), 1);
    const auto result = resultAt(results, 0);
    QVERIFY(result->a().status == SolveStatus::Error);
    QVERIFY(!result->invalidInput);
    QVERIFY2(QString::fromStdString(result->a().message).contains(QStringLiteral("out of cheese")),
             result->a().message.c_str());
    // A request without a project is refused the same way.
    const SolveResult none = runSolve(SolveRequest{});
    QVERIFY(none.a().status == SolveStatus::Error);
    QVERIFY(!none.a().message.empty());
  }

  void theEqualSplitSharesTheOptimumsTotal() {
    const Project project = loadExample(QStringLiteral("gpt3-3d"));
    const SolveResult result = runSolve(makeRequest(project));
    QVERIFY(result.ok());
    QVERIFY(result.a().baseline.has_value());
    const auto& split = result.a().baseline->design.bandwidth;
    QCOMPARE(split.size(), std::size_t(3));
    for (double b : split) QVERIFY(test::close(b * 3, 500));
  }

  // A drag whose solves take longer than its ticks (40 ms solves, a tick every
  // 16 ms): latest-wins alone would cancel every job and show nothing until the
  // release. The screen must get a result at least every 100 ms.
  void aSlowDragStillReachesTheScreen() {
    SolverController controller;
    QElapsedTimer clock;
    std::vector<qint64> deliveredAt;
    double longestJobMs = 0;    // the time a job took to its design, as measured by the job
    double longestFrontMs = 0;  // and from its design to its front
    std::map<quint64, double> designAt;
    connect(&controller, &SolverController::resultReady, this, [&](const SolveResultPtr& r) {
      deliveredAt.push_back(clock.elapsed());
      if (!r->complete) {
        longestJobMs = std::max(longestJobMs, r->elapsedMs);
        designAt[r->generation] = r->elapsedMs;
      } else if (designAt.count(r->generation) != 0) {
        longestFrontMs = std::max(longestFrontMs, r->elapsedMs - designAt[r->generation]);
      }
    });
    Project project = loadExample(QStringLiteral("gpt3-4d"));
    int tick = 0;
    QTimer pointer;
    pointer.setTimerType(Qt::PreciseTimer);
    pointer.setInterval(16);
    quint64 last = 0;
    connect(&pointer, &QTimer::timeout, this, [&] {
      setTotalBandwidth(project, 400 + 5 * (tick % 40));
      SolveRequest request = makeRequest(project);
      request.artificialDelayMs = 40;
      last = controller.submit(std::move(request));
      if (++tick >= 75) pointer.stop();  // 1.2 s of dragging
    });
    clock.start();
    pointer.start();
    QTRY_VERIFY_WITH_TIMEOUT(!pointer.isActive(), 5000);
    const qint64 released = clock.elapsed();
    QTRY_VERIFY_WITH_TIMEOUT(!controller.isBusy(), 5000);
    // Gaps between what reached the screen while the drag lasted.
    QVERIFY2(deliveredAt.size() >= 8, qPrintable(QString::number(deliveredAt.size())));
    qint64 previous = 0, worst = 0;
    for (qint64 t : deliveredAt) {
      if (t > released) break;
      worst = std::max(worst, t - previous);
      previous = t;
    }
    worst = std::max(worst, released - previous);
    QString times;
    for (qint64 t : deliveredAt) times += QString::number(t) + QLatin1Char(' ');
    // 100 ms; on a machine so loaded that a 40 ms job takes longer than that,
    // no scheduler can do better than about one job per gap: then 1.25 jobs.
    // Plus one front: when the screen has gone 100 ms without one, the running
    // front is let finish (about 8 ms for this project in an optimized build,
    // several times that under the sanitizers).
    const double bound = std::max(100.0, 1.25 * longestJobMs) + longestFrontMs;
    QVERIFY2(worst <= bound,
             qPrintable(QStringLiteral("%1 ms without a result (bound %2 ms, fronts up to %5 "
                                       "ms); delivered at %3 (released at %4)")
                            .arg(worst)
                            .arg(bound)
                            .arg(times)
                            .arg(released)
                            .arg(longestFrontMs)));
    QVERIFY(controller.latestGeneration() == last);
  }

  // Input faster than the solves (the next change always waiting when a design
  // comes out) used to cancel the front of every job as soon as its design was
  // delivered: the chart showed each new design over a front that never came
  // while the drag lasted. A front expected within a frame is now finished
  // before the waiting request starts.
  void fastInputStillCompletesItsFronts() {
    // The premise: a front that takes a few ms after its design, long enough to
    // be cancelled, well within a frame (50 points of the gpt3-3d example take
    // about 3 ms after a 0.5 ms design in an optimized build). The front's
    // length is measured here and the number of points halved until it holds,
    // so the test asks the same question of a slower (sanitized) build.
    // A quarter of a frame: the controller times a front from the design's
    // delivery to the front's on the GUI thread, which in a sanitized build
    // adds to the solve's own time. With half a frame (a 7 ms front of 2
    // points in the ASan + UBSan build) 8 of 100 fronts completed, every run.
    constexpr double kQuickFrontMs = kFrameMs / 4.0;
    Project project = loadExample(QStringLiteral("gpt3-3d"));
    int points = paretoPointsOf(project);
    const auto frontLagMs = [&] {
      SolveRequest request = makeRequest(project);
      request.options.paretoPoints = points;
      double designMs = 0;
      const SolveResult complete = runSolve(
          request, nullptr, [&](const SolveResult& design) { designMs = design.elapsedMs; });
      return complete.elapsedMs - designMs;
    };
    double lagMs = frontLagMs();
    while (lagMs > kQuickFrontMs && points > 2) {
      points = std::max(2, points / 2);
      lagMs = std::min(frontLagMs(), frontLagMs());
    }
    if (lagMs > kQuickFrontMs) {  // LIBRA's ideal model solves about 5x faster
      project.model.collectives.chunks = ChunkSetting::ideal();
      points = paretoPointsOf(project);
      lagMs = std::min(frontLagMs(), frontLagMs());
      while (lagMs > kQuickFrontMs && points > 2) {
        points = std::max(2, points / 2);
        lagMs = std::min(frontLagMs(), frontLagMs());
      }
    }
    // A loaded machine (the other tests of a parallel ctest) can slow one
    // measurement: look again a few times.
    for (int again = 0; again < 5 && lagMs > kQuickFrontMs; ++again) {
      QTest::qWait(200);
      lagMs = std::min({frontLagMs(), frontLagMs(), frontLagMs()});
    }
    // Slower still (4.4 ms for 2 points once, in a CI run on a slow machine):
    // the controller's frame is scaled so that the front is still a quarter of
    // it. The question is the same: is a front due within a frame finished?
    SolverController controller;
    const int frameMs = std::max(kFrameMs, static_cast<int>(std::ceil(4 * lagMs)));
    controller.setFrameMs(frameMs);
    const auto request = [&] {
      SolveRequest r = makeRequest(project);
      r.options.paretoPoints = points;
      return r;
    };
    controller.submit(request());  // teaches how long a front takes here
    QTRY_VERIFY_WITH_TIMEOUT(!controller.isBusy(), 5000);
    int changes = 0, fronts = 0;
    connect(&controller, &SolverController::resultReady, this, [&](const SolveResultPtr& r) {
      if (r->complete && r->ok()) ++fronts;
      if (!r->complete && changes < 100) {  // the next change is in before the front is done
        setTotalBandwidth(project, 400 + 5 * (++changes % 40));
        controller.submit(request());
      }
    });
    setTotalBandwidth(project, 390);
    controller.submit(request());
    // An event loop that wakes for each result, as the window's does (QTRY_*
    // sleeps 10 ms between looks, by which time a front is long done).
    QElapsedTimer waited;
    waited.start();
    while (!(changes == 100 && !controller.isBusy()) && waited.elapsed() < 20000)
      QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 5);
    QVERIFY(changes == 100 && !controller.isBusy());
    // A front due within a frame is finished: about one per change on an idle
    // machine (97-100 here), 45 on a loaded 2-core CI run; cancelling them all,
    // as before, gave 2-3. The bound separates the two, not the machine's speed.
    QVERIFY2(fronts >= 20, qPrintable(QStringLiteral("%1 fronts of %2 points completed for %3 "
                                                     "changes (a front took %4 ms, frame %5 ms)")
                                          .arg(fronts)
                                          .arg(points)
                                          .arg(changes)
                                          .arg(lagMs)
                                          .arg(frameMs)));
  }

  // A controller that once saw a slow front (many points) and then gets fast
  // fronts under fast input still completes fronts: it used to remember the slow
  // one and cancel every later front for as long as the input kept coming (one
  // of 100 completed), so the screen's front stopped following the drag.
  void aFrontOnceSlowDoesNotStarveLaterFronts() { frontsAfterASlowFront(false); }

  // The same when the slow front took longer than the screen budget (the
  // project's 50 points under a sanitizer, then a drag's 16): the controller
  // judges a front by its number of points, so the drag's fronts still finish.
  // Judged by the slow front's time they were all cancelled (none of 100 in a
  // CI run of the window's drag test).
  void aFrontSlowerThanTheBudgetDoesNotStarveSmallerFronts() { frontsAfterASlowFront(true); }

 private:
  // The number of points whose front takes loMs to hiMs here, now: from
  // `points`, scaled by how far the last measurement (the least of two) was
  // from the middle of the range, for up to 30 measurements (a 0.3 s pause
  // after every sixth). A machine slowed by the other tests of a parallel
  // ctest is so measured at the speed it has while the test runs. (Growing the
  // count by half until a front took a quarter of a frame, then checking it
  // was within half a frame, failed on a loaded machine: 314 points once took
  // 8.6 ms, with 8.3 allowed.)
  template <class LagMs>
  static std::pair<int, double> pointsTaking(const LagMs& lagMs, double loMs, double hiMs,
                                             int points) {
    constexpr int kMost = 65536;
    const double middle = std::sqrt(loMs * hiMs);
    double lag = lagMs(points);
    for (int step = 0; step < 30 && (lag < loMs || lag > hiMs); ++step) {
      // A burst of load from the other tests passes: pause now and then.
      if (step % 6 == 5) QTest::qWait(300);
      const double factor = std::clamp(middle / std::max(lag, 1e-3), 0.5, 2.0);
      int next = std::clamp(static_cast<int>(std::lround(points * factor)), 2, kMost);
      if (next == points) next = std::clamp(points + (lag < loMs ? 1 : -1), 2, kMost);
      points = next;  // the same at an end of the range: measured again
      lag = std::min(lagMs(points), lagMs(points));
    }
    return {points, lag};
  }

  void frontsAfterASlowFront(bool beyondBudget) {
    Project project = loadExample(QStringLiteral("gpt3-3d"));
    project.model.collectives.chunks = ChunkSetting::ideal();
    const auto request = [&](int points) {
      SolveRequest r = makeRequest(project);
      r.options.paretoPoints = points;
      return r;
    };
    const auto frontLagMs = [&](int points) {
      double designMs = 0;
      const SolveResult complete =
          runSolve(request(points), nullptr, [&](const SolveResult& d) { designMs = d.elapsedMs; });
      return complete.elapsedMs - designMs;
    };
    // The fast fronts: long enough (a quarter of a frame or more) that the next
    // change always comes in while one is computed, within half a frame.
    // (Plain variables: lambdas below capture them, which structured bindings
    // cannot be in clang 14's C++20.)
    const std::pair<int, double> fast = pointsTaking(frontLagMs, kFrameMs / 4.0, kFrameMs / 2.0, 2);
    const int fastPoints = fast.first;
    const double fastLagMs = fast.second;
    QVERIFY2(fastLagMs >= kFrameMs / 4.0 && fastLagMs <= kFrameMs / 2.0,
             qPrintable(QStringLiteral("the premise fails: %1 points take %2 ms")
                            .arg(fastPoints)
                            .arg(fastLagMs)));
    // The slow front: two to six frames, within the controller's default 100 ms
    // screen budget; or five to fifteen frames, beyond four times a budget of one
    // frame (where a front expected to take that long is never let finish
    // during input).
    const double slowMinMs = (beyondBudget ? 5 : 2) * kFrameMs;
    const double slowMaxMs = 3 * slowMinMs;
    const std::pair<int, double> slow =
        pointsTaking(frontLagMs, slowMinMs, slowMaxMs, fastPoints * 2);
    const int slowPoints = slow.first;
    const double slowLagMs = slow.second;
    QVERIFY2(slowLagMs >= slowMinMs && slowLagMs <= slowMaxMs,
             qPrintable(QStringLiteral("the premise fails: %1 points take %2 ms")
                            .arg(slowPoints)
                            .arg(slowLagMs)));
    SolverController controller;
    if (beyondBudget) controller.setScreenBudgetMs(static_cast<int>(kFrameMs));
    controller.submit(request(slowPoints));
    QTRY_VERIFY_WITH_TIMEOUT(!controller.isBusy(), 20000);
    int changes = 0, fronts = 0;
    connect(&controller, &SolverController::resultReady, this, [&](const SolveResultPtr& r) {
      if (r->complete && r->ok()) ++fronts;
      if (!r->complete && changes < 100) {
        setTotalBandwidth(project, 400 + 5 * (++changes % 40));
        controller.submit(request(fastPoints));
      }
    });
    controller.submit(request(fastPoints));
    QElapsedTimer waited;
    waited.start();
    while (!(changes == 100 && !controller.isBusy()) && waited.elapsed() < 20000)
      QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 5);
    QVERIFY(changes == 100 && !controller.isBusy());
    QVERIFY2(fronts >= 20,
             qPrintable(QStringLiteral("%1 fronts completed for 100 changes").arg(fronts)));
  }

 private Q_SLOTS:
  // Designs slower than the screen budget are restarted while young: the newest
  // input is then answered about one solve time after it came, not two.
  void aSlowYoungJobGivesWayToNewerInput() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    Project project = loadExample(QStringLiteral("gpt3-3d"));
    auto slow = [&](double total) {
      setTotalBandwidth(project, total);
      SolveRequest request = makeRequest(project);
      request.artificialDelayMs = 250;
      return controller.submit(std::move(request));
    };
    slow(400);  // teaches the controller how long a design takes here
    QTRY_VERIFY_WITH_TIMEOUT(!controller.isBusy(), 5000);
    const int before = results.count();
    slow(450);
    QTest::qWait(30);
    const quint64 newest = slow(500);
    QTRY_VERIFY_WITH_TIMEOUT(!controller.isBusy(), 5000);
    for (int i = before; i < results.count(); ++i)
      QCOMPARE(resultAt(results, i)->generation, newest);  // the young job was abandoned
  }
};

QTEST_MAIN(SolverControllerTest)
#include "test_solver_controller.moc"
