// The project file (schema in project_io.hpp's users' spec). A project of one
// unnamed scenario (most projects) keeps the layout of schema 2:
//
//   { "format": "libra-project", "schema_version": 2, "name": ...,
//     "network": {"dimensions": [...]}, "cost_model": {...}, "workloads": [...],
//     "training_loop": ..., "chunks": ..., "constraints": [...], "objective": ...,
//     "cost_scope": ..., "npu_price_usd": ..., "ui": {...} }
//
// A project of several (or of one named) scenario lists them, each with the
// scenario keys above (network ... npu_price_usd) and its "name":
//
//   { "format": "libra-project", "schema_version": 3, "name": ...,
//     "active_scenario": "fast", "scenarios": [{"name": "fast", "network": ...}, ...],
//     "ui": {...} }
//
// Such a file says schema 3 so that a version before scenarios refuses it as
// newer instead of dropping the other scenarios; a project of one unnamed
// scenario says 2, so it stays byte for byte what earlier versions wrote, and
// they can still open it. Scenario names are non-empty and unique;
// "active_scenario" (optional: the first) names one of them.
//
// Reading is strict: unknown keys are errors everywhere except inside "ui" (the
// GUI's opaque view state), so a typo never silently drops a setting. Optional on
// reading: the dimension bounds, a workload's "weight" (1) and "origin",
// "device" and "parameters" inside an origin, a layer's "update_ns" (0), a
// phase's own "groups" (written only when the phase has them), a dimension's
// "latency_ns" (0), a network's "endpoint_delay_ns" (0; written only when set),
// and in a scenario "training_loop" (no-overlap), "chunks"
// ("ideal": LIBRA's model; written only when not ideal), "limits" (the building
// blocks' BlockLimits defaults; written only when not those), "constraints" ([]),
// "objective" (performance), "cost_scope" (network; written only when "system"),
// "npu_price_usd" (the device's list price; written only when set), and "ui".
// Every error is one line: source, JSON path, problem.
#include "libra/project_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "json_text.hpp"
#include "libra/constraints.hpp"
#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

