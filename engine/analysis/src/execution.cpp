#include "libra/execution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_map>

#include "libra/error.hpp"

namespace libra {

std::string_view toString(Recomputation r) {
  switch (r) {
    case Recomputation::None:
      return "none";
    case Recomputation::Selective:
      return "selective";
    case Recomputation::Full:
      return "full";
  }
  return "none";
}

Recomputation Execution::recomputation() const {
  if (parallelism.recompute) return Recomputation::Full;
  return parallelism.selectiveRecompute ? Recomputation::Selective : Recomputation::None;
}

std::string Execution::label() const {
  const Parallelism& p = parallelism;
  std::string out = "TP " + std::to_string(p.tp);
  if (p.cp > 1) out += " x CP " + std::to_string(p.cp);
  if (p.ep > 1) out += " x EP " + std::to_string(p.ep);
  out += p.expertLayoutText();
  out += " x PP " + std::to_string(p.pp);
  if (virtualStages > 1) out += " (v " + std::to_string(virtualStages) + ")";
  out += " x DP " + std::to_string(p.dp);
  if (microBatch > 0) out += ", micro-batch " + std::to_string(microBatch);
  if (p.zero() > 0) out += ", ZeRO-" + std::to_string(p.zero());
  if (p.recompute) out += ", full recompute";
  if (p.selectiveRecompute) out += ", selective recompute";
  if (p.sequenceParallel) out += ", sequence parallel";
  if (p.shardGroup > 0) out += ", sharded over " + std::to_string(p.shardGroup);
  if (p.precision == Precision::Fp8) out += ", FP8";
  return out;
}

Parallelism parallelismOf(const Execution& execution) {
  return execution.parallelism;
}

GeneratorOptions generatorOf(const Execution& execution, GeneratorOptions base) {
  base.microBatch = execution.microBatch;
  base.microBatches = 0;  // derived from the global batch
  base.virtualStages = execution.virtualStages > 1 ? execution.virtualStages : 0;
  return base;
}

namespace {

std::vector<std::int64_t> divisorsOf(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    out.push_back(d);
    if (d != n / d) out.push_back(n / d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Values of an optional choice: the fixed one, or `all`.
template <class T>
std::vector<T> valuesOf(const std::optional<T>& fixed, std::vector<T> all) {
  return fixed ? std::vector<T>{*fixed} : all;
}

// The context-parallel degrees to try with `rest` NPUs left after TP: 1, and from
// kContextParallelFromTokens tokens per sequence on, the divisors up to
// c.maxContextParallel that split the sequence into 2 x CP chunks (section 2.15).
std::vector<std::int64_t> contextDegrees(std::int64_t rest, std::int64_t sequence,
                                         const ExecutionChoices& c) {
  std::vector<std::int64_t> out;
  for (const std::int64_t cp : divisorsOf(rest)) {
    if (c.cp ? cp != *c.cp
             : cp > 1 && (sequence < kContextParallelFromTokens || cp > c.maxContextParallel)) {
      continue;
    }
    if (sequence % (2 * cp) == 0 || cp == 1) out.push_back(cp);
  }
  return out;
}

// The expert layouts of a mixture of experts with these TP and CP degrees:
// {EP NPUs outside the TP group (the mapping's expert axis), expert TP}. With
// expert TP e < TP, Megatron-Core's EP group holds TP / e NPUs of the TP group
// (mapping.hpp), so EP = axis x TP / e must divide the experts.
std::vector<std::pair<std::int64_t, std::int64_t>> expertLayouts(const TransformerConfig& m,
                                                                 std::int64_t npus, std::int64_t tp,
                                                                 std::int64_t cp,
                                                                 const ExecutionChoices& c) {
  if (!m.moe()) {
    if ((c.expertTp && *c.expertTp != tp) || (c.ep && *c.ep != 1)) return {};
    return {{1, tp}};
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  // Expert TP 1 (Megatron-Core's MoE recipes) or TP (its default) unless given:
  // a value in between keeps a tally per placement (its groups split the TP axis).
  const std::vector<std::int64_t> etps =
      c.expertTp ? std::vector<std::int64_t>{*c.expertTp}
                 : (tp > 1 ? std::vector<std::int64_t>{1, tp} : std::vector<std::int64_t>{1});
  for (const std::int64_t etp : etps) {
    if (etp < 1 || tp % etp != 0) continue;
    for (const std::int64_t axis : divisorsOf(npus / (tp * cp))) {
      const std::int64_t ep = axis * (tp / etp);
      if (m.experts % ep != 0 || (c.ep && ep != *c.ep)) continue;
      out.emplace_back(axis, etp);
    }
  }
  return out;
}

// Appends the executions with these TP and CP degrees.
void addExecutions(const TransformerConfig& m, std::int64_t npus, std::int64_t tp, std::int64_t cp,
                   std::int64_t B, const ExecutionChoices& c, std::vector<Execution>& out) {
  for (const auto& [epAxis, etp] : expertLayouts(m, npus, tp, cp, c)) {
    const std::int64_t ep = epAxis * (tp / etp);
    for (const std::int64_t pp : divisorsOf(npus / (tp * cp * epAxis))) {
      if ((c.pp && pp != *c.pp) || pp > m.layers) continue;
      const std::int64_t dp = npus / (tp * cp * epAxis * pp);
      if (c.dp && dp != *c.dp) continue;
      const std::int64_t replicas = dp * epAxis;
      if (B % replicas != 0) continue;
      // Without a pipeline the replica's samples are one pass whatever the
      // micro-batch (presets.hpp, planBatch): it changes nothing; the
      // preset's (or the fixed) one is written.
      std::vector<std::int64_t> bs;
      if (pp == 1) {
        bs.push_back(c.microBatch.value_or(1));
      } else {
        for (const std::int64_t b : divisorsOf(B / replicas)) {
          if ((c.microBatch && b != *c.microBatch) || b > c.maxMicroBatch) continue;
          bs.push_back(b);
        }
      }
      std::vector<int> vs{1};
      if (pp > 1) {
        const std::int64_t stageBlocks = (m.layers + pp - 1) / pp;
        vs.clear();
        for (const std::int64_t v : divisorsOf(stageBlocks)) {
          if ((c.virtualStages && v != *c.virtualStages) || v > c.maxVirtualStages) continue;
          vs.push_back(static_cast<int>(v));
        }
      } else if (c.virtualStages && *c.virtualStages > 1) {
        continue;
      }
      std::vector<bool> sps = tp > 1 ? std::vector<bool>{false, true} : std::vector<bool>{false};
      if (m.moe() && tp > 1) sps = {true};  // Megatron-LM requires it (generator.cpp)
      if (c.sequenceParallel) sps = {*c.sequenceParallel};
      for (const std::int64_t b : bs) {
        if (b < 1) continue;
        for (const int v : vs) {
          for (const bool sp : sps) {
            for (const int zero : valuesOf<int>(c.zeroStage, {0, 1, 2, 3})) {
              for (const Recomputation r : valuesOf<Recomputation>(
                       c.recomputation,
                       {Recomputation::None, Recomputation::Selective, Recomputation::Full})) {
                Execution e;
                Parallelism& p = e.parallelism;
                p = c.base;
                p.tp = static_cast<int>(tp);
                p.cp = static_cast<int>(cp);
                p.ep = static_cast<int>(ep);
                p.expertTp = etp == tp ? 0 : static_cast<int>(etp);
                p.pp = static_cast<int>(pp);
                p.dp = dp;
                p.clearGroups();
                p.sequenceParallel = sp;
                p.zero3 = zero == 3;
                p.zeroStage = zero == 3 ? 0 : zero;
                p.recompute = r == Recomputation::Full;
                p.selectiveRecompute = r == Recomputation::Selective;
                e.virtualStages = v;
                e.microBatch = b;
                out.push_back(std::move(e));
              }
            }
          }
        }
      }
    }
  }
}

std::vector<Execution> transformerExecutions(const Preset& preset, const TransformerConfig& m,
                                             std::int64_t npus, const GeneratorOptions& generator,
                                             const ExecutionChoices& c) {
  const std::int64_t B = generator.globalBatch > 0 ? generator.globalBatch : preset.globalBatch;
  const std::int64_t sequence =
      generator.sequenceLength > 0 ? generator.sequenceLength : preset.sequenceLength;
  std::vector<Execution> out;
  for (const std::int64_t tp : divisorsOf(npus)) {
    if (c.tp && tp != *c.tp) continue;
    if (m.hidden % tp != 0 || m.heads % tp != 0) continue;
    for (const std::int64_t cp : contextDegrees(npus / tp, sequence, c)) {
      addExecutions(m, npus, tp, cp, B, c, out);
    }
  }
  return out;
}

}  // namespace

std::vector<Execution> enumerateExecutions(const Preset& preset, std::int64_t npus,
                                           const GeneratorOptions& generator,
                                           const ExecutionChoices& choices) {
  if (npus < 1) throw InputError("executions: the network has no NPUs");
  if (const auto* m = std::get_if<TransformerConfig>(&preset.model)) {
    return transformerExecutions(preset, *m, npus, generator, choices);
  }
  // CNN and DLRM are data parallel only: the ZeRO stage is the one choice.
  std::vector<Execution> out;
  if ((choices.tp && *choices.tp != 1) || (choices.pp && *choices.pp != 1) ||
      (choices.ep && *choices.ep != 1) || (choices.cp && *choices.cp != 1)) {
    return out;
  }
  for (const int zero : valuesOf<int>(choices.zeroStage, {0, 1, 2, 3})) {
    Execution e;
    e.parallelism = choices.base;
    e.parallelism.tp = e.parallelism.cp = e.parallelism.ep = e.parallelism.pp = 1;
    e.parallelism.dp = npus;
    e.parallelism.zero3 = zero == 3;
    e.parallelism.zeroStage = zero == 3 ? 0 : zero;
    e.parallelism.recompute = e.parallelism.selectiveRecompute = false;
    e.parallelism.sequenceParallel = false;
    e.microBatch = choices.microBatch.value_or(0);
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

constexpr std::size_t kAxes = kParallelAxes.size();
using Degrees = std::array<std::int64_t, kAxes>;

// Every placement from dimension `d` and axis `a` on: the group size of each axis
// on each dimension, multiplying to the dimension's NPUs (`room` is what is left
// of dimension d) and per axis to its degree (`left` is what is still to place).
struct Placer {
  const Network& network;
  const Parallelism& base;
  int limit;
  std::array<std::vector<int>, kAxes> groups;
  std::vector<Parallelism> out;

  void place(std::size_t d, std::size_t a, std::int64_t room, Degrees left) {
    if (static_cast<int>(out.size()) >= limit) return;
    if (d == network.dims.size()) {
      if (left == Degrees{1, 1, 1, 1, 1}) {
        Parallelism p = base;
        for (std::size_t k = 0; k < kAxes; ++k) p.groupsOf(kParallelAxes[k]) = groups[k];
        out.push_back(std::move(p));
      }
      return;
    }
    if (a + 1 == kAxes) {  // the last axis takes what is left of the dimension
      if (left[a] % room != 0) return;
      groups[a][d] = static_cast<int>(room);
      left[a] /= room;
      if (d + 1 < network.dims.size()) {
        place(d + 1, 0, network.dims[d + 1].npus, left);
      } else {
        place(d + 1, 0, 1, left);
      }
      return;
    }
    for (const std::int64_t g : divisorsOf(room)) {
      if (left[a] % g != 0) continue;
      groups[a][d] = static_cast<int>(g);
      Degrees next = left;
      next[a] /= g;
      place(d, a + 1, room / g, next);
    }
  }
};

}  // namespace

std::vector<Parallelism> placements(const Execution& execution, const Network& network, int limit) {
  const Parallelism& p = execution.parallelism;
  std::vector<Parallelism> out;
  Parallelism base = p;
  base.clearGroups();
  // The automatic mapping first.
  try {
    const ParallelismMapping m = mapParallelism(network, base);
    Parallelism automatic = base;
    for (ParallelAxis axis : kParallelAxes) automatic.groupsOf(axis) = m.of(axis);
    out.push_back(std::move(automatic));
  } catch (const InputError&) {
    // Not formable inside-out and outside-in; other placements may be.
  }
  if (network.dims.empty()) return out;
  Placer placer{network, base, limit, {}, {}};
  for (auto& g : placer.groups) g.assign(network.dims.size(), 1);
  Degrees degrees{};
  for (std::size_t k = 0; k < kAxes; ++k) degrees[k] = p.degree(kParallelAxes[k]);
  placer.place(0, 0, network.dims[0].npus, degrees);
  for (Parallelism& q : placer.out) {
    const bool same = !out.empty() && q == out[0];
    if (!same) out.push_back(std::move(q));
  }
  return out;
}

double executionBound(const Preset& preset, const Execution& execution, const Device& device,
                      const Network& network, const GeneratorOptions& generator) {
  return tallyWorkload(preset, execution.parallelism, device, network,
                       generatorOf(execution, generator))
      .computeNs;
}

namespace {

// Where a design goes in the list kept, best (least time) first.
void keepDesign(std::vector<ExecutionDesign>& designs, ExecutionDesign design, int keep) {
  const auto at =
      std::upper_bound(designs.begin(), designs.end(), design,
                       [](const ExecutionDesign& a, const ExecutionDesign& b) {
                         return a.solution.eval.iterationNs < b.solution.eval.iterationNs;
                       });
  designs.insert(at, std::move(design));
  if (static_cast<int>(designs.size()) > keep) designs.resize(static_cast<std::size_t>(keep));
}

// What the search of one shape reuses: the network as projects hold it, the
// placements of each set of degrees, and each collective's time at the
// bandwidth ceilings.
struct ShapeMemo {
  Network network;  // projectNetwork of the shape
  // The placements of a set of degrees, and per placement the number of the
  // group of each set of axes (-1: not yet looked up).
  struct Placements {
    std::vector<Parallelism> list;
    std::vector<std::array<int, 1u << kAxes>> groups;
  };
  std::map<Degrees, Placements> placements;
  // Per collective: its time at the ceilings and the bytes it moves per dimension.
  struct Ceiling {
    double timeNs = 0;
    std::vector<double> bytes;
    std::size_t busiest = 0;  // the dimension that moves the most bytes
  };
  // Groups (sizes and strides per dimension) and collectives (type and bytes) by
  // number, and the collectives at the ceilings by both numbers.
  std::map<std::pair<std::vector<int>, std::vector<int>>, int> groupIds;
  std::map<std::pair<int, double>, int> collectiveIds;
  std::unordered_map<std::uint64_t, Ceiling> atCeiling;
  std::vector<double> traffic, own;  // leastTime's sums, per dimension
};

Degrees degreesOf(const Parallelism& p) {
  Degrees d{};
  for (std::size_t k = 0; k < kAxes; ++k) d[k] = p.degree(kParallelAxes[k]);
  return d;
}

// The parallelism a placement is tallied with: the training loop's recomputation
// realized by the generator, as makeProject does.
Parallelism talliedParallelism(const Parallelism& placed, const ProjectOptions& po) {
  Parallelism p = placed;
  if (po.trainingLoop == TrainingLoop::Recompute) p.recompute = true, p.selectiveRecompute = false;
  return p;
}

// The execution's axis tally (tallyByAxes), computed once per cache; nullptr
// when there is none (the overlap loop needs the layer order; see tallyByAxes).
const AxisTally* axisTallyOf(const Preset& preset, const Execution& execution,
                             const Parallelism& tallied, const ProjectOptions& po,
                             const ExecutionSearchOptions& o, TallyCache& cache) {
  if (po.trainingLoop == TrainingLoop::Overlap) return nullptr;
  const std::string key = execution.label() + "|" + std::to_string(tallied.recompute) +
                          std::to_string(tallied.selectiveRecompute);
  auto it = cache.byExecution.find(key);
  if (it == cache.byExecution.end()) {
    if (cache.byExecution.size() >= cache.limit) cache.byExecution.clear();
    Parallelism degrees = tallied;
    degrees.clearGroups();
    it = cache.byExecution.emplace(key, tallyByAxes(preset, degrees, o.device, po.generator)).first;
  }
  return it->second ? &*it->second : nullptr;
}

// The placement's groups as a mapping (placements() gives every axis's groups).
ParallelismMapping mappingOf(const Parallelism& placed, std::size_t dims) {
  ParallelismMapping m;
  for (ParallelAxis axis : kParallelAxes) {
    m.of(axis) = placed.groupsOf(axis);
    if (m.of(axis).empty()) m.of(axis).assign(dims, 1);
  }
  return m;
}

// The least of sum_d a_d / bw_d over bw_d <= ceiling_d with sum_d bw_d <= total:
// bw_d proportional to sqrt(a_d) (Lagrange), the dimensions that would exceed
// their ceiling held there and the rest of the total shared again.
double leastSum(const std::vector<double>& a, const std::vector<double>& ceiling, double total) {
  const std::size_t dims = a.size();
  std::vector<double> bw(dims, 0.0);
  std::vector<bool> held(dims, false);
  for (std::size_t d = 0; d < dims; ++d) held[d] = !(a[d] > 0);
  for (std::size_t round = 0; round <= dims; ++round) {
    double roots = 0, left = total;
    for (std::size_t d = 0; d < dims; ++d) {
      if (held[d]) {
        if (a[d] > 0) left -= bw[d];
      } else {
        roots += std::sqrt(a[d]);
      }
    }
    bool capped = false;
    for (std::size_t d = 0; d < dims; ++d) {
      if (held[d]) continue;
      bw[d] = std::isfinite(left) ? left * std::sqrt(a[d]) / roots : ceiling[d];
      if (bw[d] > ceiling[d]) bw[d] = ceiling[d], held[d] = capped = true;
    }
    if (!capped) break;
  }
  double sum = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    if (a[d] > 0) sum += a[d] / bw[d];
  }
  return sum;
}

// A lower bound on the iteration time of every bandwidth split of the placement
// (the tally's time model is separable: compute plus each collective's time):
// the larger of
//   - every dimension at its most bandwidth at once (time falls with each), and
//   - the dimensions' traffic: a collective takes at least the time each
//     dimension needs for its bytes, so T >= compute + max_d A_d / bw_d with A_d
//     the bytes on d in one iteration, which is at least max_d A_d / ceiling_d
//     and sum_d A_d / (the most total bandwidth); and, charging each collective
//     only its busiest dimension's bytes (a_d), at least the least of
//     sum_d a_d / bw_d under the ceilings (leastSum).
double leastTime(const AxisTally& tally, const std::vector<int>& collectiveIds,
                 const Parallelism& placed, std::array<int, 1u << kAxes>& groupOf,
                 const ExecutionSearchOptions& o, ShapeMemo& memo) {
  const std::size_t dims = memo.network.dims.size();
  std::optional<ParallelismMapping> m;
  const auto groupFor = [&](unsigned axes) {
    if (!m) m = mappingOf(placed, dims);
    return std::make_pair(m->unionGroups(axes), m->unionStrides(axes));
  };
  double atCeilings = tally.computeNs;
  std::vector<double>& traffic = memo.traffic;
  std::vector<double>& own = memo.own;  // each collective's bytes on its busiest dimension
  traffic.assign(dims, 0.0);
  own.assign(dims, 0.0);
  for (std::size_t k = 0; k < tally.collectives.size(); ++k) {
    const AxisTally::Collective& c = tally.collectives[k];
    // The group of each set of axes, numbered once per placement.
    int& id = groupOf[c.axes];
    if (id < 0) {
      id = memo.groupIds.try_emplace(groupFor(c.axes), static_cast<int>(memo.groupIds.size()))
               .first->second;
    }
    const std::uint64_t key =
        static_cast<std::uint64_t>(collectiveIds[k]) << 32 | static_cast<std::uint32_t>(id);
    auto it = memo.atCeiling.find(key);
    if (it == memo.atCeiling.end()) {
      const auto group = groupFor(c.axes);
      const TimeTerm term = collectiveTerm(c.type, c.bytes, group.first, memo.network,
                                           o.project.collectives, group.second);
      ShapeMemo::Ceiling one{term.exact(o.bandwidthCeiling), std::vector<double>(dims, 0.0)};
      for (const DimTime& busy : term.occupancy) {
        one.bytes[static_cast<std::size_t>(busy.dim)] += busy.bytes;
      }
      one.busiest = static_cast<std::size_t>(std::max_element(one.bytes.begin(), one.bytes.end()) -
                                             one.bytes.begin());
      it = memo.atCeiling.emplace(key, std::move(one)).first;
    }
    const ShapeMemo::Ceiling& at = it->second;
    atCeilings += c.count * at.timeNs;
    for (std::size_t d = 0; d < dims; ++d) traffic[d] += c.count * at.bytes[d];
    if (dims > 0) own[at.busiest] += c.count * at.bytes[at.busiest];
  }
  double busiest = 0, total = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    busiest = std::max(busiest, traffic[d] / o.bandwidthCeiling[d]);
    total += traffic[d];
  }
  busiest = std::max(busiest, total / o.bandwidthTotalCeiling);
  return std::max({atCeilings, tally.computeNs + busiest,
                   tally.computeNs + leastSum(own, o.bandwidthCeiling, o.bandwidthTotalCeiling)});
}

// The problem of one placement: from its tally where the loop's order does not
// matter (no-overlap and recompute), else from the whole generated workload.
Problem problemOf(const Preset& preset, const Execution& execution, const Parallelism& placed,
                  const Network& network, const ExecutionSearchOptions& o,
                  const AxisTally* axisTally, TallyCache& cache) {
  ProjectOptions po = o.project;
  po.generator = generatorOf(execution, o.generator);
  if (po.trainingLoop == TrainingLoop::Overlap) {
    return buildProblem(makeProject(preset, placed, o.device, network, po));
  }
  const Parallelism p = talliedParallelism(placed, po);
  Scenario scenario;
  scenario.network = projectNetwork(network, po);
  scenario.costModel = po.costModel;
  scenario.model.collectives = po.collectives;
  scenario.constraints = po.constraints;
  if (axisTally) {
    return buildProblem(scenario, buildTimeModel(scenario.network,
                                                 placeTally(*axisTally, mapParallelism(network, p)),
                                                 po.collectives));
  }
  std::string key = execution.label() + "|" + std::to_string(p.recompute) +
                    std::to_string(p.selectiveRecompute) + "|";
  for (ParallelAxis axis : kParallelAxes) {
    for (int g : p.groupsOf(axis)) key += std::to_string(g) + ",";
    key += "|";
  }
  for (const Dimension& d : network.dims) key += std::to_string(d.npus) + ",";
  auto it = cache.tallies.find(key);
  if (it == cache.tallies.end()) {
    if (cache.tallies.size() >= cache.limit) cache.tallies.clear();
    it = cache.tallies
             .emplace(key, tallyWorkload(preset, p, o.device, scenario.network, po.generator))
             .first;
  }
  TimeModel time = buildTimeModel(scenario.network, it->second, po.collectives);
  return buildProblem(scenario, std::move(time));
}

// The design of one placement, solved (or evaluated at the given bandwidths).
// nullopt: pruned before its solve, by its time at the bandwidth ceilings.
std::optional<Solution> designOf(const Preset& preset, const Execution& execution,
                                 const Parallelism& placed, const Network& network,
                                 const ExecutionSearchOptions& o,
                                 const std::function<bool(double)>& prunable, TallyCache& cache,
                                 const AxisTally* axisTally) {
  const bool ceilingBound = !o.bandwidth && prunable &&
                            o.bandwidthCeiling.size() == network.dims.size() &&
                            !o.bandwidthCeiling.empty();
  const Problem problem = problemOf(preset, execution, placed, network, o, axisTally, cache);
  if (ceilingBound && !axisTally && prunable(problem.evaluate(o.bandwidthCeiling).iterationNs)) {
    return std::nullopt;
  }
  if (o.bandwidth) {
    problem.checkBandwidth(*o.bandwidth);
    Solution s;
    s.status = SolveStatus::Optimal;
    s.bandwidth = *o.bandwidth;
    s.eval = problem.evaluate(s.bandwidth);
    return s;
  }
  return solve(problem, o.objective, o.solver);
}

// Why no execution of `preset` on `npus` NPUs has the degrees the choices fix.
std::string whyNoExecution(const Preset& preset, std::int64_t npus,
                           const GeneratorOptions& generator, const ExecutionChoices& c) {
  const auto* m = std::get_if<TransformerConfig>(&preset.model);
  const std::string n = std::to_string(npus) + " NPUs";
  if (!m) return "preset '" + preset.id + "' runs data parallel only (TP, CP, EP and PP 1)";
  const std::int64_t sequence =
      generator.sequenceLength > 0 ? generator.sequenceLength : preset.sequenceLength;
  if (c.tp && (npus % *c.tp != 0 || m->hidden % *c.tp != 0 || m->heads % *c.tp != 0)) {
    return "TP " + std::to_string(*c.tp) + " must divide the " + n + ", the hidden size " +
           std::to_string(m->hidden) + " and the " + std::to_string(m->heads) + " heads";
  }
  if (c.cp && (npus % *c.cp != 0 || sequence % (2 * std::int64_t{*c.cp}) != 0)) {
    return "CP " + std::to_string(*c.cp) + " must divide the " + n + " and split the sequence of " +
           std::to_string(sequence) + " tokens into 2 x CP equal chunks";
  }
  if (c.ep && *c.ep > 1 && !m->moe()) {
    return "EP " + std::to_string(*c.ep) + " needs a mixture-of-experts model; '" + preset.id +
           "' is dense";
  }
  if (c.ep && m->moe() && (npus % *c.ep != 0 || m->experts % *c.ep != 0)) {
    return "EP " + std::to_string(*c.ep) + " must divide the " + n + " and the model's " +
           std::to_string(m->experts) + " experts";
  }
  if (c.expertTp && !m->moe()) {
    return "expert TP " + std::to_string(*c.expertTp) + " needs a mixture-of-experts model; '" +
           preset.id + "' is dense";
  }
  if (c.expertTp && c.tp && (*c.expertTp < 1 || *c.tp % *c.expertTp != 0)) {
    return "expert TP " + std::to_string(*c.expertTp) + " must divide TP " + std::to_string(*c.tp);
  }
  if (c.pp && (npus % *c.pp != 0 || *c.pp > m->layers)) {
    return "PP " + std::to_string(*c.pp) + " must divide the " + n + " and be at most the " +
           std::to_string(m->layers) + " blocks";
  }
  return "no combination of the given degrees divides the " + n +
         " with a data-parallel degree whose replicas split the global batch";
}

}  // namespace

PreparedExecutions prepareExecutions(const Preset& preset, std::int64_t npus,
                                     const ExecutionSearchOptions& o) {
  PreparedExecutions out;
  const std::vector<Execution> all = enumerateExecutions(preset, npus, o.generator, o.choices);
  if (all.empty()) out.firstFailure = whyNoExecution(preset, npus, o.generator, o.choices);
  // Memory first, in closed form; of the choices that change only memory (ZeRO
  // 0, 1, 2 move the same bytes) or only add compute (recomputation), the least
  // that fits is kept: the others are as fast or slower.
  std::set<std::tuple<int, int, int, int, std::int64_t, int, std::int64_t, bool, bool>> taken;
  std::vector<Execution> ordered = all;
  std::stable_sort(ordered.begin(), ordered.end(), [](const Execution& a, const Execution& b) {
    const int ra = static_cast<int>(a.recomputation()), rb = static_cast<int>(b.recomputation());
    return std::tie(ra, a.parallelism.zeroStage) < std::tie(rb, b.parallelism.zeroStage);
  });
  auto failed = [&](const std::string& why) {
    ++out.failed;
    if (out.firstFailure.empty()) out.firstFailure = why;
  };
  for (const Execution& e : ordered) {
    const Parallelism& p = e.parallelism;
    const auto key = std::make_tuple(p.tp, p.ep, p.expertTp, p.pp, p.dp, e.virtualStages,
                                     e.microBatch, p.sequenceParallel, p.zero3);
    if (taken.count(key)) continue;
    ExecutionCandidate c{e, {}, 0, std::nullopt};
    try {
      const BatchPlan plan = planBatch(preset, p, generatorOf(e, o.generator));
      c.memory = estimateMemory(preset, p, plan, o.device, e.virtualStages);
    } catch (const InputError& err) {
      failed(err.what());
      continue;
    }
    if (!c.memory.fits() && !o.ignoreMemory) {
      ++out.overMemory;
      if (c.memory.use &&
          (!out.leastMemory || c.memory.use->total() < out.leastMemory->use->total())) {
        out.leastMemory = c.memory;
      }
      continue;
    }
    try {
      // The axis tally's compute is the bound (no placement changes it).
      Parallelism degrees = p;
      degrees.clearGroups();
      std::optional<AxisTally> tally =
          tallyByAxes(preset, degrees, o.device, generatorOf(e, o.generator));
      c.boundNs = tally ? tally->computeNs
                        : executionBound(preset, e, o.device, axesNetwork(p), o.generator);
      if (o.project.trainingLoop == TrainingLoop::NoOverlap) c.tally = std::move(tally);
    } catch (const InputError& err) {
      failed(err.what());
      continue;
    }
    taken.insert(key);
    out.candidates.push_back(std::move(c));
  }
  // Least bound first: once one is pruned, every later one is.
  std::stable_sort(out.candidates.begin(), out.candidates.end(),
                   [](const ExecutionCandidate& a, const ExecutionCandidate& b) {
                     return a.boundNs < b.boundNs;
                   });
  return out;
}

namespace {

// The search of one shape: the prepared executions least bound first, each
// placement bounded, then solved.
class ShapeSearch {
 public:
  ShapeSearch(const Preset& preset, const Network& network, const PreparedExecutions& prepared,
              const ExecutionSearchOptions& o)
      : preset_(preset),
        network_(network),
        prepared_(prepared),
        o_(o),
        tallies_(o.tallies ? *o.tallies : ownTallies_),
        ceilingBound_(!o.bandwidth && o.prune && !o.bandwidthCeiling.empty() &&
                      o.bandwidthCeiling.size() == network.dims.size()) {
    memo_.network = projectNetwork(network, o.project);
    out_.overMemory = prepared.overMemory;
    out_.failed = prepared.failed;
    out_.firstFailure = prepared.firstFailure;
    out_.leastMemory = prepared.leastMemory;
  }

  ExecutionSearch run() {
    std::int64_t done = 0;
    const auto total = static_cast<std::int64_t>(prepared_.candidates.size());
    for (const ExecutionCandidate& c : prepared_.candidates) {
      if (o_.cancel && o_.cancel->load()) {
        out_.cancelled = true;
        break;
      }
      if (o_.progress) o_.progress(done, total);
      if (prunable(c.boundNs)) {
        // Sorted by bound: this one and every later one.
        for (auto it = prepared_.candidates.begin() + done; it != prepared_.candidates.end();
             ++it) {
          const auto n = static_cast<std::int64_t>(placementsOf(*it).list.size());
          out_.enumerated += n;
          out_.pruned += n;
        }
        done = total;
        break;
      }
      ++done;
      searchPlacements(c);
    }
    if (o_.progress) o_.progress(done, total);
    return std::move(out_);
  }

 private:
  bool prunable(double bound) const {
    if (!o_.prune) return false;
    return o_.dominated ? o_.dominated(bound) : bound >= best_;
  }

  void failed(const std::string& why) {
    ++out_.failed;
    if (out_.firstFailure.empty()) out_.firstFailure = why;
  }

  // The placements of the candidate's degrees (each set of degrees once).
  ShapeMemo::Placements& placementsOf(const ExecutionCandidate& c) {
    auto [it, inserted] = memo_.placements.try_emplace(degreesOf(c.execution.parallelism));
    if (inserted) {
      std::vector<Parallelism>& list = it->second.list;
      if (o_.choices.searchPlacements) {
        list = placements(c.execution, network_);
      } else {
        // The automatic mapping only (placements lists it first), its groups resolved.
        list = placements(c.execution, network_, 1);
        if (list.size() > 1) list.resize(1);
      }
      std::array<int, 1u << kAxes> none;
      none.fill(-1);
      it->second.groups.assign(list.size(), none);
    }
    return it->second;
  }

  // The execution's tally for every placement (nullptr: each placement's own).
  const AxisTally* tallyOf(const ExecutionCandidate& c) {
    if (c.tally) return &*c.tally;
    try {
      ProjectOptions po = o_.project;
      po.generator = generatorOf(c.execution, o_.generator);
      return axisTallyOf(preset_, c.execution, talliedParallelism(c.execution.parallelism, po), po,
                         o_, tallies_);
    } catch (const InputError&) {
      return nullptr;  // each placement's generation says why
    }
  }

  // Every placement of candidate `c`: bounded, and solved unless the bound prunes it.
  void searchPlacements(const ExecutionCandidate& c) {
    ShapeMemo::Placements& placed = placementsOf(c);
    const std::vector<Parallelism>& places = placed.list;
    out_.enumerated += static_cast<std::int64_t>(places.size());
    const AxisTally* tally = tallyOf(c);
    std::vector<int> collectiveIds;
    if (tally) {
      for (const AxisTally::Collective& k : tally->collectives) {
        collectiveIds.push_back(memo_.collectiveIds
                                    .try_emplace({static_cast<int>(k.type), k.bytes},
                                                 static_cast<int>(memo_.collectiveIds.size()))
                                    .first->second);
      }
    }
    if (places.empty()) failed("the degrees of " + c.execution.label() + " do not fit the network");
    for (std::size_t i = 0; i < places.size(); ++i) {
      if (prunable(c.boundNs)) {
        out_.pruned += static_cast<std::int64_t>(places.size() - i);
        break;
      }
      // The rounding of a sum in another order is kept on the safe side.
      if (ceilingBound_ && tally &&
          prunable(leastTime(*tally, collectiveIds, places[i], placed.groups[i], o_, memo_) *
                   (1 - 1e-12))) {
        ++out_.pruned;
        continue;
      }
      solvePlacement(c, places[i], tally);
    }
  }

  void solvePlacement(const ExecutionCandidate& c, const Parallelism& groups,
                      const AxisTally* tally) {
    // The candidate's execution with the groups of the placement.
    Execution design = c.execution;
    for (ParallelAxis axis : kParallelAxes) {
      design.parallelism.groupsOf(axis) = groups.groupsOf(axis);
    }
    Solution s;
    try {
      std::optional<Solution> solved = designOf(
          preset_, c.execution, design.parallelism, network_, o_,
          [this](double bound) { return prunable(bound); }, tallies_, tally);
      if (!solved) {
        ++out_.pruned;
        return;
      }
      s = std::move(*solved);
    } catch (const InputError& err) {
      failed(err.what());
      return;
    }
    ++out_.evaluated;
    if (!s.ok()) {
      failed(s.message);
      return;
    }
    best_ = std::min(best_, s.eval.iterationNs);
    ExecutionDesign found{std::move(design), std::move(s), c.memory, c.boundNs};
    if (o_.found) o_.found(found);
    keepDesign(out_.designs, std::move(found), std::max(o_.keep, 1));
  }

  const Preset& preset_;
  const Network& network_;
  const PreparedExecutions& prepared_;
  const ExecutionSearchOptions& o_;
  ExecutionSearch out_;
  double best_ = std::numeric_limits<double>::infinity();
  TallyCache ownTallies_;
  TallyCache& tallies_;
  ShapeMemo memo_;
  bool ceilingBound_;
};

}  // namespace

ExecutionSearch searchPrepared(const Preset& preset, const Network& network,
                               const PreparedExecutions& prepared,
                               const ExecutionSearchOptions& o) {
  network.validate();
  return ShapeSearch(preset, network, prepared, o).run();
}

ExecutionSearch searchExecutions(const Preset& preset, const Network& network,
                                 const ExecutionSearchOptions& o) {
  network.validate();
  return searchPrepared(preset, network, prepareExecutions(preset, network.npuCount(), o), o);
}

}  // namespace libra
