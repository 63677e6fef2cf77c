#include "libra/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "libra/constraints.hpp"
#include "libra/error.hpp"
#include "libra/project.hpp"

namespace libra {

namespace {

void factorize(std::int64_t n, int dims, std::vector<int>& prefix,
               std::vector<std::vector<int>>& out) {
  if (dims == 1) {
    if (n >= 2) {
      prefix.push_back(static_cast<int>(n));
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  // Each of the remaining dims - 1 factors needs at least 2.
  for (std::int64_t f = 2; f * (std::int64_t{1} << (dims - 1)) <= n; ++f) {
    if (n % f != 0) continue;
    prefix.push_back(static_cast<int>(f));
    factorize(n / f, dims - 1, prefix, out);
    prefix.pop_back();
  }
}

std::vector<std::string> shapeLevels(const SweepOptions& o, int dims) {
  return {o.costLevels.end() - dims, o.costLevels.end()};
}

Network makeShape(const SweepOptions& o, const std::vector<int>& factors,
                  const std::vector<BuildingBlock>& blocks) {
  const int dims = static_cast<int>(factors.size());
  const std::vector<std::string> levels = shapeLevels(o, dims);
  Network n;
  for (int d = 0; d < dims; ++d) {
    Dimension dim;
    dim.name = dimensionNameFromLevel(levels[d]);
    dim.block = blocks[d];
    dim.npus = factors[d];
    dim.costLevel = levels[d];
    dim.latencyNs = o.latencyNs ? *o.latencyNs : defaultLinkLatencyNs(dim.block);
    n.dims.push_back(std::move(dim));
  }
  n.endpointDelayNs = o.endpointDelayNs ? *o.endpointDelayNs : defaultEndpointDelayNs();
  makeNamesUnique(n);
  return n;
}

void validateOptions(const SweepOptions& o) {
  if (o.npus < 2 || o.npus > (std::int64_t{1} << 30)) {
    throw InputError("sweep: the NPU count " + std::to_string(o.npus) +
                     " must be between 2 and 2^30");
  }
  if (o.minDims < 1 || o.maxDims < o.minDims) {
    throw InputError("sweep: the dimension range " + std::to_string(o.minDims) + ".." +
                     std::to_string(o.maxDims) + " is invalid; it needs 1 <= MIN <= MAX");
  }
  if (o.maxDims > static_cast<int>(o.costLevels.size())) {
    throw InputError("sweep: " + std::to_string(o.maxDims) +
                     " dimensions need as many cost "
                     "levels, but only " +
                     std::to_string(o.costLevels.size()) + " are given");
  }
  if (o.blocks.empty()) throw InputError("sweep: the list of building blocks is empty");
  if (o.jobs < 0) throw InputError("sweep: the job count must be >= 0");
  if (o.parallelism.manual()) {
    throw InputError(
        "sweep: hand-given parallelism groups cannot apply to every shape; give the "
        "degrees only");
  }
}

std::vector<std::string> effectiveConstraints(const SweepOptions& o) {
  return o.constraints.empty() ? std::vector<std::string>{"total == 500"} : o.constraints;
}

TrainingLoop effectiveLoop(const SweepOptions& o, Parallelism& p) {
  if (o.loop == TrainingLoop::Recompute) {
    p.recompute = true;
    return TrainingLoop::NoOverlap;
  }
  return o.loop;
}

// The shape-independent project: the workload on a one-dimensional network.
Project lineProject(const SweepOptions& o) {
  Project project;
  project.network = makeShape(o, {static_cast<int>(o.npus)}, {BuildingBlock::Ring});
  Parallelism p = o.parallelism;
  (void)effectiveLoop(o, p);
  project.workloads.push_back(
      generateWorkload(o.preset, p, o.device, project.network, o.generator));
  return project;
}

// Fails early on what would make every shape fail: the preset cannot use the
// parallelism at all, or a constraint does not parse.
void checkShapeIndependent(const SweepOptions& o) {
  (void)lineProject(o);
  Network widest = makeShape(o, std::vector<int>(o.maxDims, 2),
                             std::vector<BuildingBlock>(o.maxDims, BuildingBlock::Ring));
  const std::vector<std::string> names = widest.names();
  const std::vector<double> unitCost(names.size(), 1.0);
  for (const std::string& text : effectiveConstraints(o)) {
    try {
      (void)parseConstraint(text, names, unitCost);
    } catch (const ConstraintError& e) {
      // A dimension index or name that only wider shapes have is fine; syntax is not.
      if (e.problem().rfind("no dimension", 0) != 0) throw;
    }
  }
}

struct Outcome {
  std::optional<SweepShape> shape;
  std::string reason;
  std::string message;
  bool ran = false;
};

// The shapes of one factorization differ only in their building blocks, which
// change the cost, and the time model only through the link latencies (traffic
// depends on the group sizes only). So the workload is generated once per
// factorization and the problem compiled once per latency vector (Ring and
// FullyConnected share theirs); each block combination only gets its own cost
// vector and constraints (a `cost` term depends on the prices).
struct Factorization {
  std::vector<std::size_t> shapes;  // indices into the enumeration
};

Outcome skipped(std::string reason, std::string message) {
  Outcome out;
  out.reason = std::move(reason);
  out.message = std::move(message);
  out.ran = true;
  return out;
}

// What the shapes of one factorization share: the workload (generated on the
// first priced shape), the problems compiled per latency vector, and a skip that
// applies to every shape (the parallelism does not map, the project is invalid).
struct FactorizationState {
  const SweepOptions& o;
  std::vector<std::string> constraints;
  Parallelism p;
  TrainingLoop loop;
  std::optional<Workload> workload;
  std::map<std::vector<double>, Problem> compiled;
  std::optional<Outcome> common;

  explicit FactorizationState(const SweepOptions& options)
      : o(options),
        constraints(effectiveConstraints(options)),
        p(options.parallelism),
        loop(effectiveLoop(options, p)) {}
};

// The shape's compiled problem without its prices and constraints, or nullptr
// with `out` set to the skip (shared by the factorization's later shapes).
const Problem* baseProblem(FactorizationState& s, const Network& network, Outcome& out) {
  std::vector<double> latencies;
  for (const Dimension& d : network.dims) latencies.push_back(d.latencyNs);
  try {
    if (!s.workload) {
      (void)mapParallelism(network, s.p);
      s.workload = generateWorkload(s.o.preset, s.p, s.o.device, network, s.o.generator);
    }
    auto it = s.compiled.find(latencies);
    if (it == s.compiled.end()) {
      Project project;
      project.network = network;
      project.costModel = s.o.costModel;
      project.costScope = s.o.costScope;
      project.npuPriceUsd = s.o.npuPriceUsd;
      project.model.trainingLoop = s.loop;
      project.model.collectives = s.o.collectives;
      project.workloads.push_back(*s.workload);
      // Validates; constraints are parsed per shape.
      it = s.compiled.emplace(latencies, buildProblem(project)).first;
    }
    return &it->second;
  } catch (const InputError& e) {
    const bool mapping = std::string(e.what()).rfind("parallelism:", 0) == 0;
    s.common = skipped(mapping ? "the parallelism cannot be mapped onto the dimensions"
                               : "the workload or project is invalid for the shape",
                       e.what());
    out = *s.common;
    return nullptr;
  }
}

// Both optima of one shape; false when cancelled (neither solved nor skipped).
bool solveShape(const Problem& problem, const Network& network, const TrainingFacts& facts,
                const std::atomic<bool>* cancel, Outcome& out) {
  SolveOptions solveOptions;
  solveOptions.backend = Backend::Native;  // IPOPT is not thread-safe
  solveOptions.cancel = cancel;
  SweepShape shape;
  shape.performance = solve(problem, Objective::Performance, solveOptions);
  shape.perfPerCost =
      shape.performance.ok() ? solve(problem, Objective::PerfPerCost, solveOptions) : Solution{};
  if (cancel && cancel->load(std::memory_order_relaxed)) return false;
  if (!shape.performance.ok()) {
    out = skipped("performance solve: " + std::string(toString(shape.performance.status)),
                  shape.performance.message);
    return true;
  }
  if (!shape.perfPerCost.ok()) {
    out = skipped("perf-per-cost solve: " + std::string(toString(shape.perfPerCost.status)),
                  shape.perfPerCost.message);
    return true;
  }
  shape.performanceThroughput = throughputAt(facts, shape.performance.eval.iterationNs);
  shape.perfPerCostThroughput = throughputAt(facts, shape.perfPerCost.eval.iterationNs);
  const std::vector<bool> used = problem.time.usedDims();
  for (int d = 0; d < problem.dims(); ++d) {
    if (!used[d]) shape.dimensionsWithoutTraffic.push_back(problem.dimNames[d]);
  }
  shape.network = network;
  shape.label = shapeLabel(network);
  // Every solved shape is kept for the ranking and the output, which never
  // read the model an "auto" solve settled on (sensitivity does, and a
  // sweep reports none): dropped, a shape keeps 1.9 instead of 6.3 kB.
  shape.performance.solvedModel.reset();
  shape.perfPerCost.solvedModel.reset();
  out.shape = std::move(shape);
  out.ran = true;
  return true;
}

// One shape: a skip for what rules it out, else its two solves. False when cancelled.
bool runShape(FactorizationState& s, const Network& network, const TrainingFacts& facts,
              const std::atomic<bool>* cancel, Outcome& out) {
  std::vector<double> costs;
  try {
    costs = costPerBandwidth(network, s.o.costModel);
  } catch (const InputError& e) {
    out = skipped("a Switch on a cost level without Switch/Nic prices", e.what());
    return true;
  }
  if (s.common) {
    out = *s.common;
    return true;
  }
  const std::vector<std::string> beyond = limitViolations(network, s.o.limits);
  if (!beyond.empty()) {
    out = skipped("beyond a building block's limits (FullyConnected ports, Switch radix)",
                  beyond.front());
    return true;
  }
  const Problem* base = baseProblem(s, network, out);
  if (!base) return true;
  Problem problem = *base;
  problem.costPerBandwidth = std::move(costs);
  try {
    for (const std::string& text : s.constraints) {
      problem.constraints.push_back(problem.compile(text));
    }
  } catch (const ConstraintError& e) {
    out = skipped("a constraint does not apply to the shape", e.what());
    return true;
  }
  return solveShape(problem, network, facts, cancel, out);
}

void runFactorization(const SweepOptions& o, const TrainingFacts& facts,
                      const std::vector<Network>& shapes, const Factorization& f,
                      std::vector<Outcome>& outcomes, std::atomic<int>& done,
                      const std::atomic<bool>* cancel) {
  FactorizationState state(o);
  for (std::size_t index : f.shapes) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return;
    if (!runShape(state, shapes[index], facts, cancel, outcomes[index])) return;
    done.fetch_add(1, std::memory_order_relaxed);
  }
}

// Shapes of one factorization are consecutive in the enumeration; the largest
// groups come first, so that the last items to start are short.
std::vector<Factorization> groupByFactorization(const std::vector<Network>& shapes) {
  std::vector<Factorization> work;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    bool same = !work.empty();
    if (same) {
      const Network& prev = shapes[work.back().shapes.front()];
      same = prev.size() == shapes[i].size();
      for (int d = 0; same && d < prev.size(); ++d)
        same = prev.dims[d].npus == shapes[i].dims[d].npus;
    }
    if (!same) work.emplace_back();
    work.back().shapes.push_back(i);
  }
  std::stable_sort(work.begin(), work.end(), [](const Factorization& a, const Factorization& b) {
    return a.shapes.size() > b.shapes.size();
  });
  return work;
}

// Runs the factorizations on `options.jobs` threads (0: one per core); returns
// how many shapes finished.
int runInParallel(const SweepOptions& options, const TrainingFacts& training,
                  const std::vector<Network>& shapes, const std::vector<Factorization>& work,
                  std::vector<Outcome>& outcomes,
                  const std::function<void(int done, int total)>& progress,
                  const std::atomic<bool>* cancel) {
  const int total = static_cast<int>(shapes.size());
  int jobs =
      options.jobs > 0 ? options.jobs : static_cast<int>(std::thread::hardware_concurrency());
  jobs = std::clamp(jobs, 1, std::max(1, static_cast<int>(work.size())));
  std::atomic<std::size_t> next{0};
  std::atomic<int> done{0};
  int running = jobs;  // guarded by mutex
  std::mutex mutex;
  std::condition_variable finished;
  auto stopped = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  auto worker = [&] {
    for (;;) {
      if (stopped()) break;
      const std::size_t i = next.fetch_add(1);
      if (i >= work.size()) break;
      runFactorization(options, training, shapes, work[i], outcomes, done, cancel);
    }
    {
      std::lock_guard lock(mutex);
      --running;
    }
    finished.notify_one();
  };
  std::vector<std::thread> threads;
  threads.reserve(jobs);
  for (int t = 0; t < jobs; ++t) threads.emplace_back(worker);
  {
    // Progress is polled every 100 ms on this thread, so the callback needs no
    // locking and is never called more often than that.
    int reported = -1;
    std::unique_lock lock(mutex);
    while (running > 0) {
      finished.wait_for(lock, std::chrono::milliseconds(100));
      if (running == 0) break;
      const int now = done.load();
      if (progress && now != reported && now < total && !stopped()) {
        reported = now;
        lock.unlock();
        progress(now, total);
        lock.lock();
      }
    }
  }
  for (std::thread& t : threads) t.join();
  return done.load();
}

// The solved shapes in enumeration order, and the skips counted by reason.
void collectOutcomes(std::vector<Outcome>& outcomes, SweepResult& result) {
  for (Outcome& o : outcomes) {
    if (!o.ran) continue;
    if (o.shape) {
      result.shapes.push_back(std::move(*o.shape));
    } else {
      ++result.skipped;
      if (result.skipReasons[o.reason]++ == 0) result.skipExample[o.reason] = o.message;
    }
  }
}

// Shapes that differ only in building blocks often tie on time, up to rounding
// (1e-13 apart): objectives are compared on a grid of 1e-9 relative steps (a
// strict weak order, unlike a tolerance test), and ties go to the cheaper shape.
void rankShapes(SweepResult& result) {
  const int solved = static_cast<int>(result.shapes.size());
  for (int i = 0; i < solved; ++i) {
    result.byTime.push_back(i);
    result.byTimeCost.push_back(i);
  }
  auto bucket = [](double v) {
    return v > 0 && std::isfinite(v) ? std::llround(std::log(v) * 1e9)
                                     : std::numeric_limits<long long>::max();
  };
  auto timeOf = [&](int i) { return result.shapes[i].performance.eval.iterationNs; };
  auto costOf = [&](int i) { return result.shapes[i].performance.eval.costUsd; };
  auto timeCostOf = [&](int i) {
    const Evaluation& e = result.shapes[i].perfPerCost.eval;
    return e.iterationNs * e.costUsd;
  };
  auto ppcCostOf = [&](int i) { return result.shapes[i].perfPerCost.eval.costUsd; };
  std::stable_sort(result.byTime.begin(), result.byTime.end(), [&](int a, int b) {
    return std::pair(bucket(timeOf(a)), costOf(a)) < std::pair(bucket(timeOf(b)), costOf(b));
  });
  std::stable_sort(result.byTimeCost.begin(), result.byTimeCost.end(), [&](int a, int b) {
    return std::pair(bucket(timeCostOf(a)), ppcCostOf(a)) <
           std::pair(bucket(timeCostOf(b)), ppcCostOf(b));
  });
}

}  // namespace

TrainingFacts sweepTrainingFacts(const SweepOptions& options) {
  validateOptions(options);
  return trainingFacts(lineProject(options));
}

std::vector<std::vector<int>> orderedFactorizations(std::int64_t n, int dims) {
  std::vector<std::vector<int>> out;
  if (dims < 1 || n < 2) return out;
  std::vector<int> prefix;
  factorize(n, dims, prefix, out);
  return out;
}

std::vector<Network> enumerateShapes(const SweepOptions& o) {
  validateOptions(o);
  std::vector<Network> shapes;
  const int choices = static_cast<int>(o.blocks.size());
  for (int dims = o.minDims; dims <= o.maxDims; ++dims) {
    for (const std::vector<int>& factors : orderedFactorizations(o.npus, dims)) {
      // Every combination of building blocks, the first dimension varying slowest.
      std::vector<int> pick(dims, 0);
      while (true) {
        std::vector<BuildingBlock> blocks(dims);
        for (int d = 0; d < dims; ++d) blocks[d] = o.blocks[pick[d]];
        shapes.push_back(makeShape(o, factors, blocks));
        int d = dims - 1;
        while (d >= 0 && ++pick[d] == choices) pick[d--] = 0;
        if (d < 0) break;
      }
    }
  }
  return shapes;
}

SweepResult runSweep(const SweepOptions& options,
                     const std::function<void(int done, int total)>& progress,
                     const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Network> shapes = enumerateShapes(options);
  checkShapeIndependent(options);
  const TrainingFacts training = sweepTrainingFacts(options);
  if (!options.ignoreMemory && !training.memory.fits()) {
    throw InputError("sweep: the parallelism does not fit the device's memory: " +
                     training.memory.describe() + " (the same on every shape)");
  }
  const int total = static_cast<int>(shapes.size());
  std::vector<Outcome> outcomes(shapes.size());
  const int done = runInParallel(options, training, shapes, groupByFactorization(shapes), outcomes,
                                 progress, cancel);
  SweepResult result;
  result.training = training;
  result.enumerated = total;
  result.cancelled = done < total;
  collectOutcomes(outcomes, result);
  rankShapes(result);
  if (progress && !result.cancelled) progress(total, total);
  result.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace libra