namespace {

// ordered_json keeps keys in insertion order: the file is written in the order of
// the schema, and the GUI's "ui" object comes back exactly as it was stored.
using Json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------
// Schema migrations. Every upgrade of the file format lives here, one step per
// version: a file of version v goes through the steps v -> v + 1 -> ... up to
// kProjectSchemaVersion before it is read, so the reader only ever knows the
// current schema. Each step says what changed and what it means for an old
// file (readProject reports the steps a file went through). Keep a frozen file
// of every old version in the tests.

struct Migration {
  int from;  // upgrades a document of this schema to from + 1
  const char* explanation;
  // Rewrites the document, or throws InputError (naming `source`) for content
  // its version cannot hold.
  void (*apply)(Json& doc, const std::string& source);
};

constexpr Migration kMigrations[] = {
    {1,
     "schema 1 -> 2: \"chunks\" and a dimension's \"latency_ns\" are new and optional; a "
     "version-1 file has neither, which means LIBRA's ideal model, as it did",
     [](Json&, const std::string&) {}},
    {2,
     "schema 2 -> 3: \"scenarios\" (several named designs in one project) is new; a "
     "version-2 file is a project of one unnamed scenario, in the layout version 3 keeps for it",
     [](Json& doc, const std::string& source) {
       // Nothing to rewrite, but a file before schema 3 cannot hold scenarios:
       // a version that knows no scenarios would refuse the key, not the version.
       if (doc.contains("scenarios") || doc.contains("active_scenario")) {
         throw InputError(
             source + ": " + (doc.contains("scenarios") ? "scenarios" : "active_scenario") +
             ": schema " +
             doc["schema_version"].dump(-1, ' ', false, Json::error_handler_t::replace) +
             " has no scenarios (they came with schema 3); set "
             "\"schema_version\" to 3");
       }
     }},
    {3,
     "schema 3 -> 4: a communicator's and a phase's \"strides\" (how far apart a group's "
     "NPUs are on each dimension) are new and optional; a version-3 file has none, which means "
     "consecutive groups",
     [](Json& doc, const std::string& source) {
       if (doc.dump(-1, ' ', false, Json::error_handler_t::replace).find("\"strides\"") !=
           std::string::npos) {
         throw InputError(
             source + ": strides: schema " +
             doc["schema_version"].dump(-1, ' ', false, Json::error_handler_t::replace) +
             " has no strides (they came with schema 4); set \"schema_version\" "
             "to 4");
       }
     }},
};
static_assert(std::size(kMigrations) == kProjectSchemaVersion - 1,
              "one migration step per schema version");

// Upgrades `doc` from `fromVersion`; returns the explanations of the steps taken.
std::vector<std::string> migrate(Json& doc, int fromVersion, const std::string& source) {
  std::vector<std::string> steps;
  for (const Migration& m : kMigrations) {
    if (m.from < fromVersion) continue;
    m.apply(doc, source);
    steps.emplace_back(m.explanation);
  }
  doc["schema_version"] = kProjectSchemaVersion;
  return steps;
}

// The keys of a scenario: at the top level of a one-scenario file, inside each
// element of "scenarios" otherwise.
constexpr std::string_view kScenarioKeys[] = {
    "network", "cost_model",  "workloads", "training_loop", "chunks",
    "limits",  "constraints", "objective", "cost_scope",    "npu_price_usd"};

std::vector<std::string_view> keysWith(std::initializer_list<std::string_view> before,
                                       std::initializer_list<std::string_view> after) {
  std::vector<std::string_view> keys(before);
  keys.insert(keys.end(), std::begin(kScenarioKeys), std::end(kScenarioKeys));
  keys.insert(keys.end(), after);
  return keys;
}

bool usesStrides(const Project& project) {
  auto inWorkloads = [](const std::vector<Workload>& workloads) {
    for (const Workload& w : workloads) {
      for (const auto& s : w.communicator.strides) {
        if (!s.empty()) return true;
      }
      for (const Layer& l : w.layers) {
        for (const Phase& p : l.phases) {
          if (!p.strides.empty()) return true;
        }
      }
    }
    return false;
  };
  if (inWorkloads(project.workloads)) return true;
  for (const auto& scenario : project.otherScenarios) {
    if (inWorkloads(scenario.scenario.workloads)) return true;
  }
  return false;
}

// The schema a project is written in: the oldest that holds it (2, the layout
// without scenarios, for one unnamed scenario; 3 with scenarios; 4 with strides).
int writtenSchemaVersion(const Project& project) {
  if (usesStrides(project)) return kProjectSchemaVersion;
  return project.otherScenarios.empty() && project.scenarioName.empty() ? 2 : 3;
}

// ---------------------------------------------------------------------------
// Shared helpers.

bool isIdentifier(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front()))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// JSON path of a member: network.dimensions[0].npus; keys that are not
// identifiers are quoted: cost_model["Inter Pod"].Link.
std::string member(const std::string& path, std::string_view key) {
  if (isIdentifier(key)) return path.empty() ? std::string(key) : path + "." + std::string(key);
  return path + "[" + Json(std::string(key)).dump(-1, ' ', false, Json::error_handler_t::replace) +
         "]";
}

