#include "libra/codesign.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "libra/constraints.hpp"
#include "libra/cost.hpp"
#include "libra/error.hpp"
#include "libra/network.hpp"
#include "libra/project.hpp"
#include "libra/solver_detail.hpp"

namespace libra {

double CodesignDesign::timeToTrainS() const {
  return throughput.timeToTrainS ? *throughput.timeToTrainS
                                 : std::numeric_limits<double>::quiet_NaN();
}

bool CodesignResult::onFront(std::size_t k) const {
  return std::find(pareto.begin(), pareto.end(), static_cast<int>(k)) != pareto.end();
}

bool sameTimeAndCost(const CodesignPoint& point, const CodesignDesign& design) {
  const double t = design.solution.eval.iterationNs;
  return std::abs(point.iterationNs - t) <= 1e-12 * t && point.costUsd == design.costUsd;
}

namespace {

std::vector<std::string> constraintsOf(const SweepOptions& o) {
  return o.constraints.empty() ? std::vector<std::string>{"total == 500"} : o.constraints;
}

// The price of one NPU in the system scope; 0 in the network scope, or when the
// device's price is unknown (then the system cost is the network's).
double npuPriceOf(const SweepOptions& o) {
  if (o.npuPriceUsd) return *o.npuPriceUsd;
  return o.device.listPriceUsd > 0 ? o.device.listPriceUsd : 0;
}

// Designs are compared by the objective's key, then by cost, then by the
// enumeration (shape, then the search's order), so the result does not depend
// on the thread or the process that found a design first.
using Ranked = CodesignCandidate;

double keyOf(const CodesignDesign& d, Objective objective) {
  const double t = d.solution.eval.iterationNs;
  return objective == Objective::Performance ? t : t * d.costUsd;
}

bool before(const Ranked& a, const Ranked& b, Objective objective) {
  const double ka = keyOf(a.design, objective), kb = keyOf(b.design, objective);
  if (ka != kb) return ka < kb;
  if (a.design.costUsd != b.design.costUsd) return a.design.costUsd < b.design.costUsd;
  return std::tie(a.shape, a.order) < std::tie(b.shape, b.order);
}

bool sameValue(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

constexpr double kNone = std::numeric_limits<double>::infinity();

}  // namespace

// In a named namespace: CodesignWork::State holds them (a class with a member
// of an unnamed namespace's type draws -Wsubobject-linkage in a unity build).
namespace codesign_detail {

// The front of (time, cost) found so far, the best designs by the objective:
// one per unit, and the run's, into which the units' are merged. What it holds
// depends on the designs added, not on their order.
class Collector {
 public:
  Collector(Objective objective, std::size_t keep) : objective_(objective), keep_(keep) {}

  // Whether no design whose time is at least `boundNs` on a shape whose least
  // cost is `minCost` can be among the best `keep` by the objective: its least
  // key is above the `keep`-th best of those found here and the keys given to
  // setOutside. Strictly above: a design whose key equals the final `keep`-th
  // is never skipped, so which of equal designs are kept does not depend on the
  // order. (A design that a design found dominates may still be among the
  // best: it is not skipped for that.)
  bool dominated(double boundNs, double minCost) const {
    const double least = objective_ == Objective::Performance ? boundNs : boundNs * minCost;
    const std::lock_guard lock(mutex_);
    return least > threshold_;
  }

  // The keys of the best designs found by other units, ascending.
  void setOutside(std::vector<double> keys) {
    const std::lock_guard lock(mutex_);
    outside_ = std::move(keys);
    updateThreshold();
  }

  // The keys of the best designs, ascending.
  std::vector<double> bestKeys() const {
    const std::lock_guard lock(mutex_);
    std::vector<double> keys;
    for (const Ranked& r : best_) keys.push_back(keyOf(r.design, objective_));
    return keys;
  }

