#include "libra/time_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

bool TimeModel::isSeparable() const {
  return std::all_of(groups.begin(), groups.end(),
                     [](const Group& g) { return g.pieces.size() <= 1; });
}

std::vector<bool> TimeModel::usedDims() const {
  std::vector<bool> used(dims, false);
  for (const TimeTerm& term : terms) {
    for (int d = 0; d < dims; ++d) {
      if (term.uses(d)) used[d] = true;
    }
  }
  return used;
}

bool TimeModel::isAdaptive() const {
  return std::any_of(terms.begin(), terms.end(), [](const TimeTerm& t) { return t.automatic(); });
}

TimeModel TimeModel::fixedAt(std::span<const double> bw) const {
  TimeModel out = *this;
  for (TimeTerm& term : out.terms) term = term.fixedAt(bw);
  return out;
}

std::vector<double> TimeModel::Group::pieceValues(std::span<const double> times) const {
  std::vector<double> values, sums;
  pieceValues(times, values, sums);
  return values;
}

void TimeModel::Group::pieceValues(std::span<const double> times, std::vector<double>& values,
                                   std::vector<double>& sums) const {
  // The sums W_j . times, each from its previous piece's.
  sums.assign(pieces.size(), 0.0);
  values.assign(pieces.size(), 0.0);
  for (std::size_t j = 0; j < pieces.size(); ++j) {
    const Piece& p = pieces[j];
    double sum = p.previous >= 0 ? sums[static_cast<std::size_t>(p.previous)] : 0.0;
    for (const auto& [k, w] : p.terms) sum += w * times[static_cast<std::size_t>(k)];
    sums[j] = sum;
    values[j] = p.constantNs + sum;
  }
}

Evaluation TimeModel::evaluate(std::span<const double> bw) const {
  Evaluation e;
  // Chunk counts chosen at this point for "auto" terms; the others as they are.
  std::vector<TimeTerm> fixed;
  fixed.reserve(terms.size());
  std::vector<const TimeTerm*> at(terms.size());
  for (int k = 0; k < collectiveCount(); ++k) {
    if (terms[k].automatic()) {
      fixed.push_back(terms[k].fixedAt(bw));
      at[k] = &fixed.back();
    } else {
      at[k] = &terms[k];
    }
  }
  std::vector<double> tau(terms.size()), surrogate(terms.size());
  for (int k = 0; k < collectiveCount(); ++k) {
    tau[k] = at[k]->exact(bw);
    surrogate[k] = at[k]->value(bw);
  }
  e.busyNs.assign(dims, 0.0);
  std::vector<double> values, sums;
  for (const Group& g : groups) {
    auto groupTime = [&](const std::vector<double>& times) {
      double worst = g.pieces.empty() ? g.computeNs : -std::numeric_limits<double>::infinity();
      g.pieceValues(times, values, sums);
      for (const double v : values) worst = std::max(worst, v);
      return worst;
    };
    e.iterationNs += g.weight * groupTime(tau);
    e.surrogateIterationNs += g.weight * groupTime(surrogate);
    e.computeNs += g.weight * g.computeNs;
    for (const auto& [k, count] : g.occurrences) {
      for (const DimTime& part : at[k]->occupancy) {
        e.busyNs[part.dim] += g.weight * count * part.at(bw);
      }
    }
  }
  e.finite = std::isfinite(e.iterationNs);
  e.communicationNs = e.iterationNs - e.computeNs;
  e.communicationByDimNs.assign(dims, 0.0);
  if (e.finite) {
    std::vector<double> share(dims, 0.0);
    for (const Group& g : groups) {
      for (const auto& [k, count] : g.occurrences) {
        at[k]->attribute(bw, share);
        for (int d = 0; d < dims; ++d) e.communicationByDimNs[d] += g.weight * count * share[d];
      }
    }
    double sum = 0;
    for (double v : e.communicationByDimNs) sum += v;
    if (sum > 0) {
      const double scale = std::max(e.communicationNs, 0.0) / sum;
      for (double& v : e.communicationByDimNs) v *= scale;
    }
  }
  return e;
}

