#include "wrap_label.hpp"

namespace libra::studio {

WrapLabel::WrapLabel(QWidget* parent) : QLabel(parent) {
  setWordWrap(true);
}

void WrapLabel::setText(const QString& text) {
  if (text == QLabel::text()) return;
  QLabel::setText(text);
}

QSize WrapLabel::sizeHint() const {
  const QMargins m = contentsMargins();
  // Not heightForWidth(width): that would lay the text out at a width it is
  // not shown at, and again at the real one to paint it. Layouts take the
  // height from heightForWidth at the width they give.
  return {fontMetrics().averageCharWidth() * 40 + m.left() + m.right(),
          fontMetrics().height() + m.top() + m.bottom()};
}

QSize WrapLabel::minimumSizeHint() const {
  const QMargins m = contentsMargins();
  return {fontMetrics().averageCharWidth() * 8 + m.left() + m.right(),
          fontMetrics().height() + m.top() + m.bottom()};
}

}  // namespace libra::studio