  // Whether a design of this time and cost would enter the front or the list.
  bool wanted(double timeNs, double cost) const {
    const std::lock_guard lock(mutex_);
    const bool dominatedByFront = std::any_of(front_.begin(), front_.end(), [&](const Ranked& f) {
      return f.design.solution.eval.iterationNs <= timeNs && f.design.costUsd <= cost;
    });
    if (!dominatedByFront) return true;
    if (best_.size() < keep_) return true;
    const double key = objective_ == Objective::Performance ? timeNs : timeNs * cost;
    return key <= keyOf(best_.back().design, objective_);
  }

  void add(Ranked r) {
    const std::lock_guard lock(mutex_);
    // On the front unless a point dominates it, or is the same point and comes
    // first (equal points are kept once: the first in the order of `before`).
    const auto covers = [&](const Ranked& f, const Ranked& g) {
      const double ft = f.design.solution.eval.iterationNs, fc = f.design.costUsd;
      const double gt = g.design.solution.eval.iterationNs, gc = g.design.costUsd;
      if (!(ft <= gt && fc <= gc)) return false;
      return ft < gt || fc < gc || before(f, g, objective_);
    };
    if (std::none_of(front_.begin(), front_.end(), [&](const Ranked& f) { return covers(f, r); })) {
      std::erase_if(front_, [&](const Ranked& f) { return covers(r, f); });
      front_.push_back(r);
    }
    const auto at =
        std::upper_bound(best_.begin(), best_.end(), r,
                         [&](const auto& a, const auto& b) { return before(a, b, objective_); });
    if (static_cast<std::size_t>(at - best_.begin()) >= keep_) return;
    best_.insert(at, std::move(r));
    if (best_.size() > keep_) best_.pop_back();
    updateThreshold();
  }

  std::vector<Ranked> front() const {
    const std::lock_guard lock(mutex_);
    return front_;
  }
  std::vector<Ranked> best() const {
    const std::lock_guard lock(mutex_);
    return best_;
  }
  // What this collector keeps: its best designs and its front, each once. With
  // `pruned`, only those whose key is at most the `keep`-th of its own and the
  // others' best: a design above it is neither among the best `keep` of the
  // run nor on the part of the front listed.
  std::vector<Ranked> kept(bool pruned) const {
    const std::lock_guard lock(mutex_);
    const auto beyond = [&](const Ranked& r) {
      return pruned && keyOf(r.design, objective_) > threshold_;
    };
    std::vector<Ranked> out = best_;
    std::erase_if(out, beyond);
    for (const Ranked& f : front_) {
      if (beyond(f)) continue;
      const bool listed = std::any_of(out.begin(), out.end(), [&](const Ranked& r) {
        return r.shape == f.shape && r.order == f.order;
      });
      if (!listed) out.push_back(f);
    }
    return out;
  }

 private:
  // The `keep`-th best key of best_ and outside_ together (+inf while fewer).
  void updateThreshold() {
    threshold_ = kNone;
    if (best_.size() + outside_.size() < keep_) return;
    std::size_t i = 0, j = 0;
    for (std::size_t n = 0; n < keep_; ++n) {
      const double mine = i < best_.size() ? keyOf(best_[i].design, objective_) : kNone;
      const double theirs = j < outside_.size() ? outside_[j] : kNone;
      threshold_ = std::min(mine, theirs);
      ++(mine <= theirs ? i : j);
    }
  }

