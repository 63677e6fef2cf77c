// Small text helpers shared by the engine's parsers (internal header).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "libra/display_text.hpp"

namespace libra::text {

inline std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && lower(a) == lower(b);
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A value as messages echo it, and a name as they quote it (display_text.hpp).
inline std::string abbreviate(std::string_view s) {
  return echoText(s);
}
inline std::string quotedName(std::string_view name) {
  return quotedText(name);
}

// Shortest round-trippable decimal form, for messages.
std::string formatNumber(double value);

}  // namespace libra::text
