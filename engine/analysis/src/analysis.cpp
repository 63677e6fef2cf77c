#include "libra/analysis.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "libra/edits.hpp"
#include "libra/error.hpp"
#include "libra/result_json.hpp"
#include "libra/solver_detail.hpp"

namespace libra {

double DesignResult::totalBandwidth() const {
  return std::accumulate(bandwidth.begin(), bandwidth.end(), 0.0);
}

std::optional<double> DesignResult::timeCost() const {
  const double v = eval.iterationNs * eval.costUsd;
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

DesignResult describeDesign(const Problem& problem, const Network& network,
                            std::vector<double> bandwidth) {
  DesignResult r;
  r.eval = problem.evaluate(bandwidth);
  const int n = problem.dims();
  r.dims.resize(n);
  for (int d = 0; d < n; ++d) {
    DimensionResult& dim = r.dims[d];
    dim.name = problem.dimNames[d];
    if (d < network.size()) {
      dim.block = network.dims[d].block;
      dim.npus = network.dims[d].npus;
    }
    dim.bandwidthGbps = bandwidth[d];
    dim.busyNs = r.eval.busyNs[d];
    dim.exposedNs = r.eval.communicationByDimNs[d];
    dim.costUsd = problem.costPerBandwidth[d] * bandwidth[d];
    dim.costShare = r.eval.networkCostUsd > 0 ? dim.costUsd / r.eval.networkCostUsd : 0.0;
  }
  r.bandwidth = std::move(bandwidth);
  return r;
}

std::vector<std::string> violatedConstraints(const Problem& problem,
                                             std::span<const double> bandwidth) {
  std::vector<std::string> out;
  for (const LinearConstraint& c : problem.constraints) {
    if (!c.isSatisfied(bandwidth, 1e-9)) out.push_back(c.text);
  }
  return out;
}

namespace {

// a / b when both are finite and positive.
std::optional<double> ratio(double a, double b) {
  if (!(std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0)) return std::nullopt;
  return a / b;
}

}  // namespace

std::optional<Baseline> equalSplitBaseline(const Problem& problem, const Network& network,
                                           const DesignResult& design) {
  const int n = problem.dims();
  const double total = design.totalBandwidth();
  if (n == 0 || !(total > 0) || !std::isfinite(total)) return std::nullopt;
  Baseline b;
  b.design = describeDesign(problem, network, std::vector<double>(n, total / n));
  b.violated = violatedConstraints(problem, b.design.bandwidth);
  const Evaluation& base = b.design.eval;
  const Evaluation& mine = design.eval;
  b.speedup = ratio(base.iterationNs, mine.iterationNs);
  b.communicationSpeedup = ratio(base.communicationNs, mine.communicationNs);
  const auto baseTc = b.design.timeCost(), mineTc = design.timeCost();
  if (baseTc && mineTc) b.timeCostGain = ratio(*baseTc, *mineTc);
  return b;
}

namespace {

// The project as analysed (its constraints plus the extra ones, the model
// overrides applied), with what the analysis reports of it before any solve.
Project pose(const Project& project, const AnalysisOptions& options, Analysis& a) {
  a.projectName = project.name;
  a.scenarioName = project.scenarioName;
  a.objective = options.objective.value_or(project.objective);
  a.backend = options.backend;
  if (options.projectConstraints) a.constraints = project.constraints;
  a.constraints.insert(a.constraints.end(), options.extraConstraints.begin(),
                       options.extraConstraints.end());
  Project posed = project;
  posed.constraints = a.constraints;
  applyModelOverrides(posed, options.model);
  a.model = posed.model;
  for (const Dimension& d : posed.network.dims) a.latencyNs.push_back(d.latencyNs);
  a.endpointDelayNs = posed.network.endpointDelayNs;
  a.limitViolations = limitViolations(posed.network, posed.limits);
  a.problem = std::make_shared<const Problem>(buildProblem(posed));
  a.costBudgetUsd = splitConstraints(a.constraints).costBudget;
  const Problem& problem = *a.problem;
  a.costScope = posed.costScope;
  a.npuCostUsd = problem.fixedCostUsd;
  if (a.costScope == CostScope::System) a.npuPriceSource = npuPrice(posed)->source;
  a.training = trainingFacts(posed);
  const std::vector<bool> used = problem.time.usedDims();
  for (int d = 0; d < problem.dims(); ++d) {
    if (!used[d]) a.dimensionsWithoutTraffic.push_back(problem.dimNames[d]);
  }
  return posed;
}

// The design, its throughput and the equal-split baseline beside it.
void finishDesign(Analysis& a, const Network& network, std::vector<double> bandwidth) {
  const Problem& problem = *a.problem;
  a.design = describeDesign(problem, network, std::move(bandwidth));
  a.design.throughput = throughputAt(a.training, a.design.eval.iterationNs);
  a.baseline = equalSplitBaseline(problem, network, a.design);
  if (a.baseline) {
    a.baseline->design.throughput = throughputAt(a.training, a.baseline->design.eval.iterationNs);
  }
}

// Unless asked otherwise the front spans the whole cost range: the cost budget
// is drawn on it, not applied (without a budget the front's problem is the
// problem itself).
std::shared_ptr<const Problem> frontProblemOf(const Analysis& a, const Project& posed,
                                              const AnalysisOptions& options) {
  if (!a.costBudgetUsd || options.frontWithinCostBudget) return a.problem;
  Project unbudgeted = posed;
  unbudgeted.constraints = constraintsWithoutCostBudget(a.constraints);
  return std::make_shared<const Problem>(buildProblem(unbudgeted));
}

}  // namespace

Analysis analyze(const Project& project, const AnalysisOptions& options) {
  Analysis a;
  const Project posed = pose(project, options, a);
  const Problem& problem = *a.problem;
  const SolveOptions solveOptions{options.backend, options.cancel, options.limits};
  if (options.design) {
    problem.checkBandwidth(*options.design);
    a.evaluated = true;
    a.status = SolveStatus::Optimal;
    finishDesign(a, posed.network, *options.design);
    a.violated = violatedConstraints(problem, a.design.bandwidth);
    a.sensitivity.note = "the design is evaluated, not optimized: nothing is re-solved";
    if (options.onDesign) options.onDesign(a);
    return a;
  }
  const std::shared_ptr<const Problem> frontProblem = frontProblemOf(a, posed, options);
  const int points = options.paretoPoints >= 2 ? options.paretoPoints : 0;
  const auto started = std::chrono::steady_clock::now();

  // Perf per cost is read off the front when the front is of the same problem
  // (the optimum lies on it), so the front comes first; otherwise the optimum is
  // shown before the front follows.
  Solution optimum;
  const bool optimumFromFront = a.objective == Objective::PerfPerCost && points > 0 &&
                                (!a.costBudgetUsd || options.frontWithinCostBudget);
  if (optimumFromFront) {
    // The answer, not a marker: searched as finely as solve() searches it.
    a.front = detail::paretoFrontForAnswer(*frontProblem, points, solveOptions);
    optimum = a.front.status == SolveStatus::Optimal
                  ? a.front.perfPerCostOptimum
                  : Solution{a.front.status, a.front.message, a.objective, {}, {}, 0, {}};
  } else {
    optimum = solve(problem, a.objective, solveOptions);
  }
  a.status = optimum.status;
  a.message = optimum.message;
  a.iterations = optimum.iterations;
  a.solveNs =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - started).count();
  if (optimum.ok()) {
    finishDesign(a, posed.network, optimum.bandwidth);
    if (options.sensitivity) {
      a.sensitivity = sensitivityAt(problem, optimum, solveOptions);
    } else {
      a.sensitivity.note = "not requested";
    }
    if (options.onDesign && !optimumFromFront) options.onDesign(a);
  } else {
    a.sensitivity.note = "there is no optimum";
  }
  if (points > 0 && !optimumFromFront && a.status != SolveStatus::Cancelled) {
    // The least-time design of the front's own problem is the front's last
    // point: it is not solved a second time.
    const bool leastTimeKnown =
        optimum.ok() && a.objective == Objective::Performance && frontProblem == a.problem;
    a.front = leastTimeKnown ? paretoFront(*frontProblem, points, solveOptions, optimum)
                             : paretoFront(*frontProblem, points, solveOptions);
    if (a.front.status == SolveStatus::Cancelled) a.status = SolveStatus::Cancelled;
  }
  if (optimumFromFront && optimum.ok() && options.onDesign) options.onDesign(a);
  return a;
}

Analysis analyzeFrontPoint(const Project& project, const AnalysisOptions& options,
                           const Analysis& analysis, std::size_t index) {
  const std::vector<Solution>& points = analysis.front.points;
  if (index >= points.size()) {
    throw InputError("front point " + std::to_string(index) + ": the front has " +
                     std::to_string(points.size()) + " points");
  }
  const Solution& point = points[index];
  if (!point.ok() || !std::isfinite(point.eval.costUsd)) {
    throw InputError("front point " + std::to_string(index) + " is not a design: " + point.message);
  }
  Project budgeted = project;
  setCostBudget(budgeted, point.eval.costUsd);
  AnalysisOptions o = options;
  o.objective = Objective::Performance;
  o.extraConstraints = constraintsWithoutCostBudget(o.extraConstraints);  // the point's instead
  o.paretoPoints = 0;
  o.design = point.bandwidth;
  o.cancel = nullptr;
  o.onDesign = {};
  Analysis a = analyze(budgeted, o);
  // The point is the optimum of that problem, not a design given by the user.
  a.evaluated = false;
  a.violated.clear();
  a.sensitivity = sensitivityAt(*a.problem, point);
  a.iterations = point.iterations;
  a.front = analysis.front;
  return a;
}

// --- JSON and CSV -----------------------------------------------------------------

namespace {

using namespace result_json;  // the writers shared with compare.cpp

// Everything else the training facts say, for solve / evaluate / pareto.
Json trainingDetails(const TrainingFacts& f) {
  Json j;
  j["samples_per_iteration"] = optionalNumber(f.samplesPerIteration);
  j["model_flops_per_iteration"] = optionalNumber(f.modelFlopsPerIteration);
  j["train_tokens"] = optionalNumber(f.trainTokens);
  if (f.batch) {
    j["batch"] = batchJson(*f.batch);
  } else {
    j["batch"] = nullptr;
  }
  j["pipeline_bubble_fraction"] = optionalNumber(f.pipelineBubble);
  if (f.memory.use) {
    const MemoryUse& u = *f.memory.use;
    j["memory"] = {{"weights_bytes", number(u.weights)},
                   {"gradients_bytes", number(u.gradients)},
                   {"optimizer_bytes", number(u.optimizer)},
                   {"activations_bytes", number(u.activations)},
                   {"where", u.where},
                   {"fits", f.memory.fits()}};
  } else {
    j["memory"] = nullptr;
  }
  if (!f.note.empty()) j["throughput_note"] = f.note;
  if (!f.trainNote.empty()) j["train_tokens_note"] = f.trainNote;
  if (!f.memory.note.empty()) j["memory_note"] = f.memory.note;
  return j;
}

// In the system scope, the whole cost beside the network's.
void systemCostKeys(Json& j, const Evaluation& e, CostScope scope) {
  if (scope == CostScope::System) j["system_cost_usd"] = number(e.costUsd);
}

// The keys spec/cli.md fixes for a design, in its order.
Json evaluationKeys(const DesignResult& d, CostScope scope) {
  Json j;
  j["bandwidth_gbps"] = numbers(d.bandwidth);
  j["iteration_time_ns"] = number(d.eval.iterationNs);
  j["compute_time_ns"] = number(d.eval.computeNs);
  j["communication_time_ns"] = number(d.eval.communicationNs);
  j["network_cost_usd"] = number(d.eval.networkCostUsd);
  systemCostKeys(j, d.eval, scope);
  return j;
}

// Which cost the results count, and in the system scope the NPUs' part.
Json costScopeKeys(const Analysis& a) {
  Json j;
  j["cost_scope"] = std::string(toString(a.costScope));
  if (a.costScope == CostScope::System) {
    j["npu_cost_usd"] = number(a.npuCostUsd);
    j["npu_price_source"] = a.npuPriceSource;
  }
  return j;
}

// `sensitivity` (spec/cli.md) and what goes with it.
Json sensitivityKeys(const Sensitivity& s) {
  auto rate = [](const std::optional<double>& v) { return v ? number(*v) : Json(nullptr); };
  Json j;
  Json list = Json::array();
  for (const ConstraintSensitivity& c : s.constraints) {
    Json item;
    item["constraint"] = c.constraint;
    item["ns_per_unit"] = rate(c.nsPerUnit);
    item["ns_per_unit_down"] = rate(c.nsPerUnitDown);
    item["step"] = number(c.step);
    item["unit"] = c.unit;
    item["binding"] = c.binding;
    list.push_back(std::move(item));
  }
  j["sensitivity"] = std::move(list);
  j["sensitivity_of"] = s.objective == Objective::Performance
                            ? "iteration time (ns)"
                            : "time x cost divided by the optimum's cost (ns at its cost)";
  Json dims = Json::array();
  for (const DimensionSensitivity& d : s.dims) {
    dims.push_back({{"dimension", d.name},
                    {"ns_per_gbps", rate(d.nsPerGbps)},
                    {"ns_per_gbps_down", rate(d.nsPerGbpsDown)},
                    {"step_gbps", number(d.step)},
                    {"bottleneck", d.bottleneck}});
  }
  j["dimension_sensitivity"] = std::move(dims);
  j["bottlenecks"] = s.bottlenecks();
  if (!s.note.empty()) j["sensitivity_note"] = s.note;
  return j;
}

double timeCostOf(const Solution& s) {
  return s.eval.iterationNs * s.eval.costUsd;
}

Json pointJson(const Solution& s, const TrainingFacts& facts, CostScope scope) {
  Json j;
  j["network_cost_usd"] = number(s.eval.networkCostUsd);
  systemCostKeys(j, s.eval, scope);
  j["iteration_time_ns"] = number(s.eval.iterationNs);
  j["bandwidth_gbps"] = numbers(s.bandwidth);
  j["compute_time_ns"] = number(s.eval.computeNs);
  j["communication_time_ns"] = number(s.eval.communicationNs);
  j["time_cost_ns_usd"] = number(timeCostOf(s));
  j.update(throughputKeys(facts, throughputAt(facts, s.eval.iterationNs)));
  return j;
}

}  // namespace

std::optional<double> surrogateGap(const Evaluation& eval) {
  const double exactNs = eval.iterationNs, surrogateNs = eval.surrogateIterationNs;
  if (!std::isfinite(exactNs) || !std::isfinite(surrogateNs) || !(exactNs > 0)) return std::nullopt;
  return (surrogateNs - exactNs) / exactNs;
}

std::string statusWord(SolveStatus status) {
  switch (status) {
    case SolveStatus::Optimal:
      return "optimal";
    case SolveStatus::Infeasible:
      return "infeasible";
    case SolveStatus::Unbounded:
      return "unbounded";
    case SolveStatus::Cancelled:
    case SolveStatus::Error:
      return "error";
  }
  return "error";
}

std::string statusWord(const Analysis& analysis) {
  if (analysis.evaluated) return "evaluated";
  return statusWord(analysis.status);
}

std::size_t nearestFrontPoint(const ParetoFront& front) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < front.points.size(); ++i) {
    if (timeCostOf(front.points[i]) < timeCostOf(front.points[best])) best = i;
  }
  return best;
}

