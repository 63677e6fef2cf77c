#include "libra/display_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace libra {

namespace {

// The length of the UTF-8 sequence at s[i] and its code point; 0 when the bytes
// there are not a valid, shortest-form sequence.
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t n = 0;
  char32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool needsEscape(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string escapeOf(char32_t cp) {
  switch (cp) {
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    default:
      break;
  }
  char buffer[16];
  if (cp < 0x80) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned>(cp));
  } else {
    std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(cp));
  }
  return buffer;
}

}  // namespace

std::string displayText(std::string_view text, std::size_t limit, bool* cut) {
  if (cut) *cut = false;
  std::string out;
  out.reserve(limit > 0 && limit < text.size() ? 4 * limit : text.size());
  std::size_t characters = 0;
  std::size_t keep = std::string::npos;  // out's size where limit - 1 characters end
  // Each piece (a character or one escape) is kept whole: a cut never splits an
  // escape or a UTF-8 sequence.
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = decode(text, i, cp);
    std::string piece;
    std::size_t width = 1;
    if (n == 0) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(text[i]));
      piece = buffer;
      width = piece.size();
    } else if (needsEscape(cp)) {
      piece = escapeOf(cp);
      width = piece.size();
    } else {
      piece = std::string(text.substr(i, n));
    }
    if (limit > 0) {
      if (keep == std::string::npos && characters + width > limit - 1) keep = out.size();
      if (characters + width > limit) {
        out.resize(keep);
        if (cut) *cut = true;
        return out + "…";
      }
    }
    out += piece;
    characters += width;
    i += n == 0 ? 1 : n;
  }
  return out;
}

std::string echoText(std::string_view text) {
  bool cut = false;
  std::string shown = displayText(text, kEchoLimit, &cut);
  if (!cut) return shown;
  return displayText(text, kEchoLimit - 2) + " (" + std::to_string(displayWidth(text)) +
         " characters)";
}

std::string quotedText(std::string_view text) {
  return "'" + echoText(text) + "'";
}

std::size_t displayWidth(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = decode(text, i, cp);
    i += n == 0 ? 1 : n;
    ++width;
  }
  return width;
}

std::string formatFixed(double value, int decimals) {
  if (std::isnan(value)) return "-";  // not a number: missing
  if (std::isinf(value)) return value > 0 ? "∞" : "-∞";
  decimals = std::clamp(decimals, 0, 9);
  char buffer[64];
  if (std::fabs(value) >= std::pow(10.0, 12 - decimals)) {
    std::snprintf(buffer, sizeof buffer, "%.3e", value);
    return buffer;
  }
  // At most 12 digits before the point and 9 after: the buffer holds any of them.
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string s = buffer;
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

}  // namespace libra
