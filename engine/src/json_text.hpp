// Parsing JSON text with errors that name the source, line and column, shared by
// the project file and the SC22 json readers (internal header).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "libra/error.hpp"
#include "text.hpp"

namespace libra::json_text {

// Line and column (1-based) of a byte offset as nlohmann reports it: `byte` is the
// 1-based index of the last character read.
inline std::pair<std::size_t, std::size_t> lineAndColumn(std::string_view text, std::size_t byte) {
  const std::size_t pos = std::min(byte == 0 ? 0 : byte - 1, text.size());
  std::size_t line = 1;
  std::size_t lineStart = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  }
  return {line, pos - lineStart + 1};
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at
// line 1, column 2: " prefix (we give the position ourselves).
inline std::string errorReason(const std::string& what) {
  std::string reason = what;
  if (reason.rfind("[json.exception.", 0) == 0 && reason.find("] ") != std::string::npos) {
    reason = reason.substr(reason.find("] ") + 2);
  }
  if (reason.rfind("parse error", 0) == 0 && reason.find(": ") != std::string::npos) {
    reason = reason.substr(reason.find(": ") + 2);
  }
  return reason;
}

// Parses `text`; throws InputError "source:line:column: malformed JSON: why", or
// "source: the file is empty".
template <class Json>
Json parse(std::string_view text, const std::string& source) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const typename Json::parse_error& e) {
    if (text::trim(text).empty()) throw InputError(source + ": the file is empty");
    const auto [line, column] = lineAndColumn(text, e.byte);
    throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": malformed JSON: " + errorReason(e.what()));
  } catch (const typename Json::exception& e) {
    throw InputError(source + ": malformed JSON: " + errorReason(e.what()));
  }
}

}  // namespace libra::json_text
