// The pieces every JSON and CSV writer of results shares: no output ever holds
// NaN or infinity, and the keys spec/cli.md fixes for throughput, batch, memory
// and dimensions are written in one place. Used by the engine's writers
// (analysis.cpp, compare.cpp) and by the command line's sweep, codesign and new.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "libra/network.hpp"
#include "libra/training.hpp"

namespace libra::result_json {

using Json = nlohmann::ordered_json;

// Finite numbers as themselves, anything else as null.
inline Json number(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}
inline Json numbers(const std::vector<double>& v) {
  Json out = Json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}
inline Json optionalNumber(const std::optional<double>& v) {
  return v ? number(*v) : Json(nullptr);
}

// The throughput keys spec/cli.md fixes, null where unknown.
inline Json throughputKeys(const TrainingFacts& facts, const Throughput& t) {
  Json j;
  j["tokens_per_iteration"] = optionalNumber(facts.tokensPerIteration);
  j["tokens_per_second"] = optionalNumber(t.tokensPerSecond);
  j["model_tflops_per_npu"] = optionalNumber(t.modelTflopsPerNpu);
  j["mfu"] = optionalNumber(t.mfu);
  j["time_to_train_s"] = optionalNumber(t.timeToTrainS);
  return j;
}

// {global_batch, micro_batch, micro_batches, replicas, sequence_length}.
inline Json batchJson(const BatchPlan& b) {
  return {{"global_batch", b.globalBatch},
          {"micro_batch", b.microBatch},
          {"micro_batches", b.microBatches},
          {"replicas", b.replicas},
          {"sequence_length", b.sequenceLength}};
}

// memory_per_npu_bytes and memory_capacity_bytes, null where unknown.
inline Json memoryKeys(const MemoryEstimate& m) {
  Json j;
  j["memory_per_npu_bytes"] = m.use ? number(m.use->total()) : Json(nullptr);
  j["memory_capacity_bytes"] = m.capacityBytes > 0 ? number(m.capacityBytes) : Json(nullptr);
  return j;
}

// The dimensions: [{name, block, npus, cost_level}].
inline Json networkJson(const Network& network) {
  Json dims = Json::array();
  for (const Dimension& d : network.dims) {
    dims.push_back({{"name", d.name},
                    {"block", std::string(toString(d.block))},
                    {"npus", d.npus},
                    {"cost_level", d.costLevel}});
  }
  return dims;
}

// A CSV field, quoted when it holds a comma, a quote or a line break.
inline std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Shortest text that reads back to the same double; empty for non-finite values.
inline std::string exact(double v) {
  if (!std::isfinite(v)) return "";
  return Json(v).dump(-1, ' ', false, Json::error_handler_t::replace);
}
inline std::string exact(const std::optional<double>& v) {
  return v ? exact(*v) : std::string();
}

}  // namespace libra::result_json
