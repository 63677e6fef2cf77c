// Units per magnitude: how the GUI's tables, tooltips and charts and the report
// show times, costs and bandwidths (s, ms or µs; thousand, million or billion
// $). One rule in one place, without Qt, so the report and the GUI agree.
#pragma once

#include <string>
#include <string_view>

#include "libra/display_text.hpp"

namespace libra::report {

// A unit of an axis or a column: values are divided by `size` and labelled `name`.
struct Unit {
  double size = 1;
  std::string name;

  double of(double value) const { return value / size; }
};

// The unit of times whose largest magnitude is `maxNs`: s from 1e9 ns, ms from
// 1e6 ns (and when nothing finite and positive is shown), else µs.
Unit timeUnitFor(double maxNs);
// The unit of costs whose largest magnitude is `maxUsd`: trillion $ from 1e12,
// billion $ from 1e9, million $ from 1e6 (and when nothing finite and positive
// is shown), else thousand $.
Unit costUnitFor(double maxUsd);

// One value in the unit that suits it: "701.34 ms", "12.40 µs", "3 ns", "1.250 s";
// "∞" when not finite.
std::string formatTime(double ns);
// `ns` in the unit and decimals formatTime gives `referenceNs`: the parts of a
// sum in the sum's unit ("1.990 s = 1.541 s + 0.449 s", not "+ 449.27 ms").
std::string formatTimeLike(double ns, double referenceNs);
// "$12.35 M", "$830.0 k", "$1.200 B", "$2.147 T", "$12"; scientific from
// $1e15 ("$1.235e+15"); "∞" when not finite.
std::string formatCost(double usd);
// "339.1 GB/s", "57.60 GB/s" (two decimals below 100); "∞" when not finite.
std::string formatBandwidth(double gbps);
// A count with thousands separators: "3,145,728", "-12,000"; printf's %.4g from
// 1e15 ("1.153e+18"); "-" when not finite (a count that is not a number is
// missing).
std::string formatCount(double count);
// formatFixed with thousands separators in the whole part: "1,234.56",
// "-12,000.0"; as formatFixed where that is scientific or not finite.
std::string formatGrouped(double value, int decimals);
// Four significant digits, printf's %.4g ("1.371e+06", "0.25"); "-" when not finite.
std::string shortNumber(double value);
// libra::formatFixed: %.<decimals>f up to 12 significant digits, scientific
// beyond ("1.235e+15"); "∞" / "-∞" / "-" when not finite.
using libra::formatFixed;
// "80.00 GB", "512.0 MB", "12.0 kB", "3 B" (powers of 1000); scientific beyond
// 1e12 GB.
std::string formatBytes(double bytes);
// An axis label: formatFixed below 1e6, else four significant digits in
// scientific notation ("2.5e+06"), as kAxisLabelFormatLarge is for Qt's axes.
std::string axisLabel(double value, int decimals);
inline constexpr double kAxisScientificFrom = 1e6;
inline constexpr const char* kAxisLabelFormatLarge = "%.4g";

// Whether `ratio` shows as 1.000 whichever way it is read (the same design, or
// equal within the three decimals shown).
bool sameAtShownPrecision(double ratio);
// A ratio where > 1 is better in words: "1.073x faster" / "1.075x slower"
// (`times` is "x" or "×"), "the same (1.000x)" when sameAtShownPrecision, "-"
// when not finite or not positive.
std::string ratioWords(double ratio, std::string_view better, std::string_view worse,
                       std::string_view times = "x");

}  // namespace libra::report
