// The pieces every JSON and CSV writer of results shares (internal header):
// no output ever holds NaN or infinity, and the throughput keys of spec/cli.md
// are written in one place. Used by analysis.cpp and compare.cpp.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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
