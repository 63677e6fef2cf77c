// Units per magnitude: how the GUI's tables, tooltips and charts and the report
// show times, costs and bandwidths (s, ms or µs; thousand, million or billion
// $). One rule in one place, without Qt, so the report and the GUI agree.
#pragma once

#include <string>

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
// The unit of costs whose largest magnitude is `maxUsd`: billion $ from 1e9,
// million $ from 1e6 (and when nothing finite and positive is shown), else
// thousand $.
Unit costUnitFor(double maxUsd);

// One value in the unit that suits it: "701.34 ms", "12.40 µs", "3 ns", "1.250 s";
// "∞" when not finite.
std::string formatTime(double ns);
// "$12.35 M", "$830.0 k", "$1.200 B", "$12"; "∞" when not finite.
std::string formatCost(double usd);
// "339.1 GB/s", "57.60 GB/s" (two decimals below 100); "∞" when not finite.
std::string formatBandwidth(double gbps);
// A count with thousands separators: "3,145,728", "-12,000"; printf's %.4g from
// 1e15 ("1.153e+18"); "-" when not finite (a count that is not a number is
// missing).
std::string formatCount(double count);
// printf's %.<decimals>f, without a minus sign on zero; "∞" / "-∞" / "nan" when
// not finite.
std::string formatFixed(double value, int decimals);

}  // namespace libra::report
