#include "libra/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "libra/result_json.hpp"
#include "libra/training.hpp"
#include "text.hpp"

namespace libra {

namespace {

using result_json::Json;

std::string listOf(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + text::quotedName(n);
  return out;
}

// a / b when both are finite and positive.
std::optional<double> quotient(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return std::nullopt;
  if (!(std::isfinite(*a) && std::isfinite(*b) && *a > 0 && *b > 0)) return std::nullopt;
  return *a / *b;
}

std::optional<double> positive(double v) {
  return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
}

// The analysis of a design whose input the engine refused.
Analysis failedAnalysis(const DesignInput& design, const AnalysisOptions& options,
                        const std::string& message) {
  Analysis a;
  a.status = SolveStatus::Error;
  a.message = message;
  a.objective = options.objective.value_or(design.project.objective);
  a.backend = options.backend;
  a.projectName = design.project.name;
  a.costScope = options.model.costScope.value_or(design.project.costScope);
  return a;
}

// The message of a refused design: an extra constraint that does not fit its
// network says so (analyze() numbers it among the constraints in force).
std::string refusal(const DesignInput& design, const AnalysisOptions& options,
                    const InputError& error) {
  try {
    Scenario posed = design.project;
    if (!options.projectConstraints) posed.constraints.clear();
    applyModelOverrides(posed, options.model);
    const Problem problem = buildProblem(posed);
    for (const std::string& text : options.extraConstraints) {
      try {
        (void)problem.compile(text);
      } catch (const InputError& e) {
        return std::string("added to every design: ") + e.what();
      }
    }
  } catch (const InputError&) {
    // The design's own input: the error says where.
  }
  return error.what();
}

std::optional<double> costOf(const DesignComparison& d) {
  return d.ok() ? positive(d.analysis.design.eval.costUsd) : std::nullopt;
}

// What a design runs, for telling designs of different work apart: each
// workload's model (a generated one) or name, with its tokens per iteration.
std::string workloadsOf(const Project& project) {
  std::string out;
  for (const Workload& w : project.workloads) {
    std::string label = displayName(w.name);
    if (const auto choice = presetChoiceOf(w)) {
      try {
        label = displayName(modelOf(*choice).name);
      } catch (const InputError&) {
        // Its own name.
      }
    }
    out += (out.empty() ? "" : " + ") + label;
  }
  const TrainingFacts facts = trainingFacts(project);
  if (facts.tokensPerIteration)
    out += " (" + text::formatNumber(*facts.tokensPerIteration) + " tokens per iteration)";
  return out.empty() ? "no workload" : out;
}

void addNotes(Comparison& c) {
  std::vector<std::string> withResult, withoutThroughput;
  std::vector<std::string> scopes[2];
  std::string why;
  for (const DesignComparison& d : c.designs) {
    if (!d.ok()) continue;
    withResult.push_back(d.input.name);
    scopes[d.analysis.costScope == CostScope::Network ? 0 : 1].push_back(d.input.name);
    if (!d.analysis.design.throughput.tokensPerSecond) {
      withoutThroughput.push_back(d.input.name);
      if (why.empty()) why = d.analysis.training.note;
    }
  }
  if (c.measure == PerformanceMeasure::IterationsPerSecond && withResult.size() > 1) {
    c.notes.push_back(
        "performance is iterations per second, which compares like with like only "
        "when the designs do the same work per iteration: the training throughput "
        "is not known for " +
        listOf(withoutThroughput) + (why.empty() ? "" : " (" + why + ")"));
  }
  if (!scopes[0].empty() && !scopes[1].empty()) {
    c.notes.push_back("the designs count cost differently (network only: " + listOf(scopes[0]) +
                      "; NPUs and network: " + listOf(scopes[1]) +
                      "): their cost and perf-per-cost ratios mix the two scopes");
  }
  // Designs of different sizes or workloads: the ratios compare systems, not
  // bandwidth splits of one system (a 128-NPU design against 4096-NPU ones).
  std::map<std::int64_t, std::vector<std::string>> bySize;
  std::map<std::string, std::vector<std::string>> byWorkload;
  for (const DesignComparison& d : c.designs) {
    bySize[d.input.project.network.npuCount()].push_back(d.input.name);
    byWorkload[workloadsOf(d.input.project)].push_back(d.input.name);
  }
  if (bySize.size() > 1) {
    std::string list;
    for (const auto& [npus, names] : bySize)
      list += (list.empty() ? "" : "; ") + std::to_string(npus) + " NPUs: " + listOf(names);
    c.notes.push_back("the designs differ in NPU count (" + list +
                      "): the ratios compare systems of different sizes, not splits of one");
  }
  if (byWorkload.size() > 1) {
    std::string list;
    for (const auto& [workload, names] : byWorkload)
      list += (list.empty() ? "" : "; ") + workload + ": " + listOf(names);
    c.notes.push_back("the designs run different workloads (" + list +
                      "): their times are not of the same work");
  }
  const DesignComparison& base = c.baselineDesign();
  if (!base.ok()) {
    c.notes.push_back("the baseline " + text::quotedName(base.input.name) + " has no result (" +
                      statusWord(base.analysis) + "): no ratios");
  }
}

}  // namespace

std::string_view toString(PerformanceMeasure measure) {
  return measure == PerformanceMeasure::TokensPerSecond ? "tokens_per_second"
                                                        : "iterations_per_second";
}

std::optional<double> performanceIn(PerformanceMeasure measure, const Throughput& throughput,
                                    const Evaluation& eval) {
  return measure == PerformanceMeasure::TokensPerSecond ? quotient(throughput.tokensPerSecond, 1.0)
                                                        : quotient(1e9, positive(eval.iterationNs));
}

std::optional<double> perfPerCostIn(PerformanceMeasure measure, const Throughput& throughput,
                                    const Evaluation& eval) {
  return quotient(performanceIn(measure, throughput, eval), positive(eval.costUsd));
}

std::vector<DesignInput> scenarioDesigns(const Project& project, const std::string& file) {
  std::vector<DesignInput> out;
  const std::vector<std::string> names = scenarioNames(project);
  for (std::size_t i = 0; i < names.size(); ++i) {
    DesignInput d;
    d.scenario = names[i];
    d.name = !names[i].empty()       ? names[i]
             : !project.name.empty() ? project.name
                                     : std::string("Scenario 1");
    d.file = file;
    d.project = scenarioAlone(project, i);
    out.push_back(std::move(d));
  }
  return out;
}

bool Comparison::complete() const {
  return std::all_of(designs.begin(), designs.end(),
                     [](const DesignComparison& d) { return d.ok(); });
}

namespace {

// The index of the baseline among designs named `names`; InputError for two
// designs of one name or a baseline that names none.
std::size_t checkNames(const std::vector<std::string>& names, const std::string& baseline) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto same =
        std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]);
    if (same != names.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw InputError("designs " + std::to_string(same - names.begin() + 1) + " and " +
                       std::to_string(i + 1) + " are both named " + text::quotedName(names[i]) +
                       "; each design needs its own name");
    }
  }
  if (baseline.empty()) return 0;
  const auto it = std::find(names.begin(), names.end(), baseline);
  if (it == names.end()) {
    throw InputError("no design is named " + text::quotedName(baseline) +
                     " to be the baseline (the designs are " + listOf(names) + ")");
  }
  return static_cast<std::size_t>(it - names.begin());
}

}  // namespace

