// A text that a drag must not lay out inside a frame: the summary and the
// sensitivity table of the results, the status line of the window.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <functional>

namespace libra::studio {

// Writes a text when it changes; while a drag holds the screen, at most every
// `intervalMs` and just after a frame is painted, while the next change is
// being solved. Laying a text out takes about as long as painting a chart, and
// numbers that change 60 times a second cannot be read anyway; written when
// a result arrives, just before its frame, it held that frame back. A timer
// writes it should no frame follow (the drag pauses); it waits while a result
// is pending for its frame, whose paint comes first. The end of a drag writes
// what waits at once.
class AfterFrame : public QObject {
 public:
  // `write` writes the text and calls written(); `framePending` says whether a
  // result waits for its frame.
  AfterFrame(int intervalMs, std::function<bool()> framePending, std::function<void()> write,
             QObject* parent);

  void setHeld(bool held);  // a drag began (true) or ended (false)
  bool held() const { return held_; }
  // The text is out of date: written at once, or after a frame during a drag.
  void changed();
  // A frame is on screen: a text that waits and is due follows it.
  void framePainted();
  // The text was written (by `write` or otherwise): nothing waits, and the
  // interval starts again.
  void written();
  // What waits need not be written any more (something else took its place).
  void drop();
  bool waiting() const { return waiting_; }

 private:
  bool due() const;  // intervalMs since the text was written
  void catchUp();

  int intervalMs_;
  std::function<bool()> framePending_;
  std::function<void()> write_;
  QTimer fallback_;
  QElapsedTimer sinceWritten_;
  bool held_ = false;
  bool waiting_ = false;
};

}  // namespace libra::studio
