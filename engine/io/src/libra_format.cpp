// Readers for the LIBRA reference inputs and the earlier ASTRA-sim 1.0 / SC22
// inputs (model.md section 8), and the importer that turns them into a project.
//
// YAML and JSON files are first turned into "cells": scalar texts that carry
// where they came from ("4d_network.yml:5:14: NpusCount[1]" or
// "4d.json: npus-count[1]"), so the checks are written once and every message
// names the file and the line or key.
#include "libra/libra_format.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "json_text.hpp"
#include "libra/cost.hpp"
#include "libra/error.hpp"
#include "libra/mapping.hpp"
#include "libra/project_io.hpp"
#include "libra/time_model.hpp"
#include "text.hpp"

namespace libra {

namespace {

using InputJson = nlohmann::json;

// ---------------------------------------------------------------------------
// Scalars.

std::optional<long long> toInteger(std::string_view s) {
  s = text::trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  long long value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<double> toNumber(std::string_view s) {
  s = text::trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string inQuotes(std::string_view s) {
  return "'" + text::abbreviate(s) + "'";
}

// A scalar read from a file, with its place for messages.
struct Cell {
  std::string text;
  std::string where;  // "file:line:col: key" or "file: key"

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(where + ": " + problem);
  }
  int integer(long long min, long long max, const std::string& expected) const {
    auto v = toInteger(text);
    if (!v || *v < min || *v > max) fail("expected " + expected + ", got " + inQuotes(text));
    return static_cast<int>(*v);
  }
  double price() const {
    auto v = toNumber(text);
    if (!v || *v < 0) fail("expected a price >= 0 ($ per GB/s), got " + inQuotes(text));
    return *v;
  }
};

// A list of cells, e.g. the NpusCount list.
struct CellList {
  std::string key;
  std::string location;  // "file:line:col" or "file"
  std::vector<Cell> cells;
};

// ---------------------------------------------------------------------------
// YAML sources.

std::string describeNode(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar:
      return inQuotes(node.Scalar());
    default:
      return "nothing";
  }
}

// Deepest nesting of YAML lists and maps accepted, as for JSON (json_text.hpp).
// The LIBRA files need 2 levels. yaml-cpp 0.7's own guard stops its recursive
// parser near 500 levels with the message "bad file" at line 1, column 1, which
// says neither what nor where.
constexpr int kMaxYamlDepth = 64;

// Walks the parser's events of the first document (the one YAML::Load reads)
// and throws DeepNesting at the first list or map that opens level
// kMaxYamlDepth + 1, so the recursive parser never goes deeper than that.
class YamlDepthCheck final : public YAML::EventHandler {
 public:
  struct DeepNesting {
    YAML::Mark mark;
  };

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnAlias(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnScalar(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {}
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/,
                       YAML::anchor_t /*anchor*/, YAML::EmitterStyle::value /*style*/) override {
    open(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  void open(const YAML::Mark& mark) {
    if (++depth_ > kMaxYamlDepth) throw DeepNesting{mark};
  }
  int depth_ = 0;
};

class YamlSource {
 public:
  YamlSource(std::string_view text, const std::string& file) : file_(file) {
    const std::string copy(text);
    try {
      std::istringstream in(copy);
      YAML::Parser parser(in);
      YamlDepthCheck check;
      parser.HandleNextDocument(check);
      root_ = YAML::Load(copy);
    } catch (const YamlDepthCheck::DeepNesting& e) {
      throw InputError(location(e.mark) + ": YAML nested deeper than " +
                       std::to_string(kMaxYamlDepth) + " levels (the limit)");
    } catch (const YAML::Exception& e) {
      throw InputError(location(e.mark) + ": malformed YAML: " + e.msg);
    }
  }

  const YAML::Node& root() const { return root_; }
  const std::string& file() const { return file_; }

  std::string location(const YAML::Mark& mark) const {
    if (mark.is_null()) return file_;
    return file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  std::string location(const YAML::Node& node) const { return location(node.Mark()); }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& problem) const {
    throw InputError(location(node) + ": " + problem);
  }
  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(file_ + ": " + problem);
  }

  Cell cell(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(node, key + ": expected a single value, got " + describeNode(node));
    return {node.Scalar(), location(node) + ": " + key};
  }

  CellList list(const YAML::Node& node, const std::string& key, const std::string& example) const {
    if (!node.IsSequence()) {
      fail(node, key + ": expected a list such as " + example + ", got " + describeNode(node));
    }
    CellList out{key, location(node), {}};
    for (std::size_t i = 0; i < node.size(); ++i) {
      out.cells.push_back(cell(node[i], key + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  // The entries of a map in file order; keys must be scalars and unique.
  std::vector<std::pair<Cell, YAML::Node>> entries(const YAML::Node& map,
                                                   const std::string& context) const {
    std::vector<std::pair<Cell, YAML::Node>> out;
    // Key -> the line it first appeared on. A hash map: comparing each key with
    // every earlier one took seconds on a map of 50,000 keys (1 MB).
    std::unordered_map<std::string, int> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      if (!key.IsScalar()) fail(key, context + "expected a name as key, got " + describeNode(key));
      const auto [first, inserted] = seen.try_emplace(key.Scalar(), key.Mark().line + 1);
      if (!inserted) {
        fail(key, context + "key '" + text::abbreviate(key.Scalar()) +
                      "' appears twice (first on line " + std::to_string(first->second) + ")");
      }
      out.emplace_back(Cell{key.Scalar(), location(key) + ": " + context + key.Scalar()},
                       it->second);
    }
    return out;
  }

 private:
  std::string file_;
  YAML::Node root_;
};

// Finds the listed keys of a top-level YAML map; any other key is an error.
std::vector<std::optional<YAML::Node>> namedEntries(const YamlSource& src,
                                                    const std::vector<std::string>& keys,
                                                    const std::string& kind) {
  std::string expected;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    expected += (i == 0 ? "" : i + 1 == keys.size() ? " and " : ", ") + keys[i];
  }
  const YAML::Node& root = src.root();
  if (!root.IsMap()) {
    if (!root.IsDefined() || root.IsNull()) {
      src.fail("the file is empty; " + kind + " lists " + expected);
    }
    src.fail(root, "expected a map with the keys " + expected + ", got " + describeNode(root));
  }
  std::vector<std::optional<YAML::Node>> found(keys.size());
  for (const auto& [key, value] : src.entries(root, "")) {
    auto it = std::find(keys.begin(), keys.end(), key.text);
    if (it == keys.end()) {
      key.fail("unknown key (" + kind + " lists " + expected + ")");
    }
    found[static_cast<std::size_t>(it - keys.begin())] = value;
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!found[i]) src.fail("missing key '" + keys[i] + "' (" + kind + " lists " + expected + ")");
  }
  return found;
}

// ---------------------------------------------------------------------------
// JSON sources.

InputJson parseJson(std::string_view text, const std::string& file) {
  return json_text::parse<InputJson>(text, file);
}

Cell jsonCell(const InputJson& value, const std::string& where) {
  if (value.is_string()) return {value.get<std::string>(), where};
  if (value.is_number()) return {value.dump(), where};
  const std::string got = value.is_array()    ? "a list"
                          : value.is_object() ? "an object"
                                              : value.dump();
  throw InputError(where + ": expected a number or a name, got " + got);
}

CellList jsonList(const InputJson& value, const std::string& file, const std::string& key,
                  const std::string& example) {
  if (!value.is_array()) {
    throw InputError(file + ": " + key + ": expected a list such as " + example + ", got " +
                     (value.is_object() ? std::string("an object") : value.dump()));
  }
  CellList out{key, file, {}};
  for (std::size_t i = 0; i < value.size(); ++i) {
    out.cells.push_back(jsonCell(value[i], file + ": " + key + "[" + std::to_string(i) + "]"));
  }
  return out;
}

bool looksLikeJson(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  text = text::trim(text);
  return !text.empty() && text.front() == '{';
}

// ---------------------------------------------------------------------------
// Network.

Network buildNetwork(const CellList& blocks, const CellList& npus, const CellList& levels,
                     const std::string& file) {
  auto sameLength = [](const CellList& a, const CellList& b) {
    if (a.cells.size() != b.cells.size()) {
      throw InputError(b.location + ": " + a.key + " has " + std::to_string(a.cells.size()) +
                       " entries but " + b.key + " has " + std::to_string(b.cells.size()));
    }
  };
  sameLength(blocks, npus);
  sameLength(blocks, levels);
  Network network;
  for (std::size_t i = 0; i < blocks.cells.size(); ++i) {
    Dimension d;
    auto block = parseBuildingBlock(blocks.cells[i].text);
    if (!block) {
      blocks.cells[i].fail("unknown building block " + inQuotes(blocks.cells[i].text) +
                           " (expected Ring, FullyConnected or Switch)");
    }
    d.block = *block;
    d.npus = npus.cells[i].integer(2, 1'000'000'000, "an integer >= 2 (NPUs in this dimension)");
    d.costLevel = std::string(text::trim(levels.cells[i].text));
    if (d.costLevel.empty()) levels.cells[i].fail("expected a cost level name, got nothing");
    d.name = dimensionNameFromLevel(d.costLevel);
    network.dims.push_back(std::move(d));
  }
  makeNamesUnique(network);
  try {
    network.validate();
  } catch (const InputError& e) {
    throw InputError(file + ": " + e.what());
  }
  return network;
}

NetworkFile networkFromYaml(std::string_view text, const std::string& file) {
  const YamlSource src(text, file);
  const auto found =
      namedEntries(src, {"Topology", "NpusCount", "CostDimension"}, "a network file");
  const CellList blocks = src.list(*found[0], "Topology", "[ Ring, FullyConnected, Switch ]");
  const CellList npus = src.list(*found[1], "NpusCount", "[ 16, 8, 32 ]");
  const CellList levels =
      src.list(*found[2], "CostDimension", "[ InterPackage, InterNode, InterPod ]");
  return {buildNetwork(blocks, npus, levels, src.file()), std::nullopt};
}

NetworkFile networkFromJson(std::string_view text, const std::string& file) {
  const InputJson doc = parseJson(text, file);
  const std::vector<std::string> keys{"npus-count", "topology", "network-type", "total-bandwidth"};
  if (!doc.is_object()) {
    throw InputError(file + ": expected a JSON object with npus-count, topology and network-type");
  }
  for (const auto& item : doc.items()) {
    if (std::find(keys.begin(), keys.end(), item.key()) == keys.end()) {
      throw InputError(file + ": " + item.key() +
                       ": unknown key (a json network lists npus-count, topology, network-type "
                       "and optionally total-bandwidth)");
    }
  }
  auto need = [&](const std::string& key) -> const InputJson& {
    if (!doc.contains(key)) {
      throw InputError(file + ": missing key '" + key +
                       "' (a json network lists npus-count, topology and network-type)");
    }
    return doc.at(key);
  };
  const CellList npus = jsonList(need("npus-count"), file, "npus-count", "[8, 8, 16]");
  const CellList blocks =
      jsonList(need("topology"), file, "topology", "[\"Ring\", \"FullyConnected\", \"Switch\"]");
  const CellList levels =
      jsonList(need("network-type"), file, "network-type", "[\"Package\", \"Node\", \"Pod\"]");
  NetworkFile out{buildNetwork(blocks, npus, levels, file), std::nullopt};
  if (doc.contains("total-bandwidth")) {
    const Cell budget = jsonCell(doc.at("total-bandwidth"), file + ": total-bandwidth");
    auto v = toNumber(budget.text);
    if (!v || *v <= 0) budget.fail("expected a bandwidth > 0 (GB/s), got " + inQuotes(budget.text));
    out.totalBandwidth = *v;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Cost model.

void setPrice(CostLevel& level, const Cell& key, const Cell& value) {
  if (key.text == "Link") {
    level.link = value.price();
  } else if (key.text == "Switch") {
    level.switchPrice = value.price();
  } else if (key.text == "Nic") {
    level.nic = value.price();
  } else {
    key.fail("unknown key (a cost level has Link, Switch and Nic prices)");
  }
}

CostModel costModelFromYaml(std::string_view text, const std::string& file) {
  const YamlSource src(text, file);
  const YAML::Node& root = src.root();
  if (!root.IsMap()) {
    if (!root.IsDefined() || root.IsNull()) {
      src.fail("the file is empty; a cost model has one map of prices per cost level");
    }
    src.fail(root, "expected one map of prices per cost level, got " + describeNode(root));
  }
  CostModel model;
  for (const auto& [name, prices] : src.entries(root, "")) {
    if (!prices.IsMap()) {
      name.fail("expected a map with Link, Switch or Nic prices, got " + describeNode(prices));
    }
    CostLevel level;
    for (const auto& [key, value] : src.entries(prices, name.text + ".")) {
      setPrice(level, key, src.cell(value, name.text + "." + key.text));
    }
    model.levels[name.text] = level;
  }
  return model;
}

CostModel costModelFromJson(std::string_view text, const std::string& file) {
  const InputJson doc = parseJson(text, file);
  if (!doc.is_object()) {
    throw InputError(file + ": expected a JSON object with one object of prices per cost level");
  }
  CostModel model;
  for (const auto& level : doc.items()) {
    const std::string where = file + ": " + level.key();
    if (!level.value().is_object()) {
      throw InputError(where + ": expected an object with Link, Switch or Nic prices");
    }
    CostLevel out;
    for (const auto& price : level.value().items()) {
      const std::string at = where + "." + price.key();
      setPrice(out, Cell{price.key(), at}, jsonCell(price.value(), at));
    }
    model.levels[level.key()] = out;
  }
  return model;
}

// ---------------------------------------------------------------------------
// Workload.

constexpr int kLayerFields = 12;
constexpr std::array<std::string_view, kLayerFields> kFieldNames{
    "name",   "dependency", "Fcompute",  "Ftype",  "Fsize",  "IGcompute",
    "IGtype", "IGsize",     "WGcompute", "WGtype", "WGsize", "update"};

struct TextLine {
  int number = 0;
  std::vector<std::string_view> fields;
};

std::vector<TextLine> nonBlankLines(std::string_view text) {
  std::vector<TextLine> lines;
  int number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    ++number;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    TextLine out{number, {}};
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      const std::size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > start) out.fields.push_back(line.substr(start, i - start));
    }
    if (!out.fields.empty()) lines.push_back(std::move(out));
  }
  return lines;
}

bool looksLikeLayer(const TextLine& line) {
  return line.fields.size() == kLayerFields && toInteger(line.fields[1]) &&
         toNumber(line.fields[2]);
}

// An ASTRA-sim 1.0 file starts with a parallelism line (DATA,
// HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 16 ..., ...) and a
// line with the layer count; the LIBRA files start with the first layer.
bool hasHeader(const std::vector<TextLine>& lines) {
  if (lines.empty() || looksLikeLayer(lines[0])) return false;
  const auto& first = lines[0].fields;
  if (first.size() == 1) return true;
  if (std::find(first.begin(), first.end(), "model_parallel_NPU_group:") != first.end()) {
    return true;
  }
  return lines.size() > 1 && lines[1].fields.size() == 1;
}

Layer parseLayer(const TextLine& line, const std::string& file) {
  const std::string where = file + ":" + std::to_string(line.number) + ": ";
  if (line.fields.size() != kLayerFields) {
    throw InputError(where + "expected 12 fields, found " + std::to_string(line.fields.size()) +
                     " (name dep Fcompute Ftype Fsize IGcompute IGtype IGsize WGcompute WGtype "
                     "WGsize update)");
  }
  auto field = [&](int i) {
    return where + "field " + std::to_string(i + 1) + " (" + std::string(kFieldNames[i]) + ")";
  };
  auto number = [&](int i) {
    auto v = toNumber(line.fields[i]);
    if (!v || *v < 0) {
      throw InputError(field(i) + ": expected a number >= 0, got " + inQuotes(line.fields[i]));
    }
    return *v;
  };
  Layer layer;
  layer.name = std::string(line.fields[0]);
  if (!toInteger(line.fields[1])) {
    throw InputError(field(1) + ": expected an integer (-1 for none), got " +
                     inQuotes(line.fields[1]));
  }
  for (PhaseKind kind : kPhaseKinds) {
    const int base = 2 + 3 * static_cast<int>(kind);
    Phase& p = layer.phase(kind);
    p.computeNs = number(base);
    auto type = parseCollectiveType(line.fields[base + 1]);
    if (!type) {
      throw InputError(field(base + 1) + ": unknown collective type " +
                       inQuotes(line.fields[base + 1]) +
                       " (expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL)");
    }
    p.collective = *type;
    p.sizeBytes = number(base + 2);
  }
  layer.updateNs = number(11);
  return layer;
}

// "[4, 4, 1, 1]"
std::string bracketed(const std::vector<int>& groups) {
  std::string out;
  for (std::size_t i = 0; i < groups.size(); ++i)
    out += (i ? ", " : "") + std::to_string(groups[i]);
  return "[" + out + "]";
}

}  // namespace

// ---------------------------------------------------------------------------

NetworkFile readNetworkText(std::string_view text, const std::string& source) {
  if (looksLikeJson(text)) return networkFromJson(text, source);
  return networkFromYaml(text, source);
}

NetworkFile readNetworkFileWithBudget(const std::filesystem::path& path) {
  return readNetworkText(readFile(path), path.string());
}

Network readNetworkFile(const std::filesystem::path& path) {
  return readNetworkFileWithBudget(path).network;
}

CostModel readCostModelText(std::string_view text, const std::string& source) {
  if (looksLikeJson(text)) return costModelFromJson(text, source);
  return costModelFromYaml(text, source);
}

CostModel readCostModelFile(const std::filesystem::path& path) {
  return readCostModelText(readFile(path), path.string());
}

Communicator readCommunicatorFile(const std::filesystem::path& path, const Network& network) {
  return readCommunicatorText(readFile(path), path.string(), network);
}

Communicator readCommunicatorText(std::string_view text, const std::string& source,
                                  const Network& network) {
  const YamlSource src(text, source);
  const auto found =
      namedEntries(src, {"Forward", "InputGrad", "WeightGrad"}, "a communicator file");
  Communicator comm;
  for (PhaseKind kind : kPhaseKinds) {
    const YAML::Node& node = *found[static_cast<int>(kind)];
    const std::string key = kind == PhaseKind::Forward     ? "Forward"
                            : kind == PhaseKind::InputGrad ? "InputGrad"
                                                           : "WeightGrad";
    const CellList list = src.list(node, key, "[ 4, 4, -1, -1 ]");
    std::vector<int>& groups = comm.of(kind);
    for (const Cell& cell : list.cells) {
      const int g = cell.integer(-1, 1'000'000'000, "a group size (-1 = unused)");
      groups.push_back(g == -1 ? 1 : g);
    }
    // Check this list alone, so the message points at its line: the other phases
    // are filled with a valid placeholder.
    Communicator single;
    for (PhaseKind other : kPhaseKinds) {
      single.of(other) = other == kind ? groups : std::vector<int>(network.dims.size(), 1);
    }
    validateCommunicator(single, network, list.location);
  }
  return comm;
}

WorkloadFile readWorkloadFile(const std::filesystem::path& path) {
  return readWorkloadText(readFile(path), path.string(), path.stem().string());
}

WorkloadFile readWorkloadText(std::string_view text, const std::string& file,
                              const std::string& name) {
  const std::vector<TextLine> lines = nonBlankLines(text);
  WorkloadFile out;
  out.workload.name = name;
  std::size_t first = 0;
  std::optional<long long> announced;
  int countLine = 0;
  if (hasHeader(lines)) {
    const TextLine& header = lines[0];
    out.parallelism = std::string(header.fields[0]);
    for (std::size_t i = 1; i < header.fields.size(); ++i) {
      if (header.fields[i] != "model_parallel_NPU_group:") continue;
      const std::string where =
          file + ":" + std::to_string(header.number) + ": model_parallel_NPU_group: ";
      if (i + 1 >= header.fields.size()) throw InputError(where + "the value is missing");
      auto group = toInteger(header.fields[i + 1]);
      if (!group || *group < 1 || *group > 1'000'000'000) {
        throw InputError(where + "expected a positive integer, got " +
                         inQuotes(header.fields[i + 1]));
      }
      out.modelParallelGroup = static_cast<int>(*group);
    }
    if (lines.size() < 2) {
      throw InputError(file + ":" + std::to_string(header.number + 1) +
                       ": expected the layer count after the header line");
    }
    countLine = lines[1].number;
    const std::string countText(lines[1].fields[0]);
    announced = toInteger(countText);
    if (lines[1].fields.size() != 1 || !announced || *announced < 0) {
      throw InputError(file + ":" + std::to_string(countLine) +
                       ": expected the layer count (an integer >= 0) on the line after the "
                       "header, got " +
                       inQuotes(countText));
    }
    first = 2;
  }
  for (std::size_t i = first; i < lines.size(); ++i) {
    out.workload.layers.push_back(parseLayer(lines[i], file));
  }
  if (announced && static_cast<std::size_t>(*announced) != out.workload.layers.size()) {
    throw InputError(file + ":" + std::to_string(countLine) + ": the header announces " +
                     std::to_string(*announced) + " layers, but the file has " +
                     std::to_string(out.workload.layers.size()));
  }
  if (out.workload.layers.empty()) throw InputError(file + ": the file holds no layers");
  return out;
}

Communicator deriveCommunicator(const Network& network, std::int64_t tensorParallel) {
  std::string shape;
  for (const auto& d : network.dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d.npus);
  const std::string what = "tensor-parallel degree " + std::to_string(tensorParallel);
  if (tensorParallel < 1) throw InputError(what + " is invalid: it must be at least 1");
  if (tensorParallel == network.npuCount()) {
    // Tensor parallel over every NPU (a MODEL header): every dimension, whatever the count.
    Communicator all;
    for (const Dimension& d : network.dims) {
      all.of(PhaseKind::Forward).push_back(d.npus);
      all.of(PhaseKind::InputGrad).push_back(d.npus);
      all.of(PhaseKind::WeightGrad).push_back(1);
    }
    return all;
  }
  if (tensorParallel > std::numeric_limits<int>::max()) {
    throw InputError(what + " does not fit network " + shape + ": it must be at most " +
                     std::to_string(std::numeric_limits<int>::max()) +
                     " unless it spans every NPU");
  }
  // The reference communicators are tensor parallel from the inside out and data
  // parallel over the rest from the outside in: the general mapping with TP only.
  Parallelism parallelism;
  parallelism.tp = static_cast<int>(tensorParallel);
  try {
    return mapParallelism(network, parallelism).communicator();
  } catch (const InputError& e) {
    throw InputError(what + " does not fit network " + shape + ": " + e.what());
  }
}

// ---------------------------------------------------------------------------
// Writing the ASTRA-sim 1.0 text format.

namespace {

bool movesBytes(const Phase& phase) {
  return phase.collective != CollectiveType::None && phase.sizeBytes > 0;
}

// The phase kinds whose collectives move bytes somewhere in the workload: only
// their group sizes have to match what the header says.
std::array<bool, 3> usedPhaseKinds(const Workload& workload) {
  std::array<bool, 3> used{false, false, false};
  for (const Layer& layer : workload.layers) {
    for (PhaseKind kind : kPhaseKinds) {
      if (movesBytes(layer.phase(kind))) used[static_cast<int>(kind)] = true;
    }
  }
  return used;
}

std::int64_t product(const std::vector<int>& groups) {
  std::int64_t p = 1;
  for (int g : groups) p *= g;
  return p;
}

// The tensor-parallel degree T whose derived communicator (deriveCommunicator)
// equals the workload's on every phase kind that moves bytes; nullopt when none
// does.
std::optional<int> headerTensorParallel(const Workload& workload, const Network& network) {
  const std::array<bool, 3> used = usedPhaseKinds(workload);
  const Communicator& comm = workload.communicator;
  const std::int64_t npus = network.npuCount();
  std::vector<std::int64_t> candidates;
  for (PhaseKind kind : {PhaseKind::Forward, PhaseKind::InputGrad}) {
    if (used[static_cast<int>(kind)]) candidates.push_back(product(comm.of(kind)));
  }
  if (used[static_cast<int>(PhaseKind::WeightGrad)]) {
    const std::int64_t dp = product(comm.of(PhaseKind::WeightGrad));
    if (dp > 0 && npus % dp == 0) candidates.push_back(npus / dp);
  }
  if (candidates.empty()) return 1;  // nothing moves: any header will do
  for (std::int64_t tp : candidates) {
    if (tp < 1 || tp > npus) continue;
    Communicator derived;
    try {
      derived = deriveCommunicator(network, static_cast<int>(tp));
    } catch (const InputError&) {
      continue;
    }
    bool same = true;
    for (PhaseKind kind : kPhaseKinds) {
      if (used[static_cast<int>(kind)] && derived.of(kind) != comm.of(kind)) same = false;
    }
    if (same) return static_cast<int>(tp);
  }
  return std::nullopt;
}

// A whole number as the format's integer fields hold it.
std::string wholeNumber(double value, const std::string& where, int& rounded) {
  if (!(value >= 0) || value > 9.2e18) {
    throw InputError(where + ": " + text::formatNumber(value) +
                     " does not fit the format's 64-bit integer fields");
  }
  const long long whole = std::llround(value);
  if (static_cast<double>(whole) != value) ++rounded;
  return std::to_string(whole);
}

std::string_view referenceSpelling(CollectiveType type) {
  switch (type) {
    case CollectiveType::AllReduce:
      return "ALLREDUCE";
    case CollectiveType::ReduceScatter:
      return "REDUCESCATTER";
    case CollectiveType::AllGather:
      return "ALLGATHER";
    case CollectiveType::AllToAll:
      return "ALLTOALL";
    case CollectiveType::SendRecv:  // refused by astraSim1Limitation
    case CollectiveType::None:
      break;
  }
  return "NONE";
}

}  // namespace

std::optional<std::string> astraSim1Limitation(const Workload& workload, const Network& network) {
  std::vector<std::string> overridden;
  for (const Layer& layer : workload.layers) {
    for (PhaseKind kind : kPhaseKinds) {
      const Phase& p = layer.phase(kind);
      if (p.collective == CollectiveType::SendRecv && movesBytes(p)) {
        return "layer '" + layer.name + "' " + std::string(toString(kind)) +
               " sends point to point (pipeline parallelism), which the ASTRA-sim 1.0 text "
               "format has no collective for";
      }
      if (!p.groups.empty() && movesBytes(p) && p.groups != workload.communicator.of(kind)) {
        overridden.push_back("'" + layer.name + "' " + std::string(toString(kind)));
      }
    }
  }
  if (!overridden.empty()) {
    std::string list;
    for (std::size_t i = 0; i < overridden.size() && i < 3; ++i) {
      list += (i ? ", " : "") + overridden[i];
    }
    if (overridden.size() > 3) list += " and " + std::to_string(overridden.size() - 3) + " more";
    return std::to_string(overridden.size()) + " phase(s) have their own group sizes (" + list +
           "), and the ASTRA-sim 1.0 text format has one communicator per file";
  }
  if (!headerTensorParallel(workload, network)) {
    const Communicator& c = workload.communicator;
    return "its communicator (forward " + bracketed(c.of(PhaseKind::Forward)) +
           ", input gradient " + bracketed(c.of(PhaseKind::InputGrad)) + ", weight gradient " +
           bracketed(c.of(PhaseKind::WeightGrad)) +
           ") is not tensor parallel from the inside out with data parallelism over the rest, "
           "which is all a parallelism line of the ASTRA-sim 1.0 text format can say";
  }
  return std::nullopt;
}

AstraSim1Workload writeAstraSim1Workload(const Workload& workload, const Network& network) {
  if (auto why = astraSim1Limitation(workload, network)) {
    throw InputError("workload '" + workload.name +
                     "' cannot be written as ASTRA-sim 1.0 text: " + *why);
  }
  AstraSim1Workload out;
  const int tp = *headerTensorParallel(workload, network);
  std::string header;
  if (tp == 1) {
    out.parallelism = "DATA";
    header = "DATA";
  } else if (tp == network.npuCount()) {
    out.parallelism = "MODEL";
    header = "MODEL";
  } else {
    out.parallelism = "HYBRID_TRANSFORMER";
    out.modelParallelGroup = tp;
    header = "HYBRID_TRANSFORMER model_parallel_NPU_group: " + std::to_string(tp);
  }
  out.text = header + "\n" + std::to_string(workload.layers.size()) + "\n";
  for (std::size_t i = 0; i < workload.layers.size(); ++i) {
    const Layer& layer = workload.layers[i];
    std::string name = layer.name;
    for (char& c : name) {
      if (std::isspace(static_cast<unsigned char>(c))) c = '_';
    }
    if (name.empty()) name = "layer" + std::to_string(i);
    if (name != layer.name) ++out.renamedLayers;
    const std::string where = "workload '" + workload.name + "', layer '" + layer.name + "'";
    std::string line = name + " -1";
    for (PhaseKind kind : kPhaseKinds) {
      const Phase& p = layer.phase(kind);
      const std::string at = where + " " + std::string(toString(kind));
      line += " " + wholeNumber(p.computeNs, at + " compute time", out.roundedValues);
      line += " " + std::string(referenceSpelling(p.collective));
      line += " " + wholeNumber(p.sizeBytes, at + " size", out.roundedValues);
    }
    line += " " + wholeNumber(layer.updateNs, where + " update time", out.roundedValues);
    out.text += line + "\n";
  }
  return out;
}

namespace {

// The prices of the cost model file, or the reference prices of the levels the
// network uses; what it did goes to `note`.
CostModel importedCostModel(const ImportOptions& options, const Network& network,
                            const std::function<void(std::string)>& note) {
  if (options.costModel) {
    CostModel model = readCostModelFile(*options.costModel);
    try {
      (void)unitPrices(network, model);
    } catch (const InputError& e) {
      throw InputError(options.costModel->string() + ": " + e.what());
    }
    return model;
  }
  // Only the levels this network uses, so the project lists what matters.
  const CostModel reference = referenceCostModel();
  std::string known;
  for (const auto& [name, level] : reference.levels) {
    known += (known.empty() ? "" : ", ") + name;
  }
  CostModel model;
  for (const auto& d : network.dims) {
    auto it = reference.levels.find(d.costLevel);
    if (it == reference.levels.end()) {
      throw InputError(options.network.string() + ": dimension '" + d.name + "' uses cost level '" +
                       d.costLevel + "', which has no reference prices (known: " + known +
                       "); give a cost model file");
    }
    model.levels.insert(*it);
  }
  note("no cost model given: using the reference unit prices of LIBRA (ISPASS 2024)");
  return model;
}

// The communicator file's groups, or groups derived from the workload's
// header (model_parallel_NPU_group, MODEL or DATA); what it assumed goes to `note`.
Communicator importedCommunicator(const ImportOptions& options, const WorkloadFile& workload,
                                  const Network& network,
                                  const std::function<void(std::string)>& note) {
  if (options.communicator) return readCommunicatorFile(*options.communicator, network);
  const std::int64_t npus = network.npuCount();
  std::int64_t tp = 1;
  std::string why;
  if (workload.modelParallelGroup) {
    tp = *workload.modelParallelGroup;
    why = "no communicator given: derived from the workload header's model_parallel_NPU_group " +
          std::to_string(tp);
  } else if (workload.parallelism && text::iequals(*workload.parallelism, "MODEL")) {
    tp = npus;
    why =
        "no communicator given and the workload header says MODEL: assuming tensor "
        "parallelism over all " +
        std::to_string(npus) + " NPUs";
  } else if (workload.parallelism) {
    why = "no communicator given and the workload header (" + *workload.parallelism +
          ") names no model_parallel_NPU_group: assuming data parallelism over all " +
          std::to_string(npus) + " NPUs";
  } else {
    why =
        "no communicator given and the workload has no header: assuming data parallelism "
        "over all " +
        std::to_string(npus) + " NPUs";
  }
  Communicator comm;
  try {
    comm = deriveCommunicator(network, tp);
  } catch (const InputError& e) {
    throw InputError(options.workload.string() + ": " + e.what());
  }
  note(why + " (forward and input gradient " + bracketed(comm.of(PhaseKind::Forward)) +
       ", weight gradient " + bracketed(comm.of(PhaseKind::WeightGrad)) + ")");
  return comm;
}

}  // namespace

Project importLibra(const ImportOptions& options, std::vector<std::string>* notes) {
  const std::function<void(std::string)> note = [&](std::string text) {
    if (notes) notes->push_back(std::move(text));
  };
  const NetworkFile net = readNetworkFileWithBudget(options.network);
  WorkloadFile workload = readWorkloadFile(options.workload);

  Project p;
  p.name = options.name.value_or(options.workload.stem().string() + " on " +
                                 options.network.stem().string());
  p.network = net.network;
  p.costModel = importedCostModel(options, p.network, note);
  workload.workload.communicator = importedCommunicator(options, workload, p.network, note);
  p.workloads.push_back(std::move(workload.workload));
  p.model.trainingLoop = options.trainingLoop;

  if (net.totalBandwidth) {
    const std::string c = "total == " + text::formatNumber(*net.totalBandwidth);
    p.constraints.push_back(c);
    note("the network file's total-bandwidth of " + text::formatNumber(*net.totalBandwidth) +
         " GB/s became the constraint '" + c + "'");
  } else {
    p.constraints.push_back("total == 500");
    note("no bandwidth budget in the inputs: added 'total == 500' (the LIBRA paper's setting)");
  }
  validateProject(p);
  return p;
}

}  // namespace libra