std::string element(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

// A value for messages: strings quoted, containers named, long text shortened.
std::string describe(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  return text::abbreviate(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

Json parseDocument(std::string_view text, const std::string& source) {
  return json_text::parse<Json>(text, source);
}

// ---------------------------------------------------------------------------
// Writing.

// An object with room for `members` keys. An ordered_json object is a vector of
// pair<const std::string, Json>, which cannot be moved: each reallocation copies
// every member, deep (a workload's layers were copied about three times over).
Json objectWithRoom(std::size_t members) {
  Json j = Json::object();
  j.get_ref<Json::object_t&>().reserve(members);
  return j;
}

class Writer {
 public:
  // Integral values print as integers (9375000, not 9375000.0); the others in
  // nlohmann's shortest form that reads back to the same double.
  // `path()` names the value in the message when it cannot be saved; it is not
  // built otherwise (a pipelined workload has 10^5 numbers).
  template <class PathOf>
  Json number(double value, const PathOf& path) const {
    if (!std::isfinite(value)) {
      throw InputError("project: " + path() + " is " + text::formatNumber(value) +
                       "; only finite numbers can be saved");
    }
    constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
    if (std::trunc(value) == value && std::abs(value) <= kExactIntegers) {
      return Json(static_cast<std::int64_t>(value));
    }
    return Json(value);
  }
  Json number(double value, const std::string& path) const {
    return number(value, [&] { return path; });
  }

  Json network(const Network& network, const std::string& at) const {
    Json dims = Json::array();
    for (std::size_t i = 0; i < network.dims.size(); ++i) {
      const Dimension& d = network.dims[i];
      const std::string path = element(member(at, "dimensions"), i);
      Json j = Json::object();
      j["name"] = d.name;
      j["block"] = std::string(toString(d.block));
      j["npus"] = d.npus;
      j["cost_level"] = d.costLevel;
      if (d.minBandwidth) {
        j["min_bandwidth_gbps"] = number(*d.minBandwidth, path + ".min_bandwidth_gbps");
      }
      if (d.maxBandwidth) {
        j["max_bandwidth_gbps"] = number(*d.maxBandwidth, path + ".max_bandwidth_gbps");
      }
      if (d.fixedBandwidth) {
        j["fixed_bandwidth_gbps"] = number(*d.fixedBandwidth, path + ".fixed_bandwidth_gbps");
      }
      if (d.latencyNs != 0) j["latency_ns"] = number(d.latencyNs, path + ".latency_ns");
      dims.push_back(std::move(j));
    }
    Json j = Json::object();
    j["dimensions"] = std::move(dims);
    if (network.endpointDelayNs != 0) {
      j["endpoint_delay_ns"] = number(network.endpointDelayNs, member(at, "endpoint_delay_ns"));
    }
    return j;
  }

  Json costModel(const CostModel& model, const std::string& at) const {
    Json j = Json::object();
    for (const auto& [name, level] : model.levels) {
      const std::string path = member(at, name);
      Json l = Json::object();
      if (level.link) l["Link"] = number(*level.link, path + ".Link");
      if (level.switchPrice) l["Switch"] = number(*level.switchPrice, path + ".Switch");
      if (level.nic) l["Nic"] = number(*level.nic, path + ".Nic");
      j[name] = std::move(l);
    }
    return j;
  }

  template <class PathOf>
  Json phase(const Phase& p, const PathOf& path) const {
    Json j = objectWithRoom(5);
    j["compute_ns"] = number(p.computeNs, [&] { return path() + ".compute_ns"; });
    j["collective"] = std::string(toString(p.collective));
    j["size_bytes"] = number(p.sizeBytes, [&] { return path() + ".size_bytes"; });
    if (!p.groups.empty()) j["groups"] = p.groups;
    if (!p.strides.empty()) j["strides"] = p.strides;
    return j;
  }

  Json workload(const Workload& w, const std::string& path) const {
    Json j = Json::object();
    j["name"] = w.name;
    j["weight"] = number(w.weight, path + ".weight");
    Json comm = Json::object();
    for (PhaseKind kind : kPhaseKinds) comm[std::string(toString(kind))] = w.communicator.of(kind);
    Json strides = Json::object();
    for (PhaseKind kind : kPhaseKinds) {
      const auto& s = w.communicator.stridesOf(kind);
      if (!s.empty()) strides[std::string(toString(kind))] = s;
    }
    if (!strides.empty()) comm["strides"] = std::move(strides);
    j["communicator"] = std::move(comm);
    if (w.origin) {
      Json o = Json::object();
      o["preset"] = w.origin->preset;
      o["device"] = w.origin->device;
      Json params = Json::object();
      for (const auto& [key, value] : w.origin->parameters) {
        params[key] = number(value, member(path + ".origin.parameters", key));
      }
      o["parameters"] = std::move(params);
      if (!w.origin->model.empty()) {
        o["model"] = json_text::parse<Json>(w.origin->model, path + ".origin.model");
      }
      j["origin"] = std::move(o);
    }
    Json layers = Json::array();
    layers.get_ref<Json::array_t&>().reserve(w.layers.size());
    for (std::size_t i = 0; i < w.layers.size(); ++i) {
      const Layer& layer = w.layers[i];
      const auto at = [&] { return element(path + ".layers", i); };
      Json l = objectWithRoom(2 + kPhaseKinds.size());
      l["name"] = layer.name;
      for (PhaseKind kind : kPhaseKinds) {
        const std::string key(toString(kind));
        l[key] = phase(layer.phase(kind), [&] { return at() + "." + key; });
      }
      l["update_ns"] = number(layer.updateNs, [&] { return at() + ".update_ns"; });
      layers.push_back(std::move(l));
    }
    j["layers"] = std::move(layers);
    return j;
  }

  // A scenario's keys, added to `doc` (the top level or an element of
  // "scenarios", whose JSON path is `at`).
  void scenario(Json& doc, const Scenario& s, const std::string& at) const {
    doc["network"] = network(s.network, member(at, "network"));
    doc["cost_model"] = costModel(s.costModel, member(at, "cost_model"));
    Json workloads = Json::array();
    for (std::size_t i = 0; i < s.workloads.size(); ++i) {
      workloads.push_back(workload(s.workloads[i], element(member(at, "workloads"), i)));
    }
    doc["workloads"] = std::move(workloads);
    doc["training_loop"] = std::string(toString(s.model.trainingLoop));
    const ChunkSetting& chunks = s.model.collectives.chunks;
    if (chunks.kind == ChunkSetting::Kind::Fixed) {
      doc["chunks"] = chunks.count;
    } else if (chunks.kind == ChunkSetting::Kind::Auto) {
      doc["chunks"] = "auto";
    }
    if (!(s.limits == BlockLimits{})) {
      Json limits = Json::object();
      limits["fully_connected_ports"] = s.limits.fullyConnectedPorts;
      limits["switch_radix"] = s.limits.switchRadix;
      doc["limits"] = std::move(limits);
    }
    doc["constraints"] = s.constraints;
    doc["objective"] = std::string(toString(s.objective));
    // Written only when set, so network-scope projects stay as they were.
    if (s.costScope != CostScope::Network) doc["cost_scope"] = std::string(toString(s.costScope));
    if (s.npuPriceUsd) doc["npu_price_usd"] = number(*s.npuPriceUsd, member(at, "npu_price_usd"));
  }
};

// ---------------------------------------------------------------------------
// Reading.

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw InputError(source_ + ": " + (path.empty() ? std::string() : path + ": ") + problem);
  }

  // An object whose keys are checked against the schema when it is opened.
  class Object {
   public:
    Object(const Reader& reader, const Json& value, std::string path,
           const std::vector<std::string_view>& keys)
        : reader_(reader), value_(value), path_(std::move(path)) {
      if (!value.is_object()) reader.fail(path_, "expected an object, got " + describe(value));
      for (const auto& item : value.items()) {
        if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
        std::string expected;
        for (std::string_view k : keys) expected += (expected.empty() ? "" : ", ") + std::string(k);
        reader.fail(path_, "unknown key '" + text::abbreviate(item.key()) + "' (expected " +
                               expected + ")");
      }
    }

    const Json& required(std::string_view key) const {
      auto it = value_.find(std::string(key));
      if (it == value_.end()) reader_.fail(path_, "missing key '" + std::string(key) + "'");
      return *it;
    }
    const Json* optional(std::string_view key) const {
      auto it = value_.find(std::string(key));
      return it == value_.end() ? nullptr : &*it;
    }
    std::string at(std::string_view key) const { return member(path_, key); }
    const std::string& path() const { return path_; }

   private:
    const Reader& reader_;
    const Json& value_;
    std::string path_;
  };

  std::string string(const Json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string, got " + describe(v));
    return v.get<std::string>();
  }

  std::string nonEmptyString(const Json& v, const std::string& path) const {
    std::string s = string(v, path);
    if (text::trim(s).empty()) fail(path, "expected a non-empty string, got " + describe(v));
    return s;
  }

  double finiteNumber(const Json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, "expected a number, got " + describe(v));
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(path, "expected a finite number, got " + describe(v));
    return d;
  }

  double nonNegative(const Json& v, const std::string& path) const {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      fail(path, "expected a number >= 0, got " + describe(v));
    }
    return v.get<double>();
  }

  int integer(const Json& v, const std::string& path, int min, int max,
              const std::string& expected) const {
    bool ok = false;
    std::int64_t value = 0;
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      ok = u <= static_cast<std::uint64_t>(max);
      value = static_cast<std::int64_t>(u);
    } else if (v.is_number_integer()) {
      value = v.get<std::int64_t>();
      ok = value >= min && value <= max;
    }
    if (!ok || value < min) fail(path, "expected " + expected + ", got " + describe(v));
    return static_cast<int>(value);
  }

  Project project(const Json& doc) const {
    if (doc.contains("scenarios")) return projectOfScenarios(doc);
    const Object top(*this, doc, "", keysWith({"format", "schema_version", "name"}, {"ui"}));
    Project p;
    p.name = string(top.required("name"), "name");
    static_cast<Scenario&>(p) = scenario(top);
    p.uiState = uiState(top);
    return p;
  }

 private:
  // The "scenarios" layout: every scenario in its own object.
  Project projectOfScenarios(const Json& doc) const {
    for (std::string_view key : kScenarioKeys) {
      if (doc.contains(std::string(key))) {
        fail(std::string(key),
             "a project with \"scenarios\" keeps this in each scenario, "
             "not at the top level");
      }
    }
    const Object top(*this, doc, "",
                     {"format", "schema_version", "name", "active_scenario", "scenarios", "ui"});
    Project p;
    p.name = string(top.required("name"), "name");
    const Json& list = top.required("scenarios");
    if (!list.is_array()) fail("scenarios", "expected a list, got " + describe(list));
    if (list.empty()) fail("scenarios", "expected at least one scenario, got an empty list");
    std::vector<NamedScenario> all;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Object item(*this, list[i], element("scenarios", i), keysWith({"name"}, {}));
      NamedScenario named;
      named.name = nonEmptyString(item.required("name"), item.at("name"));
      for (std::size_t j = 0; j < i; ++j) {
        if (all[j].name == named.name) {
          fail(item.at("name"), "the name '" + text::abbreviate(named.name) +
                                    "' is already used by " + element("scenarios", j));
        }
      }
      named.scenario = scenario(item);
      all.push_back(std::move(named));
    }
    std::size_t active = 0;
    if (const Json* name = top.optional("active_scenario")) {
      const std::string wanted = string(*name, "active_scenario");
      std::string known;
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i].name == wanted) active = i;
        known += (known.empty() ? "'" : ", '") + text::abbreviate(all[i].name) + "'";
      }
      if (all[active].name != wanted) {
        fail("active_scenario", "no scenario is named '" + text::abbreviate(wanted) +
                                    "' (the scenarios are " + known + ")");
      }
    }
    setScenarios(p, std::move(all), active);
    p.uiState = uiState(top);
    return p;
  }

  std::string uiState(const Object& top) const {
    const Json* ui = top.optional("ui");
    return ui ? ui->dump(-1, ' ', false, Json::error_handler_t::replace) : std::string();
  }

  // A scenario's keys in `obj` (the top level, or an element of "scenarios").
  Scenario scenario(const Object& obj) const {
    Scenario p;
    p.network = network(Object(*this, obj.required("network"), obj.at("network"),
                               {"dimensions", "endpoint_delay_ns"}));
    p.costModel = costModel(obj.required("cost_model"), obj.at("cost_model"));

    const Json& workloads = obj.required("workloads");
    const std::string workloadsAt = obj.at("workloads");
    if (!workloads.is_array()) fail(workloadsAt, "expected a list, got " + describe(workloads));
    for (std::size_t i = 0; i < workloads.size(); ++i) {
      p.workloads.push_back(workload(workloads[i], element(workloadsAt, i), p.network));
    }

    if (const Json* loop = obj.optional("training_loop")) {
      const std::string s = string(*loop, obj.at("training_loop"));
      auto parsed = parseTrainingLoop(s);
      if (!parsed) {
        fail(obj.at("training_loop"), "unknown training loop '" + text::abbreviate(s) +
                                          "' (expected no-overlap, recompute or overlap)");
      }
      p.model.trainingLoop = *parsed;
    }
    if (const Json* chunks = obj.optional("chunks"))
      p.model.collectives.chunks = chunkSetting(*chunks, obj.at("chunks"));
    if (const Json* limits = obj.optional("limits")) {
      const Object l(*this, *limits, obj.at("limits"), {"fully_connected_ports", "switch_radix"});
      if (const Json* v = l.optional("fully_connected_ports")) {
        p.limits.fullyConnectedPorts = integer(*v, l.at("fully_connected_ports"), 1,
                                               std::numeric_limits<int>::max(), "an integer >= 1");
      }
      if (const Json* v = l.optional("switch_radix")) {
        p.limits.switchRadix = integer(*v, l.at("switch_radix"), 2, std::numeric_limits<int>::max(),
                                       "an integer >= 2");
      }
    }
    if (const Json* list = obj.optional("constraints")) {
      if (!list->is_array())
        fail(obj.at("constraints"), "expected a list of strings, got " + describe(*list));
      for (std::size_t i = 0; i < list->size(); ++i) {
        p.constraints.push_back(string((*list)[i], element(obj.at("constraints"), i)));
      }
    }
    if (const Json* objective = obj.optional("objective")) {
      const std::string s = string(*objective, obj.at("objective"));
      auto parsed = parseObjective(s);
      if (!parsed) {
        fail(obj.at("objective"), "unknown objective '" + text::abbreviate(s) +
                                      "' (expected performance or perf-per-cost)");
      }
      p.objective = *parsed;
    }
    if (const Json* scope = obj.optional("cost_scope")) {
      const std::string s = string(*scope, obj.at("cost_scope"));
      auto parsed = parseCostScope(s);
      if (!parsed) {
        fail(obj.at("cost_scope"),
             "unknown cost scope '" + text::abbreviate(s) + "' (expected network or system)");
      }
      p.costScope = *parsed;
    }
    if (const Json* price = obj.optional("npu_price_usd")) {
      p.npuPriceUsd = nonNegative(*price, obj.at("npu_price_usd"));
    }
    return p;
  }

  ChunkSetting chunkSetting(const Json& v, const std::string& path) const {
    const std::string expected =
        "an integer 1.." + std::to_string(kMaxChunks) + ", \"ideal\" or \"auto\"";
    if (v.is_string()) {
      if (auto parsed = parseChunkSetting(v.get<std::string>())) return *parsed;
      fail(path, "expected " + expected + ", got " + describe(v));
    }
    return ChunkSetting::fixed(integer(v, path, 1, kMaxChunks, expected));
  }

  Network network(const Object& obj) const {
    const Json& list = obj.required("dimensions");
    const std::string path = obj.at("dimensions");
    if (!list.is_array()) fail(path, "expected a list, got " + describe(list));
    Network network;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Object dim(*this, list[i], element(path, i),
                       {"name", "block", "npus", "cost_level", "min_bandwidth_gbps",
                        "max_bandwidth_gbps", "fixed_bandwidth_gbps", "latency_ns"});
      Dimension d;
      d.name = nonEmptyString(dim.required("name"), dim.at("name"));
      for (std::size_t j = 0; j < i; ++j) {
        if (network.dims[j].name == d.name) {
          fail(dim.at("name"), "the name '" + d.name + "' is already used by " + element(path, j));
        }
      }
      const std::string block = string(dim.required("block"), dim.at("block"));
      auto parsed = parseBuildingBlock(block);
      if (!parsed) {
        fail(dim.at("block"), "unknown building block '" + text::abbreviate(block) +
                                  "' (expected Ring, FullyConnected or Switch)");
      }
      d.block = *parsed;
      d.npus = integer(dim.required("npus"), dim.at("npus"), 2, std::numeric_limits<int>::max(),
                       "an integer >= 2");
      d.costLevel = nonEmptyString(dim.required("cost_level"), dim.at("cost_level"));
      auto bound = [&](std::string_view key, std::optional<double>& out) {
        if (const Json* v = dim.optional(key)) out = nonNegative(*v, dim.at(key));
      };
      bound("min_bandwidth_gbps", d.minBandwidth);
      bound("max_bandwidth_gbps", d.maxBandwidth);
      bound("fixed_bandwidth_gbps", d.fixedBandwidth);
      if (const Json* v = dim.optional("latency_ns"))
        d.latencyNs = nonNegative(*v, dim.at("latency_ns"));
      if (d.minBandwidth && d.maxBandwidth && *d.minBandwidth > *d.maxBandwidth) {
        fail(dim.path(), "min_bandwidth_gbps " + text::formatNumber(*d.minBandwidth) +
                             " exceeds max_bandwidth_gbps " + text::formatNumber(*d.maxBandwidth));
      }
      network.dims.push_back(std::move(d));
    }
    if (const Json* v = obj.optional("endpoint_delay_ns"))
      network.endpointDelayNs = nonNegative(*v, obj.at("endpoint_delay_ns"));
    return network;
  }

  CostModel costModel(const Json& value, const std::string& path) const {
    if (!value.is_object()) fail(path, "expected an object, got " + describe(value));
    CostModel model;
    for (const auto& item : value.items()) {
      const Object level(*this, item.value(), member(path, item.key()), {"Link", "Switch", "Nic"});
      CostLevel l;
      if (const Json* v = level.optional("Link")) l.link = nonNegative(*v, level.at("Link"));
      if (const Json* v = level.optional("Switch"))
        l.switchPrice = nonNegative(*v, level.at("Switch"));
      if (const Json* v = level.optional("Nic")) l.nic = nonNegative(*v, level.at("Nic"));
      model.levels[item.key()] = l;
    }
    return model;
  }

  Workload workload(const Json& value, const std::string& path, const Network& network) const {
    const Object obj(*this, value, path, {"name", "weight", "communicator", "origin", "layers"});
    Workload w;
    w.name = string(obj.required("name"), obj.at("name"));
    if (const Json* weight = obj.optional("weight"))
      w.weight = nonNegative(*weight, obj.at("weight"));

    const Object comm(*this, obj.required("communicator"), obj.at("communicator"),
                      {"forward", "input_grad", "weight_grad", "strides"});
    for (PhaseKind kind : kPhaseKinds) {
      const std::string key(toString(kind));
      w.communicator.of(kind) = groupSizes(comm.required(key), comm.at(key), network);
    }
    if (const Json* strides = comm.optional("strides")) {
      const Object s(*this, *strides, comm.at("strides"), {"forward", "input_grad", "weight_grad"});
      for (PhaseKind kind : kPhaseKinds) {
        const std::string key(toString(kind));
        if (const Json* list = s.optional(key)) {
          w.communicator.stridesOf(kind) = strideList(*list, s.at(key), network);
        }
      }
    }

    if (const Json* origin = obj.optional("origin")) {
      const Object o(*this, *origin, obj.at("origin"), {"preset", "device", "parameters", "model"});
      WorkloadOrigin out;
      out.preset = string(o.required("preset"), o.at("preset"));
      if (const Json* device = o.optional("device")) out.device = string(*device, o.at("device"));
      if (const Json* params = o.optional("parameters")) {
        if (!params->is_object())
          fail(o.at("parameters"), "expected an object, got " + describe(*params));
        for (const auto& item : params->items()) {
          out.parameters[item.key()] =
              finiteNumber(item.value(), member(o.at("parameters"), item.key()));
        }
      }
      if (const Json* model = o.optional("model")) {
        if (!model->is_object())
          fail(o.at("model"), "expected a model file's object, got " + describe(*model));
        out.model = model->dump(-1, ' ', false, Json::error_handler_t::replace);
      }
      w.origin = std::move(out);
    }

    const Json& layers = obj.required("layers");
    if (!layers.is_array()) fail(obj.at("layers"), "expected a list, got " + describe(layers));
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const Object l(*this, layers[i], element(obj.at("layers"), i),
                     {"name", "forward", "input_grad", "weight_grad", "update_ns"});
      Layer layer;
      layer.name = string(l.required("name"), l.at("name"));
      for (PhaseKind kind : kPhaseKinds) {
        const std::string key(toString(kind));
        layer.phase(kind) = phase(l.required(key), l.at(key), network);
      }
      if (const Json* update = l.optional("update_ns")) {
        layer.updateNs = nonNegative(*update, l.at("update_ns"));
      }
      w.layers.push_back(std::move(layer));
    }
    return w;
  }

  // One group size per network dimension, each 1 (unused) to n_d.
  std::vector<int> groupSizes(const Json& list, const std::string& path,
                              const Network& network) const {
    if (!list.is_array()) fail(path, "expected a list of group sizes, got " + describe(list));
    if (static_cast<int>(list.size()) != network.size()) {
      fail(path, "expected " + std::to_string(network.size()) +
                     " group sizes (one per network dimension), got " +
                     std::to_string(list.size()));
    }
    std::vector<int> groups;
    for (int d = 0; d < network.size(); ++d) {
      const Dimension& dim = network.dims[d];
      groups.push_back(integer(list[d], element(path, d), 1, dim.npus,
                               "a group size from 1 (unused) to " + std::to_string(dim.npus) +
                                   " for dimension " + std::to_string(d) + " ('" + dim.name +
                                   "')"));
    }
    return groups;
  }

  // One stride per network dimension, each from 1 to n_d (time_model.cpp checks
  // that it tiles the dimension with its group).
  std::vector<int> strideList(const Json& list, const std::string& path,
                              const Network& network) const {
    if (!list.is_array()) fail(path, "expected a list of strides, got " + describe(list));
    if (static_cast<int>(list.size()) != network.size()) {
      fail(path, "expected " + std::to_string(network.size()) +
                     " strides (one per network dimension), got " + std::to_string(list.size()));
    }
    std::vector<int> strides;
    strides.reserve(list.size());
    for (int d = 0; d < network.size(); ++d) {
      strides.push_back(integer(list[d], element(path, d), 1, network.dims[d].npus,
                                "a stride from 1 (consecutive) to " +
                                    std::to_string(network.dims[d].npus) + " for dimension " +
                                    std::to_string(d)));
    }
    return strides;
  }

  Phase phase(const Json& value, const std::string& path, const Network& network) const {
    const Object obj(*this, value, path,
                     {"compute_ns", "collective", "size_bytes", "groups", "strides"});
    Phase p;
    p.computeNs = nonNegative(obj.required("compute_ns"), obj.at("compute_ns"));
    const std::string type = string(obj.required("collective"), obj.at("collective"));
    auto parsed = parseCollectiveType(type);
    if (!parsed) {
      fail(obj.at("collective"), "unknown collective '" + text::abbreviate(type) +
                                     "' (expected None, AllReduce, ReduceScatter, AllGather or "
                                     "AllToAll)");
    }
    p.collective = *parsed;
    p.sizeBytes = nonNegative(obj.required("size_bytes"), obj.at("size_bytes"));
    if (const Json* groups = obj.optional("groups")) {
      p.groups = groupSizes(*groups, obj.at("groups"), network);
    }
    if (const Json* strides = obj.optional("strides")) {
      if (p.groups.empty()) fail(obj.at("strides"), "strides need the phase's own \"groups\"");
      p.strides = strideList(*strides, obj.at("strides"), network);
    }
    return p;
  }

  std::string source_;
};

