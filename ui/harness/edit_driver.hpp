// Scripted edits through the main window's real widgets (sliders, spin boxes and
// combo boxes receive key presses or values, Undo and Redo are the menu actions),
// so every edit takes the path a user's does: widget -> Document -> background
// solve -> charts. The sequence is deterministic: the endurance run
// (--endurance) and the crash-recovery test (--replay-edits) make the same
// edits, and a test can replay them in another process and expect the same project.
#pragma once

#include <QString>

QT_BEGIN_NAMESPACE
class QAction;
class QComboBox;
class QDoubleSpinBox;
class QSlider;
class QSpinBox;
class QWidget;
QT_END_NAMESPACE

namespace libra::studio {

class MainWindow;

class EditDriver {
 public:
  // Steps in one round of the sequence: 10 edits, 4 undos, 3 redos.
  static constexpr int kCycle = 17;

  explicit EditDriver(MainWindow* window);

  // Makes step number `step` (0, 1, 2, ...) of the sequence; returns what it did,
  // e.g. "total slider -> 640". A step may leave the project as it was (a key
  // press at the end of a list, a parallelism the network cannot take).
  QString apply(int step);
  // Steps 0 .. count-1.
  void applyFirst(int count);

 private:
  static void pressKey(QWidget* widget, int key);

  QSlider* totalSlider_;
  QDoubleSpinBox* totalSpin_;
  QSpinBox* points_;
  QSpinBox* tp_;
  QComboBox* device_;
  QComboBox* chunks_;
  QComboBox* objective_;
  QComboBox* loop_;
  QAction* undo_;
  QAction* redo_;
};

}  // namespace libra::studio
