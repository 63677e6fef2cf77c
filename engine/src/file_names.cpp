#include "libra/file_names.hpp"

#include <cctype>

namespace libra {

std::string fileStem(std::string_view name, char separator) {
  std::string out;
  for (const char c : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                      (c == '.' && !out.empty());
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != separator) {
      out += separator;
    }
  }
  while (!out.empty() && out.back() == separator) out.pop_back();
  return out;
}

}  // namespace libra