void validateCommunicator(const Communicator& communicator, const Network& network,
                          const std::string& where) {
  for (PhaseKind kind : kPhaseKinds) {
    const auto& g = communicator.of(kind);
    // Messages are built only on failure (this runs for every phase of every layer).
    const auto at = [&] { return where + ": communicator " + std::string(toString(kind)); };
    if (static_cast<int>(g.size()) != network.size()) {
      throw InputError(at() + " lists " + std::to_string(g.size()) +
                       " group sizes, but the network has " + std::to_string(network.size()) +
                       " dimensions");
    }
    for (int d = 0; d < network.size(); ++d) {
      if (g[d] < 1 || g[d] > network.dims[d].npus) {
        throw InputError(at() + ": group size " + std::to_string(g[d]) + " on dimension " +
                         std::to_string(d) + " ('" + text::abbreviate(network.dims[d].name) +
                         "') must be between 1 (unused) and its " +
                         std::to_string(network.dims[d].npus) + " NPUs");
      }
    }
    const auto& s = communicator.stridesOf(kind);
    if (s.empty()) continue;
    if (static_cast<int>(s.size()) != network.size()) {
      throw InputError(at() + " lists " + std::to_string(s.size()) +
                       " strides, but the network has " + std::to_string(network.size()) +
                       " dimensions");
    }
    for (int d = 0; d < network.size(); ++d) {
      // Groups of g NPUs, s apart, must tile the dimension: g s divides n.
      const std::int64_t span = static_cast<std::int64_t>(g[d]) * s[d];
      if (s[d] < 1 || span > network.dims[d].npus || network.dims[d].npus % span != 0) {
        throw InputError(at() + ": stride " + std::to_string(s[d]) + " of groups of " +
                         std::to_string(g[d]) + " on dimension " + std::to_string(d) + " ('" +
                         text::abbreviate(network.dims[d].name) + "') must be >= 1, with " +
                         "group size x stride dividing its " +
                         std::to_string(network.dims[d].npus) + " NPUs");
      }
    }
  }
}

namespace {

// Interns time terms so identical collectives share one index.
class TermTable {
 public:
  explicit TermTable(TimeModel& model) : model_(model) {}
  // Returns -1 for a collective that takes no time.
  int intern(TimeTerm term) {
    if (term.empty()) return -1;
    std::vector<double> key;
    for (const auto* parts : {&term.serial, &term.pipelined, &term.occupancy}) {
      key.push_back(static_cast<double>(parts->size()));
      for (const DimTime& p : *parts) key.insert(key.end(), {double(p.dim), p.constantNs, p.bytes});
    }
    if (term.schedule) {
      key.push_back(-1.0 - term.schedule->chunks - (term.schedule->automatic ? 1e6 : 0.0));
      for (const Stage& st : term.schedule->stages) {
        key.insert(key.end(), {double(st.dim), st.latencyNs, st.bytes});
      }
    }
    auto [it, inserted] = index_.try_emplace(std::move(key), static_cast<int>(model_.terms.size()));
    if (inserted) model_.terms.push_back(std::move(term));
    return it->second;
  }

