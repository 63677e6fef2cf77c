#include "libra/file_names.hpp"

namespace libra {

namespace {

// Explicitly ASCII: std::isalnum follows the locale, and the GUI runs under the
// user's, where a byte of a UTF-8 sequence could count as a letter.
bool asciiLetterOrDigit(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

std::string fileStem(std::string_view name, char separator, std::size_t maxBytes) {
  std::string out;
  for (const char c : name) {
    if (out.size() >= maxBytes) break;
    const bool keep = asciiLetterOrDigit(c) || c == '-' || c == '_' || (c == '.' && !out.empty());
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != separator) {
      out += separator;
    }
  }
  while (!out.empty() && out.back() == separator) out.pop_back();
  return out;
}

std::string_view utf8Prefix(std::string_view s, std::size_t maxBytes) {
  if (s.size() <= maxBytes) return s;
  std::size_t cut = maxBytes;
  // s[cut] is the first byte left out: a continuation byte means a sequence is cut.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

}  // namespace libra
