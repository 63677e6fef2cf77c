// What every fuzz target shares: the invariant check that turns a broken rule
// into a crash libFuzzer records, and the downstream run (validate, compile,
// evaluate the equal split) that every input which loads goes through.
//
// A refusal (InputError, ConstraintError) is the expected outcome of most
// inputs: the targets crash only on what is a bug. Another exception escaping
// the engine, a sanitizer report, a broken invariant, or an input that takes
// seconds are findings.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "libra/analysis.hpp"
#include "libra/cost.hpp"
#include "libra/error.hpp"
#include "libra/libra_format.hpp"
#include "libra/project.hpp"

namespace libra::fuzz {

[[noreturn]] inline void invariantBroken(const char* what, const char* file, int line,
                                         const std::string& detail) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s\n%s\n", file, line, what, detail.c_str());
  std::abort();
}

}  // namespace libra::fuzz

// Aborts (a crash for libFuzzer) when `condition` is false; `detail` is printed.
#define LIBRA_FUZZ_CHECK(condition, detail)                                     \
  do {                                                                          \
    if (!(condition)) {                                                         \
      ::libra::fuzz::invariantBroken(#condition, __FILE__, __LINE__, (detail)); \
    }                                                                           \
  } while (false)

namespace libra::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): bytes as characters
  return {reinterpret_cast<const char*>(data), size};
}

// LIBRA_FUZZ_VERBOSE=1 prints every refusal (to see how far inputs get).
inline bool verbose() {
  static const bool on = std::getenv("LIBRA_FUZZ_VERBOSE") != nullptr;
  return on;
}

// A refusal must say what and where: a message that names `source`.
inline void checkRefusal(const InputError& e, std::string_view source) {
  const std::string message = e.what();
  if (verbose()) std::fprintf(stderr, "refused: %s\n", message.c_str());
  LIBRA_FUZZ_CHECK(!message.empty(), "an empty error message");
  if (!source.empty()) {
    LIBRA_FUZZ_CHECK(message.find(source) != std::string::npos,
                     "the message does not name " + std::string(source) + ": " + message);
  }
}

// Runs `load`; true when it returned, false when it refused the input with an
// InputError that names `source`. Every other exception escapes (a finding).
template <class Load>
bool loads(Load&& load, std::string_view source) {
  try {
    load();
    return true;
  } catch (const InputError& e) {
    checkRefusal(e, source);
    return false;
  }
}

inline bool finite(double v) {
  return std::isfinite(v);
}

// What happens to a project that loaded: validation, compilation and the
// evaluation of an equal split (every dimension `perDimensionGbps`), as `libra
// evaluate` does. A project that validates must evaluate to finite times and
// costs, and no output may hold NaN or infinity.
inline void evaluateEqualSplit(const Project& project, double perDimensionGbps = 100) {
  try {
    validateProject(project);
  } catch (const InputError& e) {
    checkRefusal(e, "");
    return;
  }
  AnalysisOptions options;
  options.design = std::vector<double>(project.network.dims.size(), perDimensionGbps);
  Analysis analysis;
  try {
    analysis = analyze(project, options);
  } catch (const InputError& e) {
    // A valid project whose problem cannot be compiled: still a refusal, not a crash.
    checkRefusal(e, "");
    return;
  }
  LIBRA_FUZZ_CHECK(analysis.ok(), "an evaluated design without result: " + analysis.message);
  const Evaluation& eval = analysis.design.eval;
  LIBRA_FUZZ_CHECK(eval.finite, "a positive bandwidth on every dimension gave an infinite time");
  LIBRA_FUZZ_CHECK(finite(eval.iterationNs) && eval.iterationNs >= 0,
                   "iteration time " + std::to_string(eval.iterationNs));
  LIBRA_FUZZ_CHECK(finite(eval.computeNs) && finite(eval.communicationNs),
                   "compute " + std::to_string(eval.computeNs) + ", communication " +
                       std::to_string(eval.communicationNs));
  LIBRA_FUZZ_CHECK(finite(eval.costUsd) && finite(eval.networkCostUsd),
                   "cost " + std::to_string(eval.costUsd));
  for (const DimensionResult& d : analysis.design.dims) {
    LIBRA_FUZZ_CHECK(finite(d.busyNs) && finite(d.exposedNs) && finite(d.costUsd),
                     "dimension " + d.name);
  }
  if (analysis.baseline) {
    const Evaluation& base = analysis.baseline->design.eval;
    LIBRA_FUZZ_CHECK(base.finite && finite(base.iterationNs) && finite(base.costUsd),
                     "the equal-split baseline is not finite");
  }
  // The one writer of results: well-formed JSON (nlohmann writes NaN and
  // infinity as null, so this parses whatever the numbers; the checks above
  // are the ones on finiteness).
  if (verbose()) {
    std::fprintf(stderr, "evaluated: %g ns, %g $\n", eval.iterationNs, eval.costUsd);
  }
  const std::string json = analysisJson(analysis);
  LIBRA_FUZZ_CHECK(nlohmann::json::accept(json), "the analysis JSON does not parse:\n" + json);
}

}  // namespace libra::fuzz

namespace libra::fuzz {

// The reference 4D network (4d_network.yml: Ring 4 x FC 8 x Ring 4 x Switch 32),
// for the targets whose input needs a network.
inline Network referenceNetwork4d() {
  return readNetworkText(
             "Topology: [ Ring, FullyConnected, Ring, Switch ]\n"
             "NpusCount: [ 4, 8, 4, 32 ]\n"
             "CostDimension: [ InterChiplet, InterPackage, InterNode, InterPod ]\n",
             "reference 4d network")
      .network;
}

// One layer with a collective in every phase (forward and input-gradient
// AllReduce, weight-gradient AllReduce), GPT-3's first layer.
inline Layer exampleLayer() {
  Layer layer;
  layer.name = "Q1";
  for (PhaseKind kind : kPhaseKinds) {
    Phase& p = layer.phase(kind);
    p.computeNs = 9'375'000;
    p.collective = CollectiveType::AllReduce;
    p.sizeBytes = kind == PhaseKind::WeightGrad ? 452'984'832 : 805'306'368;
  }
  layer.updateNs = 10;
  return layer;
}

// A project of `network` with the given workload and cost model, posed as
// `libra import-libra` poses one (the paper's budget of 500 GB/s).
inline Project projectOf(Network network, Workload workload, CostModel costModel) {
  Project p;
  p.name = "fuzz";
  p.network = std::move(network);
  p.costModel = std::move(costModel);
  p.workloads.push_back(std::move(workload));
  p.constraints.emplace_back("total == 500");
  return p;
}

}  // namespace libra::fuzz