Comparison compareDesigns(std::span<const DesignInput> designs, const ComparisonOptions& options) {
  if (designs.empty()) throw InputError("nothing to compare: give at least one design");
  std::vector<std::string> names;
  names.reserve(designs.size());
  for (const DesignInput& d : designs) names.push_back(d.name);
  (void)checkNames(names, options.baseline);  // before any solving

  AnalysisOptions analysisOptions = options.analysis;
  analysisOptions.onDesign = nullptr;
  std::vector<DesignComparison> analyzed;
  for (std::size_t i = 0; i < designs.size(); ++i) {
    DesignComparison d;
    d.input = designs[i];
    try {
      d.analysis = analyze(d.input.project, analysisOptions);
    } catch (const InputError& e) {
      d.analysis = failedAnalysis(d.input, analysisOptions, refusal(d.input, analysisOptions, e));
      d.refused = true;
    }
    if (options.onAnalysis) options.onAnalysis(i, d.analysis);
    analyzed.push_back(std::move(d));
  }
  return compareAnalyzed(std::move(analyzed), options.baseline);
}

Comparison compareAnalyzed(std::vector<DesignComparison> designs, const std::string& baseline) {
  if (designs.empty()) throw InputError("nothing to compare: give at least one design");
  std::vector<std::string> names;
  names.reserve(designs.size());
  for (const DesignComparison& d : designs) names.push_back(d.input.name);
  Comparison c;
  c.baseline = checkNames(names, baseline);
  c.designs = std::move(designs);

  const bool anyResult =
      std::any_of(c.designs.begin(), c.designs.end(), [](const auto& d) { return d.ok(); });
  const bool allThroughputs =
      std::all_of(c.designs.begin(), c.designs.end(), [](const DesignComparison& d) {
        return !d.ok() || d.analysis.design.throughput.tokensPerSecond.has_value();
      });
  c.measure = anyResult && allThroughputs ? PerformanceMeasure::TokensPerSecond
                                          : PerformanceMeasure::IterationsPerSecond;
  for (DesignComparison& d : c.designs) {
    d.performance = d.perfPerCost = std::nullopt;
    if (!d.ok()) continue;
    const DesignResult& r = d.analysis.design;
    d.performance = performanceIn(c.measure, r.throughput, r.eval);
    d.perfPerCost = perfPerCostIn(c.measure, r.throughput, r.eval);
  }
  const DesignComparison& base = c.designs[c.baseline];
  const std::optional<double> basePerformance = base.performance, baseCost = costOf(base),
                              basePerfPerCost = base.perfPerCost;
  for (DesignComparison& d : c.designs) {
    d.speedup = quotient(d.performance, basePerformance);
    d.costRatio = quotient(costOf(d), baseCost);
    d.perfPerCostRatio = quotient(d.perfPerCost, basePerfPerCost);
  }
  addNotes(c);
  return c;
}

