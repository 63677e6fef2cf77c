// The latest-wins solver controller: one job runs and one waits, stale results are
// never delivered, the GUI thread never waits.
#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <libra/edits.hpp>

#include "explorer_controller.hpp"
#include "solver_controller.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

namespace {

SolveRequest requestFor(const Project& project) {
  SolveRequest request;
  QString error;
  if (!ExplorerController::makeRequest(project, Backend::Native, request, error))
    qFatal("%s", qPrintable(error));
  return request;
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
      last = controller.submit(requestFor(project));
    }
    // Submitting never waits for a solve.
    QVERIFY2(submitting.elapsed() < 1000, "submit() blocked");
    QTRY_VERIFY(!controller.isBusy());
    QCOMPARE(results.count(), 1);
    const auto result = results.front().front().value<SolveResultPtr>();
    QCOMPARE(result->generation, last);
    QVERIFY(controller.startedJobs() <= 2);  // the first one, then only the newest waiting one
    // The delivered result is the engine's answer for the last request.
    const Solution expected = test::engineOptimum(project);
    QVERIFY(result->optimum.ok());
    QVERIFY(test::close(result->optimum.eval.iterationNs, expected.eval.iterationNs));
    for (std::size_t d = 0; d < expected.bandwidth.size(); ++d) {
      QVERIFY(test::close(result->optimum.bandwidth[d], expected.bandwidth[d], 1e-5));
    }
    QCOMPARE(result->front.points.size(), std::size_t(50));
  }

  void cancelAllDropsEverythingInFlight() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    const Project project = loadExample(QStringLiteral("gpt3-4d"));
    controller.submit(requestFor(project));
    controller.submit(requestFor(project));
    controller.cancelAll();
    QTRY_VERIFY(!controller.isBusy());
    QTest::qWait(20);
    QCOMPARE(results.count(), 0);
    // It works again afterwards.
    const quint64 g = controller.submit(requestFor(project));
    QTRY_COMPARE(results.count(), 1);
    QCOMPARE(results.front().front().value<SolveResultPtr>()->generation, g);
  }

  void infeasibleProblemsComeBackWithAReason() {
    SolverController controller;
    QSignalSpy results(&controller, &SolverController::resultReady);
    Project project = loadExample(QStringLiteral("gpt3-4d"));
    setExtraConstraints(project, {"bw[chiplet] >= 2000"});  // more than the 1000 GB/s total
    controller.submit(requestFor(project));
    QTRY_COMPARE(results.count(), 1);
    const auto result = results.front().front().value<SolveResultPtr>();
    QVERIFY(result->optimum.status == SolveStatus::Infeasible);
    QVERIFY(!result->optimum.message.empty());
  }

  void communicationByDimensionAddsUpToTheCommunicationTime() {
    const Project project = loadExample(QStringLiteral("gpt3-3d"));
    SolveRequest request = requestFor(project);
    const SolveResult result = runSolve(request);
    QVERIFY(result.optimum.ok());
    double sum = 0;
    for (double v : result.communicationByDim) sum += v;
    QVERIFY(test::close(sum, result.optimum.eval.communicationNs, 1e-9));
    double eqSum = 0;
    for (double v : result.equalSplitCommunicationByDim) eqSum += v;
    QVERIFY(test::close(eqSum, result.equalSplitEval.communicationNs, 1e-9));
    // The equal split puts the optimum's total on every dimension alike.
    QCOMPARE(result.equalSplit.size(), std::size_t(3));
    QVERIFY(test::close(result.equalSplit[0] * 3, 500));
  }
};

QTEST_MAIN(SolverControllerTest)
#include "test_solver_controller.moc"
