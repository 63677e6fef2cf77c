#include "format.hpp"

#include <QElapsedTimer>
#include <QLocale>
#include <QStringList>
#include <cmath>
#include <cstdio>

namespace libra::studio {
void traceEvent(const char* what) {
  static const bool on = qEnvironmentVariableIsSet("LIBRA_STUDIO_TRACE");
  if (!on) return;
  static QElapsedTimer t;
  if (!t.isValid()) t.start();
  std::fprintf(stderr, "%10.3f %s\n", t.nsecsElapsed() / 1e6, what);
}

QString formatTimeNs(double ns) {
  if (!std::isfinite(ns)) return QStringLiteral("∞");
  const double a = std::fabs(ns);
  if (a >= 1e9) return QString::number(ns / 1e9, 'f', 3) + QStringLiteral(" s");
  if (a >= 1e6) return QString::number(ns / 1e6, 'f', 2) + QStringLiteral(" ms");
  if (a >= 1e3) return QString::number(ns / 1e3, 'f', 2) + QStringLiteral(" µs");
  return QString::number(ns, 'f', 0) + QStringLiteral(" ns");
}

QString formatCostUsd(double usd) {
  if (!std::isfinite(usd)) return QStringLiteral("∞");
  const double a = std::fabs(usd);
  if (a >= 1e9)
    return QStringLiteral("$") + QString::number(usd / 1e9, 'f', 3) + QStringLiteral(" B");
  if (a >= 1e6)
    return QStringLiteral("$") + QString::number(usd / 1e6, 'f', 2) + QStringLiteral(" M");
  if (a >= 1e3)
    return QStringLiteral("$") + QString::number(usd / 1e3, 'f', 1) + QStringLiteral(" k");
  return QStringLiteral("$") + QString::number(usd, 'f', 0);
}

QString formatBandwidth(double gbps) {
  if (!std::isfinite(gbps)) return QStringLiteral("∞");
  return QString::number(gbps, 'f', gbps >= 100 ? 1 : 2) + QStringLiteral(" GB/s");
}

QString formatNpus(long long npus) {
  return QLocale(QLocale::English).toString(npus);
}

QString plainNumber(double value) {
  return QString::number(value, 'g', 12);
}

QString toQString(const std::string& text) {
  return QString::fromStdString(text);
}

std::string toStd(const QString& text) {
  return text.toStdString();
}

QString formatSplit(std::span<const std::string> names, std::span<const double> bw) {
  QStringList parts;
  for (std::size_t d = 0; d < bw.size(); ++d) {
    const QString name = d < names.size() ? toQString(names[d]) : QString::number(d);
    parts << name + QStringLiteral(" ") + QString::number(bw[d], 'f', bw[d] >= 100 ? 1 : 2);
  }
  return parts.join(QStringLiteral(", ")) + QStringLiteral(" GB/s");
}

}  // namespace libra::studio