// --- JSON and CSV -----------------------------------------------------------------

namespace {

using result_json::exact;
using result_json::number;
using result_json::numbers;
using result_json::optionalNumber;

std::string perfPerCostUnit(PerformanceMeasure m) {
  return m == PerformanceMeasure::TokensPerSecond ? "tokens/s per $" : "iterations/s per $";
}

// The keys of one design, in this order, the same for every design (null or an
// empty list where unknown).
Json designJson(const DesignComparison& d, bool isBaseline) {
  const Analysis& a = d.analysis;
  const bool ok = d.ok();
  const DesignResult& r = a.design;
  auto value = [ok](double v) { return ok ? number(v) : Json(nullptr); };
  Json j;
  j["name"] = d.input.name;
  j["file"] = d.input.file;
  j["scenario"] = d.input.scenario;
  j["status"] = statusWord(a);
  j["message"] = ok ? Json(nullptr) : Json(a.message);
  j["objective"] = std::string(toString(a.objective));
  j["baseline"] = isBaseline;
  j["dimensions"] = ok && a.problem ? a.problem->dimNames : std::vector<std::string>{};
  j["bandwidth_gbps"] = ok ? numbers(r.bandwidth) : Json::array();
  j["total_bandwidth_gbps"] = value(r.totalBandwidth());
  j["iteration_time_ns"] = value(r.eval.iterationNs);
  j["compute_time_ns"] = value(r.eval.computeNs);
  j["communication_time_ns"] = value(r.eval.communicationNs);
  j["cost_scope"] = std::string(toString(a.costScope));
  j["network_cost_usd"] = value(r.eval.networkCostUsd);
  j["cost_usd"] = value(r.eval.costUsd);
  j.update(result_json::throughputKeys(a.training, ok ? r.throughput : Throughput{}));
  j["time_cost_ns_usd"] = ok ? optionalNumber(r.timeCost()) : Json(nullptr);
  j["performance"] = optionalNumber(d.performance);
  j["perf_per_cost"] = optionalNumber(d.perfPerCost);
  j["speedup"] = optionalNumber(d.speedup);
  j["cost_ratio"] = optionalNumber(d.costRatio);
  j["perf_per_cost_ratio"] = optionalNumber(d.perfPerCostRatio);
  j["constraints"] = a.constraints;
  return j;
}

}  // namespace

