#include "libra/report/units.hpp"

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
  if (maxUsd >= 1e9 && std::isfinite(maxUsd)) return {1e9, "billion $"};
  if (maxUsd >= 1e6 || !(maxUsd > 0) || !std::isfinite(maxUsd)) return {1e6, "million $"};
  return {1e3, "thousand $"};
}

std::string formatFixed(double value, int decimals) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "∞" : "-∞";
  // Whatever its length: "%.0f" of 1e63 or more needs more than 64 characters.
  const int n = std::snprintf(nullptr, 0, "%.*f", decimals, value);
  if (n <= 0) return {};
  std::string s(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), "%.*f", decimals, value);
  s.resize(static_cast<std::size_t>(n));
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
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

std::string formatTime(double ns) {
  if (!std::isfinite(ns)) return "∞";
  const double a = std::fabs(ns);
  if (a >= 1e9) return formatFixed(ns / 1e9, 3) + " s";
  if (a >= 1e6) return formatFixed(ns / 1e6, 2) + " ms";
  if (a >= 1e3) return formatFixed(ns / 1e3, 2) + " µs";
  return formatFixed(ns, 0) + " ns";
}

std::string formatCost(double usd) {
  if (!std::isfinite(usd)) return "∞";
  const double a = std::fabs(usd);
  if (a >= 1e9) return "$" + formatFixed(usd / 1e9, 3) + " B";
  if (a >= 1e6) return "$" + formatFixed(usd / 1e6, 2) + " M";
  if (a >= 1e3) return "$" + formatFixed(usd / 1e3, 1) + " k";
  return "$" + formatFixed(usd, 0);
}

std::string formatBandwidth(double gbps) {
  if (!std::isfinite(gbps)) return "∞";
  return formatFixed(gbps, gbps >= 100 ? 1 : 2) + " GB/s";
}

}  // namespace libra::report