  Objective objective_;
  std::size_t keep_;
  mutable std::mutex mutex_;
  std::vector<Ranked> front_;
  std::vector<Ranked> best_;
  std::vector<double> outside_;  // keys of the best designs found elsewhere, ascending
  double threshold_ = kNone;
};

struct Shape {
  std::int64_t npus = 0;
  std::size_t prepared = 0;  // index into the prepared executions
  Network network;
};

}  // namespace codesign_detail

using codesign_detail::Collector;
using codesign_detail::Shape;

namespace {

// The execution search's options every shape starts from.
ExecutionSearchOptions searchOptionsOf(const CodesignOptions& o,
                                       const std::vector<std::string>& constraints,
                                       const std::atomic<bool>* cancel) {
  ExecutionSearchOptions base;
  base.choices = o.choices;
  base.device = o.shapes.device;
  base.generator = o.shapes.generator;
  base.project.trainingLoop = o.shapes.loop;
  base.project.collectives = o.shapes.collectives;
  base.project.costModel = o.shapes.costModel;
  base.project.constraints = constraints;
  base.project.generator = o.shapes.generator;
  base.ignoreMemory = o.shapes.ignoreMemory;
  base.prune = o.prune;
  base.keep = 1;
  base.objective = o.objective;
  base.solver.backend = Backend::Native;  // IPOPT is not thread-safe
  base.solver.cancel = cancel;
  base.cancel = cancel;

  return base;
}

// Work items [first, last): the shapes of one factorization (consecutive in the
// enumeration), which differ only in their blocks and share their tallies.
std::vector<std::pair<std::size_t, std::size_t>> factorizationItems(
    const std::vector<Shape>& shapes, std::size_t most) {
  std::vector<std::pair<std::size_t, std::size_t>> items;
  for (std::size_t i = 0; i < shapes.size();) {
    std::size_t j = i + 1;
    const auto sizes = [&](std::size_t k) {
      std::vector<int> n;
      for (const Dimension& d : shapes[k].network.dims) n.push_back(d.npus);
      return std::make_pair(shapes[k].npus, n);
    };
    while (j < shapes.size() && sizes(j) == sizes(i)) ++j;
    // In pieces of at most `most` shapes (0: whole), as even as they can be.
    const std::size_t n = j - i;
    const std::size_t pieces = most == 0 ? 1 : (n + most - 1) / most;
    for (std::size_t k = 0; k < pieces; ++k) {
      items.emplace_back(i + n * k / pieces, i + n * (k + 1) / pieces);
    }
    i = j;
  }
  return items;
}

// What a shape allows under the constraints: its least cost and the most
// bandwidth each dimension can get (an LP each; unbounded: 1e30).
struct ShapeBounds {
  double minCost = 0;
  std::vector<double> ceiling;
  double totalCeiling = std::numeric_limits<double>::infinity();  // of all dimensions together
};

// nullopt, with the reason and a message, for a shape that cannot be built or
// priced, or whose constraints do not apply or cannot hold.
std::optional<ShapeBounds> boundsOf(const Network& network, std::int64_t npus,
                                    const CodesignOptions& o,
                                    const std::vector<std::string>& constraints,
                                    std::string& reason, std::string& message) {
  Problem priced;
  priced.dimNames = network.names();
  try {
    priced.costPerBandwidth = costPerBandwidth(network, o.shapes.costModel);
  } catch (const InputError& e) {
    reason = "a Switch on a cost level without Switch/Nic prices";
    message = e.what();
    return std::nullopt;
  }
  const std::vector<std::string> beyond = limitViolations(network, o.shapes.limits);
  if (!beyond.empty()) {
    reason = "beyond a building block's limits (FullyConnected ports, Switch radix)";
    message = beyond.front();
    return std::nullopt;
  }
  priced.fixedCostUsd = o.shapes.costScope == CostScope::System
                            ? static_cast<double>(npus) * npuPriceOf(o.shapes)
                            : 0.0;
  try {
    for (const std::string& text : constraints) priced.constraints.push_back(priced.compile(text));
  } catch (const ConstraintError& e) {
    reason = "a constraint does not apply to the shape";
    message = e.what();
    return std::nullopt;
  }
  const detail::CostRange range = detail::costRange(priced);
  if (range.status != SolveStatus::Optimal) {
    reason = "the constraints cannot all hold on the shape";
    message = range.message;
    return std::nullopt;
  }
  ShapeBounds out;
  out.minCost = range.min;
  for (int d = 0; d < priced.dims(); ++d) {
    Problem one = priced;
    one.fixedCostUsd = 0;
    one.costPerBandwidth.assign(static_cast<std::size_t>(priced.dims()), 0.0);
    one.costPerBandwidth[static_cast<std::size_t>(d)] = 1.0;
    const detail::CostRange most = detail::costRange(one);
    out.ceiling.push_back(std::isfinite(most.max) ? most.max : 1e30);
  }
  Problem all = priced;
  all.fixedCostUsd = 0;
  all.costPerBandwidth.assign(static_cast<std::size_t>(priced.dims()), 1.0);
  const detail::CostRange most = detail::costRange(all);
  if (most.status == SolveStatus::Optimal && std::isfinite(most.max)) out.totalCeiling = most.max;
  return out;
}

// Throughput: the facts of an NPU count (tokens, model FLOPs, token budget)
// are the same for every execution at the fixed global batch.
class FactsByNpus {
 public:
  const TrainingFacts& of(const CodesignOptions& o, std::int64_t npus, const Execution& e) {
    auto it = facts_.find(npus);
    if (it != facts_.end()) return it->second;
    SweepOptions s = o.shapes;
    s.npus = npus;
    s.parallelism = e.parallelism;
    s.parallelism.clearGroups();
    s.generator = generatorOf(e, o.shapes.generator);
    s.ignoreMemory = true;
    TrainingFacts f;
    try {
      f = sweepTrainingFacts(s);
    } catch (const InputError& err) {
      f.note = err.what();
    }
    return facts_.emplace(npus, std::move(f)).first->second;
  }

