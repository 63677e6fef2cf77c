// AfterFrame, the scheduler of the texts that a drag must not lay out inside a
// frame (the results' summary and sensitivity, the status line): at once when
// no drag holds the screen; during a drag just after a painted frame, at most
// every interval, never while a result waits for its frame; a fallback timer
// when no frame comes; the end of the drag writes what waits. The views that
// use it are tested in ui.test_ui_results_view and ui.test_ui_explorer.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTest>

#include "after_frame.hpp"
#include "solver_controller.hpp"  // kFrameMs

using namespace libra::studio;

class AfterFrameTest : public QObject {
  Q_OBJECT

  static constexpr int kIntervalMs = 300;

  // A text whose writes are counted, and a flag for "a result waits for its frame".
  struct Text {
    int writes = 0;
    bool framePending = false;
    AfterFrame follower;
    Text()
        : follower(
              kIntervalMs, [this] { return framePending; },
              [this] {
                ++writes;
                follower.written();
              },
              nullptr) {}
  };

 private Q_SLOTS:
  void withoutADragTheTextIsWrittenAtOnce() {
    Text text;
    text.follower.changed();
    QCOMPARE(text.writes, 1);
    text.follower.changed();
    QCOMPARE(text.writes, 2);  // no interval without a drag
    QVERIFY(!text.follower.waiting());
  }

  void duringADragTheTextFollowsAPaintedFrame() {
    Text text;
    text.follower.setHeld(true);
    text.follower.changed();
    QCOMPARE(text.writes, 0);  // not while the result is applied: its frame comes first
    QVERIFY(text.follower.waiting());
    text.follower.framePainted();
    QCOMPARE(text.writes, 0);  // not inside the paint either
    QCoreApplication::processEvents();
    QCOMPARE(text.writes, 1);  // the next turn of the event loop
    QVERIFY(!text.follower.waiting());
  }

  void duringADragTheTextIsWrittenAtMostEveryInterval() {
    Text text;
    text.follower.setHeld(true);
    text.follower.changed();
    text.follower.framePainted();
    QCoreApplication::processEvents();
    QCOMPARE(text.writes, 1);
    QElapsedTimer sinceWritten;
    sinceWritten.start();
    // Frames painted within the interval do not write the changed text.
    text.follower.changed();
    while (sinceWritten.elapsed() < kIntervalMs / 3) {
      text.follower.framePainted();
      QTest::qWait(kFrameMs);
    }
    QCOMPARE(text.writes, 1);
    // With no frame after it, the fallback writes it: two frames after it is due.
    QTRY_COMPARE_WITH_TIMEOUT(text.writes, 2, 2000);
    QVERIFY2(sinceWritten.elapsed() >= kIntervalMs,
             qPrintable(QString::number(sinceWritten.elapsed())));
  }

  void aResultWaitingForItsFrameComesFirst() {
    Text text;
    text.follower.setHeld(true);
    text.framePending = true;
    text.follower.changed();
    text.follower.framePainted();
    QCoreApplication::processEvents();
    QTest::qWait(4 * kFrameMs);  // past the fallback of a due text
    QCOMPARE(text.writes, 0);    // it waits for the pending frame's paint
    text.framePending = false;
    QTRY_COMPARE_WITH_TIMEOUT(text.writes, 1, 2000);  // then the fallback writes it
  }

  void theEndOfADragWritesWhatWaits() {
    Text text;
    text.follower.setHeld(true);
    text.follower.changed();
    QCOMPARE(text.writes, 0);
    text.follower.setHeld(false);
    QCOMPARE(text.writes, 1);
    text.follower.setHeld(true);
    text.follower.setHeld(false);
    QCOMPARE(text.writes, 1);  // nothing waited
  }

  void aDroppedTextIsNotWritten() {
    Text text;
    text.follower.setHeld(true);
    text.follower.changed();
    text.follower.drop();  // e.g. a failure's message took the summary's place
    text.follower.framePainted();
    QTest::qWait(4 * kFrameMs);
    text.follower.setHeld(false);
    QCOMPARE(text.writes, 0);
  }
};

QTEST_GUILESS_MAIN(AfterFrameTest)
#include "test_after_frame.moc"
