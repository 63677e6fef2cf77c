// Small text helpers shared by the engine's parsers (internal header).
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

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

// A value as messages echo it: at most kEchoLimit characters, a longer one cut
// to its start, "..." and its length ("aaaa... (5000000 characters)").
inline constexpr std::size_t kEchoLimit = 80;
inline std::string abbreviate(std::string_view s) {
  if (s.size() <= kEchoLimit) return std::string(s);
  std::size_t cut = kEchoLimit - 3;
  // Do not cut inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " characters)";
}

// A name as messages quote it: abbreviated, in single quotes.
inline std::string quotedName(std::string_view name) {
  return "'" + abbreviate(name) + "'";
}

// Shortest round-trippable decimal form, for messages.
std::string formatNumber(double value);

}  // namespace libra::text