 private:
  std::map<std::int64_t, TrainingFacts> facts_;
};

// Fills out.designs and out.pareto from what the collector kept.
// `front`: the front's members listed (see CodesignWork::finish).
void listDesigns(CodesignResult& out, std::vector<Ranked> front, const std::vector<Ranked>& best,
                 const CodesignOptions& o) {
  // The front, cheapest first, and the best designs: one list, best first, with
  // the front's members in it; equivalent shapes merged.
  std::vector<Ranked> all = best;
  for (Ranked& f : front) {
    const bool listed = std::any_of(all.begin(), all.end(), [&](const Ranked& r) {
      return r.shape == f.shape && r.order == f.order;
    });
    if (!listed) all.push_back(std::move(f));
  }
  std::sort(all.begin(), all.end(),
            [&](const Ranked& a, const Ranked& b) { return before(a, b, o.objective); });
  std::vector<Ranked> merged;
  for (Ranked& r : all) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const Ranked& m) {
      const CodesignDesign& a = m.design;
      const CodesignDesign& b = r.design;
      return a.npus == b.npus && a.execution == b.execution &&
             a.network.dims.size() == b.network.dims.size() &&
             std::equal(a.network.dims.begin(), a.network.dims.end(), b.network.dims.begin(),
                        [](const Dimension& x, const Dimension& y) { return x.npus == y.npus; }) &&
             sameValue(a.solution.eval.iterationNs, b.solution.eval.iterationNs) &&
             sameValue(a.costUsd, b.costUsd);
    });
    if (same != merged.end()) {
      same->design.equivalentShapes.push_back(r.design.label);
    } else {
      merged.push_back(std::move(r));
    }
  }
  // Listed: the top designs and every member of the front.
  std::vector<Ranked> listed;
  for (std::size_t k = 0; k < merged.size(); ++k) {
    const bool onFront = std::any_of(front.begin(), front.end(), [&](const Ranked& f) {
      return sameValue(f.design.solution.eval.iterationNs,
                       merged[k].design.solution.eval.iterationNs) &&
             sameValue(f.design.costUsd, merged[k].design.costUsd);
    });
    if (static_cast<int>(k) < o.top || onFront) listed.push_back(std::move(merged[k]));
  }