std::string failureJson(const std::string& status, const std::string& message,
                        std::optional<Objective> objective, std::optional<Backend> backend) {
  Json j;
  j["status"] = status;
  if (objective) j["objective"] = std::string(toString(*objective));
  j["message"] = message;
  if (backend) j["solver"] = std::string(toString(*backend));
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {
Json paretoObject(const Analysis& a);
}  // namespace

std::string analysisJson(const Analysis& a, bool withFront) {
  if (!a.ok()) {
    return failureJson(statusWord(a),
                       a.message.empty() ? "the solver stopped without saying why" : a.message,
                       a.objective, a.backend);
  }
  const DesignResult& d = a.design;
  Json j;
  j["status"] = statusWord(a);
  j["objective"] = std::string(toString(a.objective));
  j.update(evaluationKeys(d, a.costScope));
  j.update(costScopeKeys(a));
  j.update(throughputKeys(a.training, d.throughput));
  j.update(memoryKeys(a.training.memory));
  j.update(trainingDetails(a.training));
  j["dimensions_without_traffic"] = a.dimensionsWithoutTraffic;
  j["project"] = a.projectName;
  j["scenario"] = a.scenarioName;
  j["dimensions"] = a.problem ? a.problem->dimNames : std::vector<std::string>{};
  j["busy_time_ns"] = numbers(d.eval.busyNs);
  j["exposed_communication_ns"] = numbers(d.eval.communicationByDimNs);
  std::vector<double> share;
  for (const DimensionResult& dim : d.dims) share.push_back(dim.costShare);
  j["cost_share"] = numbers(share);
  j["time_cost_ns_usd"] = optionalNumber(d.timeCost());
  j["finite"] = d.eval.finite;
  const ChunkSetting& chunks = a.model.collectives.chunks;
  if (chunks.kind == ChunkSetting::Kind::Fixed) {
    j["chunks"] = chunks.count;
  } else {
    j["chunks"] = chunks.toString();
  }
  j["latency_ns"] = numbers(a.latencyNs);
  j["endpoint_delay_ns"] = number(a.endpointDelayNs);
  j["surrogate_iteration_time_ns"] = number(d.eval.surrogateIterationNs);
  j["surrogate_gap"] = optionalNumber(surrogateGap(d.eval));
  j["limit_violations"] = a.limitViolations;
  if (a.costBudgetUsd) j["cost_budget_usd"] = number(*a.costBudgetUsd);
  j["constraints"] = a.constraints;
  if (!a.evaluated) j.update(sensitivityKeys(a.sensitivity));
  if (!a.evaluated) {
    j["solver"] = std::string(toString(a.backend));
    j["iterations"] = a.iterations;
    j["solve_time_ns"] = number(a.solveNs);
  } else {
    j["violated_constraints"] = a.violated;
  }
  if (a.baseline) {
    const Baseline& b = *a.baseline;
    Json s = evaluationKeys(b.design, a.costScope);
    s.update(throughputKeys(a.training, b.design.throughput));
    s["speedup"] = optionalNumber(b.speedup);
    s["communication_speedup"] = optionalNumber(b.communicationSpeedup);
    s["time_cost_gain"] = optionalNumber(b.timeCostGain);
    s["satisfies_constraints"] = b.satisfiesConstraints();
    s["violated_constraints"] = b.violated;
    j["equal_split"] = std::move(s);
  }
  if (withFront && a.hasFront()) j["pareto"] = paretoObject(a);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

Json paretoObject(const Analysis& a) {
  Json j;
  j["status"] = "optimal";
  Json points = Json::array();
  for (const Solution& s : a.front.points) {
    points.push_back(pointJson(s, a.training, a.costScope));
  }
  j["points"] = std::move(points);
  const Solution& best = a.front.perfPerCostOptimum;
  if (best.ok()) {
    j["perf_per_cost_optimum"] = pointJson(best, a.training, a.costScope);
    j["nearest_point_index"] = nearestFrontPoint(a.front);
  } else {
    j["perf_per_cost_optimum"] = nullptr;
    j["nearest_point_index"] = nullptr;
    j["perf_per_cost_note"] = best.message;
  }
  j["project"] = a.projectName;
  j["scenario"] = a.scenarioName;
  j["dimensions"] = a.problem ? a.problem->dimNames : std::vector<std::string>{};
  j["min_cost_usd"] = number(a.front.minCostUsd);
  j["max_cost_usd"] = number(a.front.maxCostUsd);
  j.update(costScopeKeys(a));
  j.update(memoryKeys(a.training.memory));
  j.update(trainingDetails(a.training));
  if (a.costBudgetUsd) j["cost_budget_usd"] = number(*a.costBudgetUsd);
  j["solver"] = std::string(toString(a.backend));
  j["iterations"] = a.front.perfPerCostOptimum.iterations;
  j["solve_time_ns"] = number(a.solveNs);
  return j;
}

}  // namespace

std::string paretoJson(const Analysis& a) {
  if (!a.hasFront()) {
    const std::string message = a.front.status == SolveStatus::Optimal
                                    ? "no point of the front could be solved"
                                    : a.front.message;
    return failureJson(
        statusWord(a.front.status == SolveStatus::Optimal ? SolveStatus::Error : a.front.status),
        message, std::nullopt, a.backend);
  }
  return paretoObject(a).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// The throughput columns of the CSV files, empty where unknown.
constexpr const char* kThroughputColumns =
    "tokens_per_second,model_tflops_per_npu,mfu,time_to_train_s";
std::string throughputFields(const TrainingFacts& facts, double iterationNs) {
  const Throughput t = throughputAt(facts, iterationNs);
  auto field = [](const std::optional<double>& v) { return v ? exact(*v) : std::string(); };
  return field(t.tokensPerSecond) + "," + field(t.modelTflopsPerNpu) + "," + field(t.mfu) + "," +
         field(t.timeToTrainS);
}

// The CSV files' cost column: the cost in the analysis' scope.
std::string costColumn(const Analysis& a) {
  return a.costScope == CostScope::System ? "system_cost_usd" : "network_cost_usd";
}

}  // namespace

std::string designsCsv(const Analysis& a) {
  std::string out =
      "kind," + costColumn(a) + ",iteration_time_ns,compute_time_ns,communication_time_ns";
  if (a.problem) {
    for (const std::string& name : a.problem->dimNames)
      out += "," + csvField("bw_" + name + "_gbps");
  }
  out += std::string(",") + kThroughputColumns + "\n";
  auto row = [&](const char* kind, const std::vector<double>& bw, const Evaluation& e) {
    if (!std::isfinite(e.iterationNs) || !std::isfinite(e.costUsd)) return;
    out += std::string(kind) + "," + exact(e.costUsd) + "," + exact(e.iterationNs) + "," +
           exact(e.computeNs) + "," + exact(e.communicationNs);
    for (double b : bw) out += "," + exact(b);
    out += "," + throughputFields(a.training, e.iterationNs) + "\n";
  };
  if (a.ok()) row(a.evaluated ? "evaluated" : "optimum", a.design.bandwidth, a.design.eval);
  if (a.hasFront()) {
    const Solution& best = a.front.perfPerCostOptimum;
    if (best.ok()) row("perf_per_cost_optimum", best.bandwidth, best.eval);
    for (const Solution& s : a.front.points) {
      if (s.ok()) row("pareto", s.bandwidth, s.eval);
    }
  }
  if (a.ok() && a.baseline)
    row("equal_split", a.baseline->design.bandwidth, a.baseline->design.eval);
  return out;
}

std::string paretoCsv(const Analysis& a) {
  std::string out = costColumn(a) + ",iteration_time_ns";
  if (a.problem) {
    for (const std::string& name : a.problem->dimNames)
      out += "," + csvField("bw_" + name + "_gbps");
  }
  out += std::string(",perf_per_cost_optimum,") + kThroughputColumns + "\n";
  if (!a.hasFront()) return out;
  const std::size_t best = nearestFrontPoint(a.front);
  for (std::size_t i = 0; i < a.front.points.size(); ++i) {
    const Solution& s = a.front.points[i];
    // A point whose time or cost is not finite is not a design.
    if (!std::isfinite(s.eval.iterationNs) || !std::isfinite(s.eval.costUsd)) continue;
    out += exact(s.eval.costUsd) + "," + exact(s.eval.iterationNs);
    for (double bw : s.bandwidth) out += "," + exact(bw);
    out += i == best ? ",1," : ",0,";
    out += throughputFields(a.training, s.eval.iterationNs) + "\n";
  }
  return out;
}

}  // namespace libra
