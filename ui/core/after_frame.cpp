#include "after_frame.hpp"

#include <algorithm>
#include <utility>

#include "solver_controller.hpp"  // kFrameMs

namespace libra::studio {

AfterFrame::AfterFrame(int intervalMs, std::function<bool()> framePending,
                       std::function<void()> write, QObject* parent)
    : QObject(parent),
      intervalMs_(intervalMs),
      framePending_(std::move(framePending)),
      write_(std::move(write)) {
  fallback_.setSingleShot(true);
  connect(&fallback_, &QTimer::timeout, this, &AfterFrame::catchUp);
}

void AfterFrame::setHeld(bool held) {
  held_ = held;
  if (!held && waiting_) write_();  // the drag ended: the text catches up now
}

void AfterFrame::changed() {
  if (!held_) {
    write_();
    return;
  }
  waiting_ = true;
  if (!fallback_.isActive()) {
    // Two frames after it is due: a frame painted meanwhile writes it sooner.
    const qint64 wait = due() ? 0 : std::max<qint64>(0, intervalMs_ - sinceWritten_.elapsed());
    fallback_.start(static_cast<int>(wait + qint64{2} * kFrameMs));
  }
}

void AfterFrame::framePainted() {
  // Not inside the paint: in the next turn of the event loop, while the
  // solver works on the next change.
  if (waiting_ && due()) QTimer::singleShot(0, this, &AfterFrame::catchUp);
}

void AfterFrame::written() {
  waiting_ = false;
  fallback_.stop();
  sinceWritten_.restart();
}

void AfterFrame::drop() {
  waiting_ = false;
  fallback_.stop();
}

bool AfterFrame::due() const {
  return !sinceWritten_.isValid() || sinceWritten_.elapsed() >= intervalMs_;
}

void AfterFrame::catchUp() {
  if (!waiting_) return;
  // A result waiting for its frame: its paint comes first, then the text.
  if (held_ && framePending_()) {
    fallback_.start(kFrameMs);
    return;
  }
  write_();
}

}  // namespace libra::studio
