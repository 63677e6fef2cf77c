// Parsing JSON text with errors that name the source, line and column, shared by
// the project file and the SC22 json readers (internal header).
//
// Every JSON document the engine reads goes through parse() below, which also
// refuses what nlohmann would accept but must not be read:
//  - nesting deeper than kMaxJsonDepth (nlohmann's copy, comparison and dump
//    recurse once per level, so 100,000 '[' overflow the stack);
//  - a key that appears twice in one object (nlohmann keeps the last one, so a
//    second "constraints" would silently drop the first).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "libra/error.hpp"
#include "text.hpp"

namespace libra::json_text {

// Deepest nesting of arrays and objects accepted: a project file needs 6 levels,
// the GUI's view state a few more.
inline constexpr int kMaxJsonDepth = 64;

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

// The offset of the first '[' or '{' (outside strings) that opens level
// kMaxJsonDepth + 1, or npos. A linear scan, run before the parser.
inline std::size_t tooDeep(std::string_view text) {
  int depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// A key or an index, for the JSON path of a duplicate key: network.dimensions[0],
// cost_model["Inter Pod"].
inline std::string pathStep(const std::string& path, const std::string& key) {
  const bool identifier = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
                          std::all_of(key.begin(), key.end(), [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                          });
  if (identifier) return path.empty() ? key : path + "." + key;
  return path + "[" +
         nlohmann::json(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "]";
}

// Builds the document from nlohmann's SAX events and refuses a key that appears
// twice in one object. Each container is assembled from the bottom up: its
// members are gathered in the frame of its level (reused from one container
// to the next) and moved into it, at their exact count, when it closes.
// nlohmann's own builder (json_sax_dom_parser) grows each ordered_json object
// one key at a time, and an object's members, pair<const std::string, Json>,
// cannot be moved: every growth copied all members before it, deep (a
// pipelined workload's layers about three times over), and each new key was
// looked up with a linear search.
template <class Json>
class DocumentBuilder {
 public:
  using number_integer_t = typename Json::number_integer_t;
  using number_unsigned_t = typename Json::number_unsigned_t;
  using number_float_t = typename Json::number_float_t;
  using string_t = typename Json::string_t;
  using binary_t = typename Json::binary_t;

  DocumentBuilder(Json& root, std::string source) : root_(root), source_(std::move(source)) {}

  bool null() { return place(Json(nullptr)); }
  bool boolean(bool v) { return place(Json(v)); }
  bool number_integer(number_integer_t v) { return place(Json(v)); }
  bool number_unsigned(number_unsigned_t v) { return place(Json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return place(Json(v)); }
  bool string(string_t& v) { return place(Json(std::move(v))); }
  bool binary(binary_t& v) {
    Json j(Json::value_t::binary);
    j.template get_ref<binary_t&>() = std::move(v);
    return place(std::move(j));
  }
  bool start_object(std::size_t /*size*/) {
    open(true);
    return true;
  }
  bool key(string_t& k) {
    Level& level = open_[depth_ - 1];
    if (!level.keys.insert(k).second) {
      const std::string where = path();
      throw InputError(source_ + ": " + (where.empty() ? "the top-level object" : where) +
                       " has the key \"" + text::abbreviate(k) +
                       "\" twice (a second one would silently replace the first)");
    }
    level.key = std::move(k);
    return true;
  }
  bool end_object() {
    Level& level = open_[depth_ - 1];
    Json object(Json::value_t::object);
    auto& members = object.template get_ref<typename Json::object_t&>();
    if constexpr (requires { members.reserve(std::size_t{}); }) {
      // ordered_json: the keys are known to be distinct, so no search.
      members.reserve(level.members.size());
      for (auto& [k, v] : level.members) members.emplace_back(std::move(k), std::move(v));
    } else {
      for (auto& [k, v] : level.members) members.emplace(std::move(k), std::move(v));
    }
    --depth_;
    return place(std::move(object));
  }
  bool start_array(std::size_t /*size*/) {
    open(false);
    return true;
  }
  bool end_array() {
    Level& level = open_[depth_ - 1];
    Json array(Json::value_t::array);
    array.template get_ref<typename Json::array_t&>() = std::move(level.elements);
    level.elements = {};
    --depth_;
    return place(std::move(array));
  }
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& ex) {
    throw ex;
  }

 private:
  struct Level {
    bool object = false;
    std::unordered_set<std::string> keys;
    std::string key;  // the current member's key (objects)
    std::vector<std::pair<string_t, Json>> members;
    typename Json::array_t elements;  // the elements complete so far (arrays)
  };

  // A container begins: the next frame, cleared (its capacity kept, but for a
  // large key set, whose clear() would cost its bucket count every time).
  void open(bool object) {
    if (depth_ == open_.size()) open_.emplace_back();
    Level& level = open_[depth_++];
    level.object = object;
    if (level.keys.bucket_count() > 64) {
      level.keys = {};
    } else {
      level.keys.clear();
    }
    level.key.clear();
    level.members.clear();
    level.elements.clear();
  }

  // A value is complete: into its container, or the document.
  bool place(Json&& value) {
    if (depth_ == 0) {
      root_ = std::move(value);
      return true;
    }
    Level& level = open_[depth_ - 1];
    if (level.object) {
      level.members.emplace_back(std::move(level.key), std::move(value));
    } else {
      level.elements.push_back(std::move(value));
    }
    return true;
  }

  // The JSON path of the innermost open object.
  std::string path() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < depth_; ++i) {
      out = open_[i].object ? pathStep(out, text::abbreviate(open_[i].key))
                            : out + "[" + std::to_string(open_[i].elements.size()) + "]";
    }
    return out;
  }

  Json& root_;
  std::string source_;
  std::vector<Level> open_;  // open_[0, depth_) are the open containers, outermost first
  std::size_t depth_ = 0;
};

// Parses `text`; throws InputError "source:line:column: malformed JSON: why",
// "source:line:column: nesting deeper than 64 levels", "source: PATH has the key
// "k" twice (...)", or "source: the file is empty".
template <class Json>
Json parse(std::string_view text, const std::string& source) {
  if (const std::size_t deep = tooDeep(text); deep != std::string_view::npos) {
    const auto [line, column] = lineAndColumn(text, deep + 1);
    throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                     " levels (the limit)");
  }
  try {
    Json doc;
    DocumentBuilder<Json> sax(doc, source);
    Json::sax_parse(text.begin(), text.end(), &sax);
    return doc;
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