  FactsByNpus facts;
  for (Ranked& r : listed) {
    CodesignDesign& d = r.design;
    d.throughput = throughputAt(facts.of(o, d.npus, d.execution), d.solution.eval.iterationNs);
    out.designs.push_back(std::move(d));
  }
  for (CodesignPoint& p : out.points) {
    const Throughput t = throughputAt(facts.of(o, p.npus, p.execution), p.iterationNs);
    p.timeToTrainS = t.timeToTrainS ? *t.timeToTrainS : std::nan("");
  }
  // The front's indices, cheapest first.
  for (std::size_t k = 0; k < out.designs.size(); ++k) {
    const CodesignDesign& d = out.designs[k];
    const bool dominatedByOther =
        std::any_of(out.designs.begin(), out.designs.end(), [&](const CodesignDesign& e) {
          const double te = e.solution.eval.iterationNs, td = d.solution.eval.iterationNs;
          return te <= td && e.costUsd <= d.costUsd && (te < td || e.costUsd < d.costUsd);
        });
    if (!dominatedByOther) out.pareto.push_back(static_cast<int>(k));
  }
  std::sort(out.pareto.begin(), out.pareto.end(),
            [&](int a, int b) { return out.designs[a].costUsd < out.designs[b].costUsd; });
}

}  // namespace

CodesignOptions codesignOptionsOf(const Project& project) {
  if (project.workloads.empty()) throw InputError("codesign: the project has no workload");
  const std::optional<PresetChoice> choice = presetChoiceOf(project.workloads.front());
  if (!choice) {
    throw InputError("codesign: workload '" + project.workloads.front().name +
                     "' was not generated from a model, so there are no executions to search; "
                     "choose a model in the Workload panel (libra new --preset)");
  }
  CodesignOptions o;
  SweepOptions& s = o.shapes;
  s.preset = modelOf(*choice);
  s.device = findDevice(choice->device);
  s.generator = choice->generator;
  s.costModel = project.costModel;
  s.costScope = project.costScope;
  s.npuPriceUsd = project.npuPriceUsd;
  s.loop = project.model.trainingLoop;
  s.collectives.chunks = project.model.collectives.chunks;
  s.limits = project.limits;
  for (const std::string& c : project.constraints) {
    if (c.rfind("total", 0) == 0) s.constraints = {c};
  }
  s.minDims = 2;
  s.maxDims = std::max(2, std::min(project.network.size(), static_cast<int>(s.costLevels.size())));
  o.npus = {project.network.npuCount()};
  o.choices.base = choice->parallelism;
  o.choices.base.clearGroups();
  o.objective = project.objective;
  return o;
}

Project designProject(const CodesignOptions& o, const Network& network,
                      const Execution& execution) {
  ProjectOptions po;
  po.trainingLoop = o.shapes.loop;
  po.collectives = o.shapes.collectives;
  po.costModel = o.shapes.costModel;
  po.constraints = o.shapes.constraints.empty() ? std::vector<std::string>{"total == 500"}
                                                : o.shapes.constraints;
  po.objective = o.objective;
  po.generator = generatorOf(execution, o.shapes.generator);
  Project p = makeProject(o.shapes.preset, execution.parallelism, o.shapes.device, network, po);
  p.costScope = o.shapes.costScope;
  p.npuPriceUsd = o.shapes.npuPriceUsd;
  return p;
}

struct CodesignWork::State {
  State(const CodesignOptions& options, const std::atomic<bool>* c)
      : o(options),
        cancel(c),
        constraints(constraintsOf(options.shapes)),
        base(searchOptionsOf(options, constraints, c)),
        keep(static_cast<std::size_t>(std::max(options.top, 1)) * 4),  // room for equivalents
        collector(options.objective, keep) {}

  CodesignOptions o;
  const std::atomic<bool>* cancel;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::vector<std::string> constraints;
  ExecutionSearchOptions base;
  std::size_t keep;
  std::vector<PreparedExecutions> prepared;
  std::vector<Shape> shapes;
  std::vector<std::pair<std::size_t, std::size_t>> items;  // the units
  CodesignResult out;                                      // the counts of the preparation
  Collector collector;
  std::mutex mutex;                                  // merged and running
  std::map<std::size_t, CodesignUnitResult> merged;  // the units' counts, candidates moved out
  // The keys of the best designs of each unit running here, not merged yet.
  std::map<std::size_t, std::vector<double>> running;

