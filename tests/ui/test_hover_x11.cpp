// Hover readouts with real mouse events (issue 28 deliverable 7): the window
// runs on an X server (Xvfb) under a window manager (openbox), and the pointer
// is moved by the X server itself (QCursor::setPos warps it; the server sends
// the window its motion events), not by QTest's synthesized events. Run by
// tests/ui/run_with_window_manager.sh, which starts both.
#include <QCursor>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QScatterSeries>
#include <QTest>
#include <QToolTip>
#include <QWindow>

#include "charts.hpp"
#include "document.hpp"
#include "explorer_controller.hpp"
#include "file_controller.hpp"
#include "format.hpp"
#include "frame_wait.hpp"
#include "main_window.hpp"
#include "results_view.hpp"
#include "solver_controller.hpp"
#include "ui_test_support.hpp"

namespace libra::studio {

class HoverTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<MainWindow> window_;

  ResultsView* results() { return window_->results(); }
  ParetoChartView* pareto() { return results()->paretoChart(); }

  bool waitForCurrentFrame() { return test::waitForCurrentFrame(*window_, 30000); }

  // Moves the X pointer to `global` in steps, as a hand would, letting the
  // server deliver each motion.
  static void movePointer(QPoint from, QPoint to) {
    for (int k = 1; k <= 8; ++k) {
      QCursor::setPos(from + (to - from) * k / 8);
      QTest::qWait(15);
    }
  }

 private Q_SLOTS:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY2(QGuiApplication::platformName() == QStringLiteral("xcb"),
             qPrintable(QStringLiteral("needs an X server (xcb), not '%1': run it through "
                                       "tests/ui/run_with_window_manager.sh")
                            .arg(QGuiApplication::platformName())));
  }

  void hoveringAFrontPointWithTheRealPointerShowsItsNumbers() {
    window_ = std::make_unique<MainWindow>(nullptr, false);
    window_->files()->setPromptsEnabled(false);
    QString error;
    QVERIFY2(window_->files()->openExample(QStringLiteral("gpt3-4d"), &error), qPrintable(error));
    window_->resize(1280, 720);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    // The window manager maps and activates the window (its frame, its focus).
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    QVERIFY(waitForCurrentFrame());
    pareto()->setEqualSplitShown(false);
    QVERIFY(waitForCurrentFrame());
    QTest::qWait(200);  // the layout settles

    const int i = 10;
    const Solution& s = results()->shownFront()->a().front.points[i];
    const QPoint at = pareto()->viewport()->mapToGlobal(pareto()->frontPointPosition(i));
    QToolTip::hideText();
    movePointer(at + QPoint(-60, 40), at);
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 5000);
    const QString text = QToolTip::text();
    QVERIFY2(text.contains(QStringLiteral("Pareto point")), qPrintable(text));
    QVERIFY2(text.contains(formatCostUsd(s.eval.costUsd)), qPrintable(text));
    QVERIFY2(text.contains(formatTimeNs(s.eval.iterationNs)), qPrintable(text));
    // Away from every point the readout goes.
    movePointer(at, at + QPoint(0, -120));
    QTRY_VERIFY_WITH_TIMEOUT(
        !QToolTip::isVisible() || !QToolTip::text().contains(formatCostUsd(s.eval.costUsd)), 5000);
    test::saveScreenshot(window_.get(), QStringLiteral("hover-x11"));
    window_->document()->undoStack()->setClean();
    window_.reset();
  }
};

}  // namespace libra::studio

QTEST_MAIN(libra::studio::HoverTest)
#include "test_hover_x11.moc"