 private:
  TimeModel& model_;
  std::map<std::vector<double>, int> index_;
};

void addTerm(std::map<int, double>& terms, int k, double count) {
  if (k >= 0 && count > 0) terms[k] += count;
}

std::vector<std::pair<int, double>> toList(const std::map<int, double>& terms) {
  return {terms.begin(), terms.end()};
}

// Adds `group`'s weighted compute time, and per dimension its collectives'
// bytes and link latency, to the totals; throws when one exceeds
// kMaxIterationTotal (or overflows).
void checkTotals(const TimeModel::Group& group, const TimeModel& model, const Network& network,
                 const std::string& where, double& computeTotal, std::vector<double>& bytesTotal,
                 std::vector<double>& latencyTotal) {
  const std::string limit = "the limit of " + text::formatNumber(kMaxIterationTotal);
  // "2e+308", or what to say when the sum itself overflowed.
  const auto amount = [](double total, const char* unit) {
    return std::isfinite(total) ? "it adds up to " + text::formatNumber(total) + unit
                                : std::string("its sum overflows");
  };
  computeTotal += group.weight * group.computeNs;
  if (!(computeTotal <= kMaxIterationTotal)) {
    throw InputError(
        where + ": the compute time of one iteration" +
        (group.weight == 1 ? "" : " (weight " + text::formatNumber(group.weight) + ")") +
        " is over " + limit + " ns for all workloads together (" + amount(computeTotal, " ns") +
        "); times would overflow");
  }
  for (const auto& [k, count] : group.occurrences) {
    const TimeTerm& term = model.terms[static_cast<std::size_t>(k)];
    // The serial, pipelined and occupancy parts each describe the whole
    // collective; the largest per dimension bounds every time made of them.
    std::vector<double> bytes(bytesTotal.size(), 0.0);
    std::vector<double> latency(latencyTotal.size(), 0.0);
    for (const auto* parts : {&term.serial, &term.pipelined, &term.occupancy}) {
      std::vector<double> b(bytes.size(), 0.0);
      std::vector<double> l(latency.size(), 0.0);
      for (const DimTime& part : *parts) {
        b[static_cast<std::size_t>(part.dim)] += part.bytes;
        l[static_cast<std::size_t>(part.dim)] += part.constantNs;
      }
      for (std::size_t d = 0; d < bytes.size(); ++d) {
        bytes[d] = std::max(bytes[d], b[d]);
        latency[d] = std::max(latency[d], l[d]);
      }
    }
    for (std::size_t d = 0; d < bytes.size(); ++d) {
      bytesTotal[d] += group.weight * count * bytes[d];
      latencyTotal[d] += group.weight * count * latency[d];
    }
  }
  for (std::size_t d = 0; d < bytesTotal.size(); ++d) {
    const std::string dim =
        "dimension " + std::to_string(d) + " ('" + text::abbreviate(network.dims[d].name) + "')";
    if (!(bytesTotal[d] <= kMaxIterationTotal)) {
      throw InputError(where + ": the bytes the collectives of one iteration move over " + dim +
                       " are over " + limit + " for all workloads together (" +
                       amount(bytesTotal[d], "") + "); times would overflow");
    }
    if (!(latencyTotal[d] <= kMaxIterationTotal)) {
      throw InputError(where + ": the link latency of one iteration's collectives on " + dim +
                       " is over " + limit + " ns for all workloads together (" +
                       amount(latencyTotal[d], " ns") + "); times would overflow");
    }
  }
}

// The overlap loop's pieces (see buildTimeModel), each after the first as the
// difference from the piece before it: piece 0 is the end of backward compute
// plus every blocking collective; the piece of ready point j (in the order the
// queue empties, the earliest layer first) is r_j plus the blocking collectives
// up to it plus the queued ones from j on. From one to the next, the blocking
// collectives of the layers in between leave and one queued collective joins.
std::vector<TimeModel::Piece> overlapPieces(const Workload& workload,
                                            const std::vector<std::array<int, 3>>& coll) {
  const std::size_t layers = workload.layers.size();
  std::map<int, double> blocking;
  double clock = 0;
  for (std::size_t i = 0; i < layers; ++i) {
    clock += workload.layers[i].phase(PhaseKind::Forward).computeNs;
    addTerm(blocking, coll[i][0], 1);
  }
  struct Ready {
    double constant;
    int k;
    std::vector<int> addedAfter;  // blocking collectives added after this point (backward)
  };
  std::vector<Ready> ready;  // backward order: the last layer's first
  std::vector<int> added;    // blocking collectives added since the last ready point
  for (std::size_t r = layers; r-- > 0;) {
    const Layer& layer = workload.layers[r];
    clock += layer.phase(PhaseKind::InputGrad).computeNs;
    addTerm(blocking, coll[r][1], 1);
    if (coll[r][1] >= 0) added.push_back(coll[r][1]);
    clock += layer.phase(PhaseKind::WeightGrad).computeNs;
    if (coll[r][2] >= 0) {
      if (!ready.empty()) ready.back().addedAfter = std::move(added);
      added.clear();
      ready.push_back({clock, coll[r][2], {}});
    }
  }
  if (!ready.empty()) ready.back().addedAfter = std::move(added);
  std::vector<TimeModel::Piece> pieces;
  pieces.push_back({clock, toList(blocking), -1});
  // Ready points from the earliest layer (the last in `ready`) to the latest.
  for (std::size_t j = ready.size(); j-- > 0;) {
    std::map<int, double> delta;
    for (const int k : ready[j].addedAfter) delta[k] -= 1;
    delta[ready[j].k] += 1;
    std::vector<std::pair<int, double>> terms;
    for (const auto& [k, w] : delta) {
      if (w != 0) terms.emplace_back(k, w);
    }
    pieces.push_back({ready[j].constant, std::move(terms), static_cast<int>(pieces.size()) - 1});
  }
  return pieces;
}

// The collective of each layer's phases, interned in `table`: its index per
// layer and phase (-1 = none), after checking the phase's numbers and groups.
std::vector<std::array<int, 3>> internCollectives(const Workload& workload,
                                                  const std::string& where, const Network& network,
                                                  const ModelOptions& options, TermTable& table) {
  const std::size_t layers = workload.layers.size();
  std::vector<std::array<int, 3>> coll(layers, {-1, -1, -1});
  for (std::size_t i = 0; i < layers; ++i) {
    const Layer& layer = workload.layers[i];
    for (PhaseKind kind : kPhaseKinds) {
      const Phase& p = layer.phase(kind);
      // Built only on failure: a name of millions of characters, copied for
      // every phase of every layer, made evaluate take minutes.
      const auto at = [&] {
        return where + ": layer " + std::to_string(i + 1) + " ('" + text::abbreviate(layer.name) +
               "') " + std::string(toString(kind));
      };
      if (!std::isfinite(p.computeNs) || p.computeNs < 0) {
        throw InputError(at() + ": compute time must be a finite number >= 0 ns");
      }
      if (!std::isfinite(p.sizeBytes) || p.sizeBytes < 0) {
        throw InputError(at() + ": collective size must be a finite number >= 0 bytes");
      }
      if (p.collective == CollectiveType::None) continue;
      const std::vector<int>& groups = p.groups.empty() ? workload.communicator.of(kind) : p.groups;
      const std::vector<int>& strides =
          p.groups.empty() ? workload.communicator.stridesOf(kind) : p.strides;
      if (!p.groups.empty()) {
        Communicator own;
        own.groups = {p.groups, p.groups, p.groups};
        own.strides = {p.strides, p.strides, p.strides};
        validateCommunicator(own, network, at());
      }
      coll[i][static_cast<int>(kind)] = table.intern(
          collectiveTerm(p.collective, p.sizeBytes, groups, network, options.collectives, strides));
    }
  }
  return coll;
}

}  // namespace