  // Publishes `mine`, the best keys of running unit `unit`, and returns those
  // of the others: merged, running here, and `outside` (from elsewhere). Each
  // design counts once: a unit's keys leave `running` before it is merged.
  std::vector<double> othersOf(std::size_t unit, std::vector<double> mine,
                               const std::vector<double>& outside) {
    const std::lock_guard lock(mutex);
    running[unit] = std::move(mine);
    std::vector<double> keys = outside;
    const std::vector<double> done = collector.bestKeys();
    keys.insert(keys.end(), done.begin(), done.end());
    for (const auto& [other, its] : running) {
      if (other != unit) keys.insert(keys.end(), its.begin(), its.end());
    }
    std::sort(keys.begin(), keys.end());
    if (keys.size() > keep) keys.resize(keep);
    return keys;
  }
  void leave(std::size_t unit) {
    const std::lock_guard lock(mutex);
    running.erase(unit);
  }
};

CodesignWork::CodesignWork(const CodesignOptions& o, const std::atomic<bool>* cancel,
                           std::size_t minUnits) {
  if (o.npus.empty()) throw InputError("codesign: no NPU count is given");
  if (o.top < 1) throw InputError("codesign: the number of designs listed must be at least 1");
  state_ = std::make_unique<State>(o, cancel);
  State& st = *state_;
  CodesignResult& out = st.out;
  // What every shape of one NPU count shares: its executions, memory checked
  // and bounded.
  for (const std::int64_t n : o.npus) {
    SweepOptions s = o.shapes;
    s.npus = n;
    s.parallelism = Parallelism{};
    const std::vector<Network> networks = enumerateShapes(s);
    st.prepared.push_back(prepareExecutions(o.shapes.preset, n, st.base));
    const PreparedExecutions& p = st.prepared.back();
    out.overMemory += p.overMemory;
    out.failed += p.failed;
    if (out.firstFailure.empty()) out.firstFailure = p.firstFailure;
    if (p.leastMemory &&
        (!out.leastMemory || p.leastMemory->use->total() < out.leastMemory->use->total())) {
      out.leastMemory = p.leastMemory;
    }
    for (const Network& net : networks) st.shapes.push_back({n, st.prepared.size() - 1, net});
  }
  out.shapes = static_cast<std::int64_t>(st.shapes.size());
  st.items = factorizationItems(st.shapes, 0);
  if (st.items.size() < minUnits) {
    st.items = factorizationItems(st.shapes, std::max<std::size_t>(st.shapes.size() / minUnits, 1));
  }
}

CodesignWork::~CodesignWork() = default;

std::size_t CodesignWork::units() const {
  return state_->items.size();
}

std::int64_t CodesignWork::shapes() const {
  return state_->out.shapes;
}

std::vector<double> CodesignWork::bestKeys() const {
  return state_->collector.bestKeys();
}

namespace {

// A solved design as a point (its shape's index; merge adds the network).
CodesignPoint pointOf(std::size_t shape, const ExecutionDesign& d, double networkUsd, double cost) {
  CodesignPoint p;
  p.shape = shape;
  p.execution = d.execution;
  p.bandwidth = d.solution.bandwidth;
  p.iterationNs = d.solution.eval.iterationNs;
  p.costUsd = cost;
  p.networkCostUsd = networkUsd;
  return p;
}

// A design's network, system and ranked cost (the scope's).
struct DesignCosts {
  double networkUsd, systemUsd, costUsd;
};

// A solved design as a candidate of the ranking (`order`: found so many-th).
Ranked rankedOf(std::size_t shape, std::int64_t order, std::int64_t npus, const ExecutionDesign& d,
                const DesignCosts& costs) {
  Ranked r;
  r.shape = shape;
  r.order = order;
  CodesignDesign& c = r.design;
  c.npus = npus;
  c.execution = d.execution;
  c.solution = d.solution;
  c.solution.solvedModel.reset();
  c.memory = d.memory;
  c.networkCostUsd = costs.networkUsd;
  c.systemCostUsd = costs.systemUsd;
  c.costUsd = costs.costUsd;
  return r;
}

// One shape's search in the unit's counts (its failures beyond the prepared
// executions' own, which the preparation counted).
void count(CodesignUnitResult& res, const ExecutionSearch& found, const PreparedExecutions& p) {
  ++res.shapesSearched;
  res.evaluated += found.evaluated;
  res.pruned += found.pruned;
  res.failed += found.failed - p.failed;
  if (res.firstFailure.empty()) res.firstFailure = found.firstFailure;
}

}  // namespace

