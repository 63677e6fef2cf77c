// Number formatting with units, shared by tables, charts, tooltips and exports.
#pragma once

#include <QString>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace libra::studio {

// libra/report/units.hpp's formats: one rule for the window and the report.
QString formatTimeNs(double ns);       // "701.34 ms", "12.40 µs"
QString formatCostUsd(double usd);     // "$12.35 M", "$830.0 k"
QString formatBandwidth(double gbps);  // "339.1 GB/s"
QString formatNpus(long long npus);    // "4,096"
QString formatCount(double count);     // "3,145,728"; "-" when not finite
// libra::formatFixed: %.<decimals>f up to 12 significant digits, scientific beyond.
QString formatFixed(double value, int decimals);
// A compact number for text fields: no trailing zeros.
QString plainNumber(double value);

QString toQString(const std::string& text);
// An engine message as a sentence: capitalized, ending with a full stop.
QString sentence(const std::string& message);
// A name from a project as tables, legends, headings and undo entries show it
// (libra/display_text.hpp): controls and bidirectional overrides escaped, cut
// to 48 characters with "…". Editors and lookups use the name itself.
QString shownName(const std::string& name);
// libra::constraintDisplayText: safe, numbers at most 10 significant digits.
QString constraintText(const std::string& constraint);
// The same at another length (window titles, headings): `limit` characters.
QString shownText(const std::string& text, std::size_t limit);
std::string toStd(const QString& text);

// "pkg 339.1, node 84.9, pod 57.6 GB/s" for tooltips.
QString formatSplit(std::span<const std::string> names, std::span<const double> bw);

}  // namespace libra::studio