// Checks "format" and "schema_version" and upgrades an older document; returns
// the schema the file was written in.
int checkVersion(Json& doc, const Reader& reader, const std::string& source) {
  const std::string notProject = "; this is not a Libra Studio project file";
  if (!doc.is_object()) {
    reader.fail("", "expected a JSON object at the top level, got " + describe(doc) + notProject);
  }
  auto format = doc.find("format");
  if (format == doc.end()) reader.fail("", "missing key 'format'" + notProject);
  if (!format->is_string() || format->get<std::string>() != kProjectFormat) {
    reader.fail("format", "expected \"" + std::string(kProjectFormat) + "\", got " +
                              describe(*format) + notProject);
  }
  auto version = doc.find("schema_version");
  if (version == doc.end()) reader.fail("", "missing key 'schema_version'");
  if (!version->is_number_integer()) {
    reader.fail("schema_version", "expected an integer, got " + describe(*version));
  }
  const bool negative = version->is_number_integer() && !version->is_number_unsigned() &&
                        version->get<std::int64_t>() < 0;
  if (negative || version->get<std::uint64_t>() < 1) {
    reader.fail("schema_version", "expected an integer >= 1, got " + describe(*version));
  }
  if (version->get<std::uint64_t>() > static_cast<std::uint64_t>(kProjectSchemaVersion)) {
    throw InputError(source + " was written by a newer Libra Studio (schema " + version->dump() +
                     "; this version reads up to " + std::to_string(kProjectSchemaVersion) +
                     "): update Libra Studio");
  }
  return version->get<int>();
}

}  // namespace