CodesignUnitResult CodesignWork::run(std::size_t unit,
                                     const std::function<std::vector<double>()>& outside,
                                     std::atomic<std::int64_t>* shapesDone) {
  State& st = *state_;
  const CodesignOptions& o = st.o;
  if (unit >= st.items.size()) throw InputError("codesign: no work unit " + std::to_string(unit));
  CodesignUnitResult res;
  res.unit = unit;
  Collector collector(o.objective, st.keep);
  const auto skip = [&](const std::string& reason, const std::string& example) {
    ++res.skipReasons[reason];
    res.skipExample.emplace(reason, example);
  };
  const auto shapeDone = [&] {
    if (shapesDone) ++*shapesDone;
  };
  TallyCache tallies;  // the shapes of one factorization share their tallies
  for (std::size_t i = st.items[unit].first; i < st.items[unit].second; ++i) {
    if (st.cancel && st.cancel->load()) {
      res.cancelled = true;
      break;
    }
    const Shape& shape = st.shapes[i];
    const Network& network = shape.network;
    std::string reason, message;
    const std::optional<ShapeBounds> bounds =
        boundsOf(network, shape.npus, o, st.constraints, reason, message);
    if (!bounds) {
      skip(reason, message);
      shapeDone();
      continue;
    }
    const double npuPrice = npuPriceOf(o.shapes);
    ExecutionSearchOptions so = st.base;
    so.tallies = &tallies;
    so.bandwidthCeiling = bounds->ceiling;
    so.bandwidthTotalCeiling = bounds->totalCeiling;
    // The best keys of elsewhere (once per shape), and of the other units of
    // this process (again after each design: a solve costs far more).
    const std::vector<double> remote = outside ? outside() : std::vector<double>{};
    const auto share = [&] {
      collector.setOutside(st.othersOf(unit, collector.bestKeys(), remote));
    };
    share();
    so.dominated = [&, minCost = bounds->minCost](double bound) {
      return collector.dominated(bound, minCost);
    };
    std::int64_t order = 0;
    so.found = [&](const ExecutionDesign& d) {
      const double networkUsd = d.solution.eval.networkCostUsd;
      const double systemUsd = networkUsd + static_cast<double>(shape.npus) * npuPrice;
      const double cost = o.shapes.costScope == CostScope::System ? systemUsd : networkUsd;
      ++order;
      share();
      if (o.keepPoints > 0) res.points.push_back(pointOf(i, d, networkUsd, cost));
      if (!collector.wanted(d.solution.eval.iterationNs, cost)) return;
      collector.add(rankedOf(i, order, shape.npus, d, {networkUsd, systemUsd, cost}));
    };
    ExecutionSearch found;
    try {
      found = searchPrepared(o.shapes.preset, network, st.prepared[shape.prepared], so);
    } catch (const InputError& e) {
      skip("the workload or project is invalid for the shape", e.what());
      shapeDone();
      continue;
    }
    count(res, found, st.prepared[shape.prepared]);
    if (found.cancelled) {
      res.cancelled = true;
      break;
    }
    shapeDone();
  }
  st.leave(unit);
  res.candidates = collector.kept(o.prune);
  return res;
}

