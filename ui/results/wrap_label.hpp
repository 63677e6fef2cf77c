// A word-wrapped label for text that changes with every result (the summary
// line, the sensitivity table), cheap enough to update 60 times a second.
//
// QLabel works out its size hints by laying its text out three times (at its
// natural width, on one line and at the width of its longest word; a rich-text
// table the slowest of all) every time the text changes, and the window's
// layout asks for them on every frame of a drag: that was about 8 ms of the
// window thread's 18 ms per frame. A WrapLabel's hints cost nothing: its width
// comes from the layout, its height from heightForWidth (one layout of the
// text at the width it is given), and setting the text it already shows
// changes nothing at all.
#pragma once

#include <QLabel>

namespace libra::studio {

class WrapLabel : public QLabel {
  Q_OBJECT

 public:
  explicit WrapLabel(QWidget* parent = nullptr);

  // Ignored when `text` is what the label shows already (no relayout, no repaint).
  void setText(const QString& text);

  // About 40 characters wide and one line tall; the layout gives it its real
  // width, and its height from heightForWidth.
  QSize sizeHint() const override;
  // A few characters wide and one line tall: the text wraps to any width.
  QSize minimumSizeHint() const override;
};

}  // namespace libra::studio
