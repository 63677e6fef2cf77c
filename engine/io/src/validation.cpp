#include "libra/validation.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "json_text.hpp"
#include "libra/collective_model.hpp"
#include "libra/error.hpp"
#include "libra/project_io.hpp"
#include "text.hpp"

namespace libra {

namespace {

using InputJson = nlohmann::json;

const InputJson& required(const InputJson& object, const char* key, const std::string& where) {
  if (!object.is_object()) throw InputError(where + ": expected an object");
  auto it = object.find(key);
  if (it == object.end()) throw InputError(where + ": missing key '" + key + "'");
  return *it;
}

double number(const InputJson& object, const char* key, const std::string& where) {
  const InputJson& v = required(object, key, where);
  if (!v.is_number()) throw InputError(where + "." + key + ": expected a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0) throw InputError(where + "." + key + ": expected a number >= 0");
  return x;
}

// A number > 0: a simulated time or a bandwidth of 0 has nothing to measure
// against (an error relative to 0 is not a number, and a used dimension
// without bandwidth takes forever).
double positive(const InputJson& object, const char* key, const std::string& where,
                const char* why) {
  const double x = number(object, key, where);
  if (!(x > 0)) throw InputError(where + "." + key + ": expected a number > 0 (" + why + ")");
  return x;
}

std::string stringAt(const InputJson& object, const char* key, const std::string& where) {
  const InputJson& v = required(object, key, where);
  if (!v.is_string()) throw InputError(where + "." + key + ": expected a string");
  return v.get<std::string>();
}

std::vector<int> fullGroups(const Network& network) {
  std::vector<int> groups;
  for (const Dimension& d : network.dims) groups.push_back(d.npus);
  return groups;
}

}  // namespace

ValidationData readValidationData(const std::filesystem::path& path) {
  const std::string source = path.string();
  // One reader for every JSON input: size, nesting and duplicate keys checked.
  const InputJson doc = json_text::parse<InputJson>(readFile(path), source);
  ValidationData data;
  try {
    const InputJson& meta = required(doc, "metadata", "top level");
    data.description = meta.value("description", std::string());
    data.simulator = meta.value("astra_sim", std::string());
    const InputJson& cases = required(doc, "cases", "top level");
    if (!cases.is_array()) throw InputError("cases: expected a list");
    if (cases.empty()) throw InputError("cases: the list is empty; there is nothing to validate");
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const std::string where = "cases[" + std::to_string(i) + "]";
      const InputJson& c = cases[i];
      ValidationCase v;
      v.index = static_cast<int>(i);
      v.set = stringAt(c, "set", where);
      v.networkName = stringAt(c, "network_name", where);
      const InputJson& dims = required(c, "network", where);
      if (!dims.is_array() || dims.empty()) throw InputError(where + ".network: expected a list");
      for (std::size_t d = 0; d < dims.size(); ++d) {
        const std::string at = where + ".network[" + std::to_string(d) + "]";
        Dimension dim;
        dim.name = "d" + std::to_string(d);
        const std::string block = stringAt(dims[d], "block", at);
        const auto parsed = parseBuildingBlock(block);
        if (!parsed) throw InputError(at + ".block: unknown building block '" + block + "'");
        dim.block = *parsed;
        const double npus = number(dims[d], "npus", at);
        if (npus < 2 || npus > 1 << 20 || npus != std::floor(npus)) {
          throw InputError(at + ".npus: expected a whole number >= 2");
        }
        dim.npus = static_cast<int>(npus);
        dim.costLevel = "validation";
        dim.latencyNs = number(dims[d], "latency_ns", at);
        v.bandwidthGbps.push_back(
            positive(dims[d], "bw_gbps", at, "a dimension without bandwidth never finishes"));
        v.network.dims.push_back(std::move(dim));
      }
      const std::string collective = stringAt(c, "collective", where);
      const auto type = parseCollectiveType(collective);
      if (!type || *type == CollectiveType::None) {
        throw InputError(where + ".collective: unknown collective '" + collective + "'");
      }
      v.collective = *type;
      v.sizeBytes = number(c, "size_bytes", where);
      const double chunks = number(c, "chunks", where);
      if (chunks < 1 || chunks > kMaxChunks || chunks != std::floor(chunks)) {
        throw InputError(where + ".chunks: expected a whole number 1.." +
                         std::to_string(kMaxChunks));
      }
      v.chunks = static_cast<int>(chunks);
      v.endpointDelayNs =
          c.contains("endpoint_delay_ns") ? number(c, "endpoint_delay_ns", where) : 0;
      if (v.endpointDelayNs < 0) {
        throw InputError(where + ".endpoint_delay_ns: expected a number >= 0 ns");
      }
      v.network.endpointDelayNs = v.endpointDelayNs;
      v.simulatedNs = positive(c, "sim_time_ns", where,
                               "the error is relative to the simulated time; a simulator that "
                               "ran reports a positive time");
      data.cases.push_back(std::move(v));
    }
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  return data;
}

double modelTime(const ValidationCase& c) {
  const std::vector<int> groups = fullGroups(c.network);
  Schedule schedule;
  schedule.stages = collectiveStages(c.collective, c.sizeBytes, groups, c.network);
  schedule.chunks = c.chunks;
  return schedule.time(c.bandwidthGbps, c.chunks);
}

double idealTime(const ValidationCase& c) {
  const std::vector<int> groups = fullGroups(c.network);
  const TimeTerm term = collectiveTerm(c.collective, c.sizeBytes, groups, c.network, {});
  return term.value(c.bandwidthGbps);
}

}  // namespace libra
