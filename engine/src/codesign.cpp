#include "libra/codesign.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>
#include <utility>

#include "libra/constraints.hpp"
#include "libra/cost.hpp"
#include "libra/error.hpp"
#include "libra/network.hpp"
#include "libra/project.hpp"
#include "solver/standard_form.hpp"

namespace libra {

double CodesignDesign::timeToTrainS() const {
  return throughput.timeToTrainS ? *throughput.timeToTrainS
                                 : std::numeric_limits<double>::quiet_NaN();
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
// on the thread that found a design first.
struct Ranked {
  CodesignDesign design;
  std::size_t shape = 0;  // index of the shape in the enumeration
  std::int64_t order = 0;
};

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

// The shared state of the workers: the front of (time, cost) found so far, the
// best designs by the objective, and the counts.
class Collector {
 public:
  Collector(Objective objective, std::size_t keep) : objective_(objective), keep_(keep) {}

  // Whether no design whose time is at least `boundNs` on a shape whose least
  // cost is `minCost` can be among the best `keep` by the objective: the `keep`
  // best found are all better than its least key. (A design that a design found
  // dominates may still be among the best: it is not skipped for that.)
  bool dominated(double boundNs, double minCost) const {
    const std::lock_guard lock(mutex_);
    if (best_.size() < keep_) return false;
    const double least = objective_ == Objective::Performance ? boundNs : boundNs * minCost;
    return least >= keyOf(best_.back().design, objective_);
  }

  // Whether a design of this time and cost would enter the front or the list.
  bool wanted(double timeNs, double cost) const {
    const std::lock_guard lock(mutex_);
    if (!dominatedLocked(timeNs, cost)) return true;
    if (best_.size() < keep_) return true;
    const double key = objective_ == Objective::Performance ? timeNs : timeNs * cost;
    return key <= keyOf(best_.back().design, objective_);
  }

  void add(Ranked r) {
    const std::lock_guard lock(mutex_);
    const double t = r.design.solution.eval.iterationNs, c = r.design.costUsd;
    if (!dominatedLocked(t, c)) {
      std::erase_if(front_, [&](const Ranked& f) {
        return t <= f.design.solution.eval.iterationNs && c <= f.design.costUsd &&
               (t < f.design.solution.eval.iterationNs || c < f.design.costUsd);
      });
      front_.push_back(r);
    }
    const auto at =
        std::upper_bound(best_.begin(), best_.end(), r,
                         [&](const auto& a, const auto& b) { return before(a, b, objective_); });
    best_.insert(at, std::move(r));
    if (best_.size() > keep_) best_.pop_back();
  }

  std::vector<Ranked> front() const { return front_; }
  std::vector<Ranked> best() const { return best_; }

 private:
  // Strictly dominated, or equal to a point of the front (kept once).
  bool dominatedLocked(double t, double c) const {
    for (const Ranked& f : front_) {
      const double ft = f.design.solution.eval.iterationNs, fc = f.design.costUsd;
      if (ft <= t && fc <= c) return true;
    }
    return false;
  }

  Objective objective_;
  std::size_t keep_;
  mutable std::mutex mutex_;
  std::vector<Ranked> front_;
  std::vector<Ranked> best_;
};

struct Shape {
  std::int64_t npus = 0;
  std::size_t prepared = 0;  // index into the prepared executions
  Network network;
};

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
    const std::vector<Shape>& shapes) {
  std::vector<std::pair<std::size_t, std::size_t>> items;
  for (std::size_t i = 0; i < shapes.size();) {
    std::size_t j = i + 1;
    const auto sizes = [&](std::size_t k) {
      std::vector<int> n;
      for (const Dimension& d : shapes[k].network.dims) n.push_back(d.npus);
      return std::make_pair(shapes[k].npus, n);
    };
    while (j < shapes.size() && sizes(j) == sizes(i)) ++j;
    items.emplace_back(i, j);
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
void listDesigns(CodesignResult& out, const Collector& collector, const CodesignOptions& o) {
  // The front, cheapest first, and the best designs: one list, best first, with
  // the front's members in it; equivalent shapes merged.
  std::vector<Ranked> front = collector.front();
  std::vector<Ranked> best = collector.best();
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

CodesignResult runCodesign(const CodesignOptions& o,
                           const std::function<void(std::int64_t, std::int64_t)>& progress,
                           const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  if (o.npus.empty()) throw InputError("codesign: no NPU count is given");
  if (o.top < 1) throw InputError("codesign: the number of designs listed must be at least 1");
  CodesignResult out;
  const std::vector<std::string> constraints = constraintsOf(o.shapes);

  // What every shape of one NPU count shares: its executions, memory checked
  // and bounded.
  const ExecutionSearchOptions base = searchOptionsOf(o, constraints, cancel);
  std::vector<PreparedExecutions> prepared;
  std::vector<Shape> shapes;
  for (const std::int64_t n : o.npus) {
    SweepOptions s = o.shapes;
    s.npus = n;
    s.parallelism = Parallelism{};
    const std::vector<Network> networks = enumerateShapes(s);
    prepared.push_back(prepareExecutions(o.shapes.preset, n, base));
    const PreparedExecutions& p = prepared.back();
    out.overMemory += p.overMemory;
    out.failed += p.failed;
    if (out.firstFailure.empty()) out.firstFailure = p.firstFailure;
    if (p.leastMemory &&
        (!out.leastMemory || p.leastMemory->use->total() < out.leastMemory->use->total())) {
      out.leastMemory = p.leastMemory;
    }
    for (const Network& net : networks) shapes.push_back({n, prepared.size() - 1, net});
  }
  out.shapes = static_cast<std::int64_t>(shapes.size());

  const auto keep = static_cast<std::size_t>(std::max(o.top, 1)) * 4;  // room for equivalents
  Collector collector(o.objective, keep);
  std::mutex mutex;  // the counts of `out`
  std::atomic<std::size_t> next{0};
  std::atomic<std::int64_t> done{0};
  auto skip = [&](const std::string& reason, const std::string& example) {
    const std::lock_guard lock(mutex);
    ++out.skipReasons[reason];
    out.skipExample.emplace(reason, example);
  };
  auto keepPoint = [&](const Shape& shape, const ExecutionDesign& d, double networkUsd,
                       double cost) {
    const std::lock_guard lock(mutex);
    if (out.points.size() >= o.keepPoints) {
      ++out.pointsLeftOut;
      return;
    }
    CodesignPoint p;
    p.npus = shape.npus;
    p.network = shape.network;
    p.label = shapeLabel(shape.network);
    p.execution = d.execution;
    p.bandwidth = d.solution.bandwidth;
    p.iterationNs = d.solution.eval.iterationNs;
    p.costUsd = cost;
    p.networkCostUsd = networkUsd;
    out.points.push_back(std::move(p));
  };
  // Work items: the shapes of one factorization, which share their tallies.
  const std::vector<std::pair<std::size_t, std::size_t>> items = factorizationItems(shapes);
  auto work = [&] {
    TallyCache tallies;
    for (std::size_t item = next++; item < items.size(); item = next++) {
      tallies.tallies.clear();
      for (std::size_t i = items[item].first; i < items[item].second; ++i) {
        if (cancel && cancel->load()) return;
        const Shape& shape = shapes[i];
        const Network& network = shape.network;
        std::string reason, message;
        const std::optional<ShapeBounds> bounds =
            boundsOf(network, shape.npus, o, constraints, reason, message);
        if (!bounds) {
          skip(reason, message);
          ++done;
          continue;
        }
        const double npuPrice = npuPriceOf(o.shapes);
        ExecutionSearchOptions so = base;
        so.project.constraints = constraints;
        so.tallies = &tallies;
        so.bandwidthCeiling = bounds->ceiling;
        so.bandwidthTotalCeiling = bounds->totalCeiling;
        so.dominated = [&, minCost = bounds->minCost](double bound) {
          return collector.dominated(bound, minCost);
        };
        std::int64_t order = 0;
        so.found = [&](const ExecutionDesign& d) {
          const double networkUsd = d.solution.eval.networkCostUsd;
          const double systemUsd = networkUsd + static_cast<double>(shape.npus) * npuPrice;
          const double cost = o.shapes.costScope == CostScope::System ? systemUsd : networkUsd;
          ++order;
          if (o.keepPoints > 0) keepPoint(shape, d, networkUsd, cost);
          if (!collector.wanted(d.solution.eval.iterationNs, cost)) return;
          Ranked r;
          r.shape = i;
          r.order = order;
          CodesignDesign& c = r.design;
          c.npus = shape.npus;
          c.network = network;
          c.label = shapeLabel(network);
          c.execution = d.execution;
          c.solution = d.solution;
          c.solution.solvedModel.reset();
          c.memory = d.memory;
          c.networkCostUsd = networkUsd;
          c.systemCostUsd = systemUsd;
          c.costUsd = cost;
          collector.add(std::move(r));
        };
        ExecutionSearch found;
        try {
          found = searchPrepared(o.shapes.preset, network, prepared[shape.prepared], so);
        } catch (const InputError& e) {
          skip("the workload or project is invalid for the shape", e.what());
          ++done;
          continue;
        }
        {
          const std::lock_guard lock(mutex);
          ++out.shapesSearched;
          out.evaluated += found.evaluated;
          out.pruned += found.pruned;
          out.failed += found.failed - prepared[shape.prepared].failed;
          if (out.firstFailure.empty()) out.firstFailure = found.firstFailure;
        }
        if (found.cancelled) return;
        ++done;
      }
    }
  };

  unsigned jobs = o.shapes.jobs > 0 ? static_cast<unsigned>(o.shapes.jobs)
                                    : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(items.size(), 1)));
  {
    std::atomic<unsigned> finished{0};
    const auto worker = [&] {
      work();
      ++finished;
    };
    std::vector<std::jthread> workers;
    const unsigned spawned = progress ? jobs : jobs - 1;
    for (unsigned j = 0; j < spawned; ++j) workers.emplace_back(worker);
    if (progress) {
      // The calling thread reports, about ten times a second.
      while (finished.load() < spawned) {
        progress(done.load(), out.shapes);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    } else {
      work();
    }
  }
  if (progress) progress(done.load(), out.shapes);
  out.cancelled = cancel && cancel->load();

  listDesigns(out, collector, o);
  out.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace libra
