#include "libra/report/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace libra::report {

Unit timeUnitFor(double maxNs) {
  if (maxNs >= 1e9) return {1e9, "s"};
  if (maxNs >= 1e6 || !(maxNs > 0) || !std::isfinite(maxNs)) return {1e6, "ms"};
  return {1e3, "µs"};
}

Unit costUnitFor(double maxUsd) {
  if (maxUsd >= 1e12 && std::isfinite(maxUsd)) return {1e12, "trillion $"};
  if (maxUsd >= 1e9 && std::isfinite(maxUsd)) return {1e9, "billion $"};
  if (maxUsd >= 1e6 || !(maxUsd > 0) || !std::isfinite(maxUsd)) return {1e6, "million $"};
  return {1e3, "thousand $"};
}

std::string formatCount(double count) {
  if (!std::isfinite(count)) return "-";
  char buffer[64];
  if (std::fabs(count) >= 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.4g", count);
    return buffer;
  }
  std::snprintf(buffer, sizeof buffer, "%.0f", std::round(std::fabs(count)));
  std::string digits = buffer;
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return (count < 0 && digits != "0" ? "-" : "") + digits;
}

std::string formatGrouped(double value, int decimals) {
  std::string s = formatFixed(value, decimals);
  if (!std::isfinite(value) || s.find('e') != std::string::npos) return s;
  const std::size_t first = s[0] == '-' ? 1 : 0;
  const std::size_t point = std::min(s.find('.'), s.size());
  for (std::size_t i = point; i > first + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

std::string formatTime(double ns) {
  return formatTimeLike(ns, ns);
}

std::string formatTimeLike(double ns, double referenceNs) {
  if (!std::isfinite(ns)) return "∞";
  if (!std::isfinite(referenceNs)) return formatTime(ns);
  const double a = std::fabs(referenceNs);
  if (a >= 1e9) return formatFixed(ns / 1e9, 3) + " s";
  if (a >= 1e6) return formatFixed(ns / 1e6, 2) + " ms";
  if (a >= 1e3) return formatFixed(ns / 1e3, 2) + " µs";
  return formatFixed(ns, 0) + " ns";
}

std::string shortNumber(double value) {
  if (!std::isfinite(value)) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string formatCost(double usd) {
  if (!std::isfinite(usd)) return "∞";
  const double a = std::fabs(usd);
  if (a >= 1e15) return "$" + formatFixed(usd, 0);  // scientific: "$1.235e+15"
  if (a >= 1e12) return "$" + formatFixed(usd / 1e12, 3) + " T";
  if (a >= 1e9) return "$" + formatFixed(usd / 1e9, 3) + " B";
  if (a >= 1e6) return "$" + formatFixed(usd / 1e6, 2) + " M";
  if (a >= 1e3) return "$" + formatFixed(usd / 1e3, 1) + " k";
  return "$" + formatFixed(usd, 0);
}

std::string formatBandwidth(double gbps) {
  if (!std::isfinite(gbps)) return "∞";
  return formatFixed(gbps, gbps >= 100 ? 1 : 2) + " GB/s";
}

std::string formatBytes(double bytes) {
  if (!std::isfinite(bytes)) return "∞";
  const double a = std::fabs(bytes);
  if (a >= 1e9) return formatFixed(bytes / 1e9, 2) + " GB";
  if (a >= 1e6) return formatFixed(bytes / 1e6, 1) + " MB";
  if (a >= 1e3) return formatFixed(bytes / 1e3, 1) + " kB";
  return formatFixed(bytes, 0) + " B";
}

std::string axisLabel(double value, int decimals) {
  if (std::isfinite(value) && std::fabs(value) >= kAxisScientificFrom) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, kAxisLabelFormatLarge, value);
    return buffer;
  }
  return formatFixed(value, decimals);
}

bool sameAtShownPrecision(double ratio) {
  return std::isfinite(ratio) && ratio > 0 && formatFixed(ratio, 3) == "1.000" &&
         formatFixed(1 / ratio, 3) == "1.000";
}

std::string ratioWords(double ratio, std::string_view better, std::string_view worse,
                       std::string_view times) {
  if (!(std::isfinite(ratio) && ratio > 0)) return "-";
  if (sameAtShownPrecision(ratio)) return "the same (1.000" + std::string(times) + ")";
  if (ratio >= 1) return formatFixed(ratio, 3) + std::string(times) + " " + std::string(better);
  return formatFixed(1 / ratio, 3) + std::string(times) + " " + std::string(worse);
}

}  // namespace libra::report