TimeModel buildTimeModel(const Network& network, std::span<const Workload> workloads,
                         const ModelOptions& options) {
  const TrainingLoop loop = options.trainingLoop;
  TimeModel model;
  model.dims = network.size();
  TermTable table(model);
  // Weighted totals over the workloads so far (kMaxIterationTotal).
  double computeTotal = 0;
  std::vector<double> bytesTotal(network.dims.size(), 0.0);
  std::vector<double> latencyTotal(network.dims.size(), 0.0);
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    const Workload& workload = workloads[w];
    const std::string where =
        "workload " +
        (workload.name.empty() ? std::to_string(w) : "'" + text::abbreviate(workload.name) + "'");
    validateCommunicator(workload.communicator, network, where);
    if (!std::isfinite(workload.weight) || workload.weight < 0) {
      throw InputError(where + ": weight must be a finite number >= 0");
    }
    TimeModel::Group group;
    group.name = workload.name;
    group.weight = workload.weight;

    // Collective index per layer and phase (-1 = none).
    const std::vector<std::array<int, 3>> coll =
        internCollectives(workload, where, network, options, table);
    const std::size_t layers = workload.layers.size();

    const double forwardFactor = loop == TrainingLoop::Recompute ? 2.0 : 1.0;
    std::map<int, double> occurrences;
    double compute = 0;
    for (std::size_t i = 0; i < layers; ++i) {
      const Layer& layer = workload.layers[i];
      compute += forwardFactor * layer.phase(PhaseKind::Forward).computeNs +
                 layer.phase(PhaseKind::InputGrad).computeNs +
                 layer.phase(PhaseKind::WeightGrad).computeNs;
      addTerm(occurrences, coll[i][0], forwardFactor);
      addTerm(occurrences, coll[i][1], 1);
      addTerm(occurrences, coll[i][2], 1);
    }
    group.computeNs = compute;
    group.occurrences = toList(occurrences);

    if (loop != TrainingLoop::Overlap) {
      group.pieces.push_back({compute, group.occurrences});
    } else {
      // Forward pass and input-gradient collectives block; a layer's weight-gradient
      // collective enters a queue once its weight-gradient compute is done and runs
      // while later layers compute. With r_j the time layer j's collective is ready
      // and c_j its duration, the queue finishes at max_j (r_j + sum_{i>=j} c_i)
      // (backward order), and the iteration ends at the later of that and the end of
      // backward compute.
      group.pieces = overlapPieces(workload, coll);
    }
    checkTotals(group, model, network, where, computeTotal, bytesTotal, latencyTotal);
    model.groups.push_back(std::move(group));
  }
  return model;
}

}  // namespace libra

namespace libra {

TimeModel buildTimeModel(const Network& network, const WorkloadTally& tally,
                         const CollectiveModel& collectives) {
  TimeModel model;
  model.dims = network.size();
  TermTable table(model);
  TimeModel::Group group;
  group.name = "tally";
  group.computeNs = tally.computeNs;
  std::map<int, double> occurrences;
  for (const WorkloadTally::Collective& c : tally.collectives) {
    const int k =
        table.intern(collectiveTerm(c.type, c.bytes, c.groups, network, collectives, c.strides));
    addTerm(occurrences, k, c.count);
  }
  group.occurrences = toList(occurrences);
  group.pieces.push_back({tally.computeNs, group.occurrences, -1});
  model.groups.push_back(std::move(group));
  return model;
}

}  // namespace libra