std::string comparisonJson(const Comparison& c) {
  Json j;
  j["status"] = c.complete() ? "compared" : "incomplete";
  j["baseline"] = c.baselineDesign().input.name;
  j["performance_measure"] = std::string(toString(c.measure));
  j["perf_per_cost_unit"] = perfPerCostUnit(c.measure);
  Json designs = Json::array();
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    designs.push_back(designJson(c.designs[i], i == c.baseline));
  }
  j["designs"] = std::move(designs);
  j["notes"] = c.notes;
  return j.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string comparisonCsv(const Comparison& c) {
  using result_json::csvField;
  std::size_t widest = 0;
  for (const DesignComparison& d : c.designs) {
    if (d.ok()) widest = std::max(widest, d.analysis.design.bandwidth.size());
  }
  std::string out =
      "name,file,scenario,status,objective,baseline,cost_scope,total_bandwidth_gbps,"
      "iteration_time_ns,compute_time_ns,communication_time_ns,network_cost_usd,cost_usd,"
      "tokens_per_second,model_tflops_per_npu,mfu,time_to_train_s,performance_measure,"
      "performance,perf_per_cost,speedup,cost_ratio,perf_per_cost_ratio,dimensions";
  for (std::size_t i = 0; i < widest; ++i) out += ",bw_" + std::to_string(i) + "_gbps";
  out += ",message\n";
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const DesignComparison& d = c.designs[i];
    const Analysis& a = d.analysis;
    const DesignResult& r = a.design;
    const bool ok = d.ok();
    auto value = [ok](double v) { return ok ? exact(v) : std::string(); };
    std::string dims;
    if (ok && a.problem) {
      for (const std::string& n : a.problem->dimNames) dims += (dims.empty() ? "" : ";") + n;
    }
    const Throughput t = ok ? r.throughput : Throughput{};
    std::vector<std::string> cells{csvField(d.input.name),
                                   csvField(d.input.file),
                                   csvField(d.input.scenario),
                                   statusWord(a),
                                   std::string(toString(a.objective)),
                                   i == c.baseline ? "1" : "0",
                                   std::string(toString(a.costScope)),
                                   value(r.totalBandwidth()),
                                   value(r.eval.iterationNs),
                                   value(r.eval.computeNs),
                                   value(r.eval.communicationNs),
                                   value(r.eval.networkCostUsd),
                                   value(r.eval.costUsd),
                                   exact(t.tokensPerSecond),
                                   exact(t.modelTflopsPerNpu),
                                   exact(t.mfu),
                                   exact(t.timeToTrainS),
                                   std::string(toString(c.measure)),
                                   exact(d.performance),
                                   exact(d.perfPerCost),
                                   exact(d.speedup),
                                   exact(d.costRatio),
                                   exact(d.perfPerCostRatio),
                                   csvField(dims)};
    for (std::size_t k = 0; k < widest; ++k) {
      cells.push_back(ok && k < r.bandwidth.size() ? exact(r.bandwidth[k]) : std::string());
    }
    cells.push_back(ok ? std::string() : csvField(a.message));
    for (std::size_t k = 0; k < cells.size(); ++k) out += (k == 0 ? "" : ",") + cells[k];
    out += "\n";
  }
  return out;
}

}  // namespace libra
