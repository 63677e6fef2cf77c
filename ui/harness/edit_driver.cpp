#include "edit_driver.hpp"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QKeyEvent>
#include <QSlider>
#include <QSpinBox>
#include <stdexcept>

#include "main_window.hpp"

namespace libra::studio {

namespace {

template <typename T>
T* find(MainWindow* window, const char* name) {
  T* child = window->findChild<T*>(QString::fromLatin1(name));
  if (!child) throw std::logic_error(std::string("EditDriver: no widget named ") + name);
  return child;
}

}  // namespace

EditDriver::EditDriver(MainWindow* window)
    : totalSlider_(find<QSlider>(window, "totalBandwidthSlider")),
      totalSpin_(find<QDoubleSpinBox>(window, "totalBandwidthSpin")),
      points_(find<QSpinBox>(window, "paretoPointsSpin")),
      tp_(find<QSpinBox>(window, "tpSpin")),
      device_(find<QComboBox>(window, "deviceCombo")),
      chunks_(find<QComboBox>(window, "chunksCombo")),
      objective_(find<QComboBox>(window, "objectiveCombo")),
      loop_(find<QComboBox>(window, "trainingLoopCombo")),
      undo_(find<QAction>(window, "undoAction")),
      redo_(find<QAction>(window, "redoAction")) {}

void EditDriver::pressKey(QWidget* widget, int key) {
  QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier);
  QApplication::sendEvent(widget, &press);
  QKeyEvent release(QEvent::KeyRelease, key, Qt::NoModifier);
  QApplication::sendEvent(widget, &release);
}

QString EditDriver::apply(int step) {
  const int round = step / kCycle;
  const bool even = round % 2 == 0;
  const int upOrDown = even ? Qt::Key_Down : Qt::Key_Up;
  switch (step % kCycle) {
    case 0: {
      const int v = 300 + (round * 37) % 900;
      totalSlider_->setValue(v);
      return QStringLiteral("total slider -> %1").arg(v);
    }
    case 1: {
      const double v = 250.5 + (round * 53) % 1000;
      totalSpin_->setValue(v);
      return QStringLiteral("total spin box -> %1").arg(v);
    }
    case 2: {
      const int v = 20 + (round * 7) % 40;
      points_->setValue(v);
      return QStringLiteral("front points -> %1").arg(v);
    }
    case 3:
    case 4:
    case 9:
    case 14:
      undo_->trigger();
      return QStringLiteral("undo");
    case 5:
    case 10:
    case 15:
      redo_->trigger();
      return QStringLiteral("redo");
    case 6: {
      const int v = even ? 8 : 16;
      tp_->setValue(v);
      return QStringLiteral("tensor parallel -> %1").arg(v);
    }
    case 7:
      pressKey(device_, upOrDown);
      return QStringLiteral("device -> %1").arg(device_->currentText());
    case 8:
      pressKey(totalSlider_, even ? Qt::Key_PageUp : Qt::Key_PageDown);
      return QStringLiteral("total slider page -> %1").arg(totalSlider_->value());
    case 11:
      pressKey(chunks_, upOrDown);
      return QStringLiteral("chunks -> %1").arg(chunks_->currentText());
    case 12:
      pressKey(objective_, upOrDown);
      return QStringLiteral("objective -> %1").arg(objective_->currentText());
    case 13:
      pressKey(loop_, upOrDown);
      return QStringLiteral("training loop -> %1").arg(loop_->currentText());
    default:
      pressKey(points_, even ? Qt::Key_Up : Qt::Key_Down);
      return QStringLiteral("front points key -> %1").arg(points_->value());
  }
}

void EditDriver::applyFirst(int count) {
  for (int i = 0; i < count; ++i) apply(i);
}

}  // namespace libra::studio