void CodesignWork::merge(CodesignUnitResult result) {
  State& st = *state_;
  for (Ranked& r : result.candidates) {
    if (r.shape >= st.shapes.size()) {
      throw InputError("codesign: a design of shape " + std::to_string(r.shape) + " of a run of " +
                       std::to_string(st.shapes.size()));
    }
    const Shape& shape = st.shapes[r.shape];
    r.design.npus = shape.npus;
    r.design.network = shape.network;
    r.design.label = shapeLabel(shape.network);
    st.collector.add(std::move(r));
  }
  result.candidates.clear();
  const std::lock_guard lock(st.mutex);
  for (CodesignPoint& p : result.points) {
    if (st.out.points.size() >= st.o.keepPoints) {
      ++st.out.pointsLeftOut;
      continue;
    }
    const Shape& shape = st.shapes[p.shape];
    p.npus = shape.npus;
    p.network = shape.network;
    p.label = shapeLabel(shape.network);
    st.out.points.push_back(std::move(p));
  }
  result.points.clear();
  st.merged[result.unit] = std::move(result);
}

CodesignResult CodesignWork::finish(bool cancelled) {
  State& st = *state_;
  CodesignResult out = st.out;
  {
    // The counts in the order of the units, whatever order they came in.
    const std::lock_guard lock(st.mutex);
    for (const auto& [unit, r] : st.merged) {
      out.shapesSearched += r.shapesSearched;
      out.evaluated += r.evaluated;
      out.pruned += r.pruned;
      out.failed += r.failed;
      if (out.firstFailure.empty()) out.firstFailure = r.firstFailure;
      for (const auto& [reason, count] : r.skipReasons) out.skipReasons[reason] += count;
      for (const auto& [reason, example] : r.skipExample) out.skipExample.emplace(reason, example);
      cancelled = cancelled || r.cancelled;
    }
  }
  out.cancelled = cancelled;
  // The front is exact where a design's key is at most the last of the best
  // kept: no design there is ever pruned. Beyond, what was found depends on
  // the order the units ran in, so it is not listed (--exhaustive lists all).
  std::vector<Ranked> front = st.collector.front();
  const std::vector<Ranked> best = st.collector.best();
  if (st.o.prune && best.size() >= st.keep) {
    const double last = keyOf(best.back().design, st.o.objective);
    std::erase_if(front, [&](const Ranked& f) { return keyOf(f.design, st.o.objective) > last; });
  }
  listDesigns(out, std::move(front), best, st.o);
  out.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count();
  return out;
}

CodesignResult runCodesign(const CodesignOptions& o,
                           const std::function<void(std::int64_t, std::int64_t)>& progress,
                           const std::atomic<bool>* cancel) {
  CodesignWork work(o, cancel);
  std::atomic<std::size_t> next{0};
  std::atomic<std::int64_t> done{0};
  auto run = [&] {
    for (std::size_t unit = next++; unit < work.units(); unit = next++) {
      if (cancel && cancel->load()) return;
      // The others' best keys come from `work` itself (merged and running).
      CodesignUnitResult r = work.run(unit, {}, &done);
      const bool stopped = r.cancelled;
      work.merge(std::move(r));
      if (stopped) return;
    }
  };

  unsigned jobs = o.shapes.jobs > 0 ? static_cast<unsigned>(o.shapes.jobs)
                                    : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(work.units(), 1)));
  {
    std::atomic<unsigned> finished{0};
    const auto worker = [&] {
      run();
      ++finished;
    };
    std::vector<std::jthread> workers;
    const unsigned spawned = progress ? jobs : jobs - 1;
    for (unsigned j = 0; j < spawned; ++j) workers.emplace_back(worker);
    if (progress) {
      // The calling thread reports, about ten times a second.
      while (finished.load() < spawned) {
        progress(done.load(), work.shapes());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    } else {
      run();
    }
  }
  if (progress) progress(done.load(), work.shapes());
  return work.finish(cancel && cancel->load());
}

}  // namespace libra
