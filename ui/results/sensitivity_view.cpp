#include "sensitivity_view.hpp"

#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>
#include <cmath>

#include "format.hpp"
#include "wrap_label.hpp"

namespace libra::studio {

namespace {

// "−1.23 µs" with a true minus sign, "+0.50 µs" when more makes it worse.
QString signedTime(double ns) {
  if (ns == 0) return QStringLiteral("0 ns");
  const QString text = formatTimeNs(std::abs(ns));
  return (ns < 0 ? QStringLiteral("−") : QStringLiteral("+")) + text;
}

}  // namespace

namespace {

// One direction's rate, or why it has none.
QString rateText(const std::optional<double>& rate, const std::string& unit) {
  if (!rate) return QObject::tr("infeasible");
  if (unit == "$") return QObject::tr("%1 per $1 M").arg(signedTime(*rate * 1e6));
  return QObject::tr("%1 per %2").arg(signedTime(*rate), toQString(unit));
}

}  // namespace

QString sensitivityValueText(const ConstraintSensitivity& c) {
  QString up = rateText(c.nsPerUnit, c.unit);
  if (!directionsDiffer(c.nsPerUnit, c.nsPerUnitDown)) return up;
  return QObject::tr("%1 for more, %2 for less").arg(up, rateText(c.nsPerUnitDown, c.unit));
}

SensitivityView::SensitivityView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("sensitivityView"));
  title_ = new WrapLabel;
  title_->setText(tr("<b>Sensitivity</b>"));
  title_->setObjectName(QStringLiteral("sensitivityTitle"));
  title_->setWordWrap(true);
  table_ = new WrapLabel;
  table_->setObjectName(QStringLiteral("sensitivityTable"));
  table_->setWordWrap(true);
  table_->setTextFormat(Qt::RichText);
  table_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  table_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bottleneck_ = new WrapLabel;
  bottleneck_->setObjectName(QStringLiteral("sensitivityBottleneck"));
  bottleneck_->setWordWrap(true);
  bottleneck_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  bottleneck_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* content = new QWidget;
  auto* inner = new QVBoxLayout(content);
  inner->setContentsMargins(0, 0, 0, 0);
  inner->addWidget(table_);
  inner->addWidget(bottleneck_);
  inner->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(title_);
  layout->addWidget(scroll, 1);
  setMinimumWidth(240);
}

void SensitivityView::showResult(const SolveResult& result) {
  const Sensitivity& s = result.a().sensitivity;
  rows_.clear();
  if (!s.computed) {
    title_->setText(tr("<b>Sensitivity</b>"));
    table_->setText(toQString(s.note).toHtmlEscaped());
    bottleneck_->setText({});
    return;
  }
  title_->setText(s.objective == Objective::Performance
                      ? tr("<b>Sensitivity</b> of the iteration time per unit of")
                      : tr("<b>Sensitivity</b> of time × cost (over the cost) per unit of"));
  const QString grey = palette().color(QPalette::Disabled, QPalette::Text).name();
  QString html = QStringLiteral("<table cellspacing='0' cellpadding='2' width='100%'>");
  for (const ConstraintSensitivity& c : s.constraints) {
    const QString what = constraintText(c.constraint);
    const QString value = sensitivityValueText(c);
    rows_ << what + QStringLiteral(": ") + value;
    const QString cells =
        // The value may wrap after its number: a long constraint (a cost budget
        // written to the dollar) must not push it out of the panel.
        QStringLiteral("<td>%1</td><td align='right'>%2</td>")
            .arg(what.toHtmlEscaped(), c.binding
                                           ? QStringLiteral("<b>%1</b>").arg(value.toHtmlEscaped())
                                           : tr("not binding"));
    html += c.binding ? QStringLiteral("<tr>%1</tr>").arg(cells)
                      : QStringLiteral("<tr style='color:%1'>%2</tr>").arg(grey, cells);
  }
  html += QStringLiteral("</table>");
  table_->setText(html);

  const std::vector<std::string> names = s.bottlenecks();
  const bool balanced = names.size() == s.dims.size() && names.size() > 1;
  QStringList perDim;
  for (const DimensionSensitivity& d : s.dims) {
    QString rate = d.nsPerGbps ? signedTime(*d.nsPerGbps) : tr("infeasible");
    if (directionsDiffer(d.nsPerGbps, d.nsPerGbpsDown)) {
      rate += tr(" (−1 GB/s: %1)")
                  .arg(d.nsPerGbpsDown ? signedTime(*d.nsPerGbpsDown) : tr("none to take"));
    }
    const QString entry = (shownName(d.name) + QStringLiteral(" ") + rate).toHtmlEscaped();
    perDim << (d.bottleneck && !balanced ? QStringLiteral("<b>%1</b>").arg(entry) : entry);
  }
  QStringList list;
  for (const std::string& n : names) list << toQString(n).toHtmlEscaped();
  QString text = tr("+1 GB/s on one dimension alone: %1").arg(perDim.join(QStringLiteral(", ")));
  if (list.isEmpty()) {
    text += tr("<br>No bottleneck: more bandwidth on one dimension alone does not help.");
  } else if (balanced) {
    text += tr("<br>Balanced: a GB/s is worth the same on every dimension.");
  } else {
    text += tr("<br>Bottleneck: <b>%1</b>").arg(list.join(QStringLiteral(", ")));
  }
  bottleneck_->setText(text);
}

void SensitivityView::setStale(bool stale) {
  table_->setEnabled(!stale);
  bottleneck_->setEnabled(!stale);
}

QStringList SensitivityView::rowTexts() const {
  return rows_;
}

QString SensitivityView::bottleneckText() const {
  return bottleneck_->text();
}

bool SensitivityView::isCurrent() const {
  return table_->isEnabled();
}

}  // namespace libra::studio