LoadedProject readProject(std::string_view text, const std::string& source) {
  Json doc = parseDocument(text, source);
  const Reader reader(source);
  LoadedProject loaded;
  loaded.fileSchemaVersion = checkVersion(doc, reader, source);
  loaded.upgrades = migrate(doc, loaded.fileSchemaVersion, source);
  loaded.project = reader.project(doc);

  try {
    validateProject(loaded.project);
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  return loaded;
}

Project projectFromJson(std::string_view text, const std::string& source) {
  return readProject(text, source).project;
}

std::string projectToJson(const Project& project) {
  try {
    validateScenarioNames(project);
  } catch (const InputError& e) {
    throw InputError(std::string("project: ") + e.what());
  }
  const Writer w;
  Json doc = Json::object();
  doc["format"] = std::string(kProjectFormat);
  doc["schema_version"] = writtenSchemaVersion(project);
  doc["name"] = project.name;
  if (project.otherScenarios.empty() && project.scenarioName.empty()) {
    w.scenario(doc, project, "");
  } else {
    doc["active_scenario"] = project.scenarioName;
    Json list = Json::array();
    const std::vector<NamedScenario> all = scenarios(project);
    for (std::size_t i = 0; i < all.size(); ++i) {
      Json item = Json::object();
      item["name"] = all[i].name;
      w.scenario(item, all[i].scenario, element("scenarios", i));
      list.push_back(std::move(item));
    }
    doc["scenarios"] = std::move(list);
  }
  if (!project.uiState.empty()) {
    try {
      doc["ui"] = Json::parse(project.uiState);
    } catch (const Json::exception& e) {
      throw InputError("project: the UI state is not valid JSON (" +
                       json_text::errorReason(e.what()) + ")");
    }
  }
  // Invalid UTF-8 (e.g. a name read from a Latin-1 file) becomes U+FFFD rather
  // than making the save fail.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Project loadProject(const std::filesystem::path& path) {
  return projectFromJson(readFile(path), path.string());
}

void checkProjectReadable(std::uintmax_t bytes, const std::filesystem::path& path) {
  if (bytes <= kMaxInputFileBytes) return;
  throw InputError(path.string() + ": the project would be " +
                   std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB, more than the " +
                   std::to_string(kMaxInputFileBytes >> 20) +
                   " MiB a project file is read back with; nothing was written. Its workload "
                   "lists too many lines: a larger micro-batch (fewer micro-batches) or fewer "
                   "pipeline stages make it smaller");
}

void saveProject(const Project& project, const std::filesystem::path& path) {
  const std::string text = projectToJson(project);
  checkProjectReadable(text.size(), path);
  writeFileAtomically(path, text);
}

}  // namespace libra
