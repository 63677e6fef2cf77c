#include "format.hpp"

#include <QLocale>
#include <QStringList>
#include <cmath>
#include <libra/constraints.hpp>
#include <libra/display_text.hpp>
#include <libra/report/units.hpp>

namespace libra::studio {

// Times, costs and bandwidths follow the report library's rule (units per
// magnitude), so the window and the design-review report show the same text.
QString formatTimeNs(double ns) {
  return toQString(report::formatTime(ns));
}

QString formatCostUsd(double usd) {
  return toQString(report::formatCost(usd));
}

QString formatBandwidth(double gbps) {
  return toQString(report::formatBandwidth(gbps));
}

QString formatNpus(long long npus) {
  return QLocale(QLocale::English).toString(npus);
}

QString formatCount(double count) {
  return toQString(report::formatCount(count));
}

QString formatFixed(double value, int decimals) {
  return toQString(libra::formatFixed(value, decimals));
}

QString plainNumber(double value) {
  return QString::number(value, 'g', 12);
}

QString shownName(const std::string& name) {
  return toQString(displayName(name));
}

QString constraintText(const std::string& constraint) {
  return toQString(constraintDisplayText(constraint));
}

QString shownText(const std::string& text, std::size_t limit) {
  return toQString(displayText(text, limit));
}

QString toQString(const std::string& text) {
  return QString::fromStdString(text);
}

QString sentence(const std::string& message) {
  QString s = toQString(message);
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  if (!s.isEmpty() && !s.endsWith(QLatin1Char('.'))) s += QLatin1Char('.');
  return s;
}

std::string toStd(const QString& text) {
  return text.toStdString();
}

QString formatSplit(std::span<const std::string> names, std::span<const double> bw) {
  QStringList parts;
  for (std::size_t d = 0; d < bw.size(); ++d) {
    const QString name = d < names.size() ? shownName(names[d]) : QString::number(d);
    parts << name + QStringLiteral(" ") + QString::number(bw[d], 'f', bw[d] >= 100 ? 1 : 2);
  }
  return parts.join(QStringLiteral(", ")) + QStringLiteral(" GB/s");
}

}  // namespace libra::studio
