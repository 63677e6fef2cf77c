// Text from files as the command line, the window and the report show it: a
// name in a project can hold anything JSON or YAML can, control characters and
// bidirectional overrides included, and any length.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace libra {

// How many characters a name takes in a table, a legend or a heading.
inline constexpr std::size_t kDisplayNameLimit = 48;
// How many characters of a title (a window's, a report's, a chart's heading).
inline constexpr std::size_t kDisplayTitleLimit = 120;

// `text` safe to print: control characters (C0, DEL, C1), the line and
// paragraph separators and the bidirectional controls become visible escapes
// ("\n", "\t", "\x1b", "\u202e"), a byte that is not UTF-8 becomes "\xff".
// When that text is longer than `limit` characters (code points), it is cut to
// limit - 1 of them and "…" is added (and `*cut` set); `limit` 0 means no limit.
std::string displayText(std::string_view text, std::size_t limit = 0, bool* cut = nullptr);

// A name as tables, legends and headings show it: displayText at kDisplayNameLimit.
inline std::string displayName(std::string_view name) {
  return displayText(name, kDisplayNameLimit);
}

// Text as a message echoes it: displayText, and when longer than kEchoLimit
// characters, cut to its start, "…" and its length ("aaaa… (5000000 characters)").
inline constexpr std::size_t kEchoLimit = 80;
std::string echoText(std::string_view text);
// echoText in single quotes, as messages name things: "'GPT-3 175B'".
std::string quotedText(std::string_view text);

// A number as every output shows it: printf's %.<decimals>f while that has at
// most 12 significant digits (|value| below 10^(12 - decimals)), else
// scientific with four ("1.235e+15"); no minus sign on zero; "∞" / "-∞" /
// "-" (missing) when not finite. No magnitude prints an 80-digit number.
std::string formatFixed(double value, int decimals);

// The number of characters (code points) of UTF-8 `text`; a byte that is not
// UTF-8 counts as one. Columns are aligned on this, not on bytes.
std::size_t displayWidth(std::string_view text);

}  // namespace libra
