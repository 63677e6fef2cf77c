// RapidCheck generators of random design problems for the solver properties.
//
// A RandomProblem is a project with
//   - 2..8 dimensions, 2..16 NPUs each, random building blocks, one cost level
//     per dimension with random positive Link / Switch / Nic prices;
//   - 1..200 collectives of random types and sizes (1 kB .. 10 GB) over random
//     group sizes (per-phase groups), spread over the three phases of layers of
//     one or two weighted workloads, with random compute times;
//   - a random training loop (no-overlap, recompute, overlap);
//   - a total budget (`total == B` or `total <= B`) and 0..4 extra constraints.
// The extra constraints are built to hold at a known point x0 > 0 (so the
// problem is feasible and every dimension can have bandwidth); optionally one
// arbitrary constraint is added that may make the problem infeasible.
//
// Counts scale with RapidCheck's size parameter (small problems first, which
// also makes shrinking effective); real-valued draws use the full range.
#pragma once

#include <rapidcheck.h>

#include <cmath>
#include <ios>
#include <ostream>
#include <string>
#include <vector>

#include "engine_test_support.hpp"

namespace libra::test {

enum class ExtraKind {
  LowerBound,       // bw[i] >= u x0_i
  UpperBound,       // bw[i] <= (1 + u) x0_i
  Ordering,         // bw[i] >= bw[j] with x0_i >= x0_j
  PartialSumUpper,  // bw[i] + bw[j] <= (1 + u)(x0_i + x0_j)
  PartialSumLower,  // bw[i] + bw[j] >= u (x0_i + x0_j)
  CostCap,          // cost <= (1 + u) cost(x0)
  Fixed,            // bw[name] == x0_i
};

inline const std::vector<ExtraKind> kAllExtraKinds{ExtraKind::LowerBound,
                                                   ExtraKind::UpperBound,
                                                   ExtraKind::Ordering,
                                                   ExtraKind::PartialSumUpper,
                                                   ExtraKind::PartialSumLower,
                                                   ExtraKind::CostCap,
                                                   ExtraKind::Fixed};
// Constraints that stay satisfied when the point is scaled up by any factor >= 1.
inline const std::vector<ExtraKind> kScaleUpExtraKinds{ExtraKind::LowerBound, ExtraKind::Ordering,
                                                       ExtraKind::PartialSumLower};

struct ProblemOptions {
  int minDims = 2, maxDims = 8;
  int maxCollectives = 200;
  int maxExtras = 4;
  std::vector<ExtraKind> extraKinds = kAllExtraKinds;
  // -1: random; 0: total == B; 1: total <= B.
  int totalKind = -1;
  bool allowOverlap = true;
  // Probability (in %) of adding one constraint unrelated to x0 (may be infeasible).
  int arbitraryPercent = 0;
};

struct RandomProblem {
  Project project;
  std::vector<double> point;  // x0: satisfies every constructed constraint, > 0
  bool knownFeasible = true;  // false when an arbitrary constraint was added
  double budget = 0;          // B of the total constraint
  bool totalIsEquality = true;
  int collectives = 0;

  Problem problem() const { return buildProblem(project); }
  // The same problem with the total constraint (always the first) replaced.
  Problem withTotal(const std::string& total) const {
    Project p = project;
    p.constraints[0] = total;
    return buildProblem(p);
  }
};

inline std::ostream& operator<<(std::ostream& os, const RandomProblem& r) {
  const Project& p = r.project;
  const auto precision = os.precision(17);  // exact values, so failures reproduce
  os << "\n  network:";
  for (const auto& d : p.network.dims) {
    os << " " << d.name << "=" << toString(d.block) << "(" << d.npus << ")";
  }
  os << "\n  prices:";
  for (const auto& [name, level] : p.costModel.levels) {
    os << " " << name << "{" << level.link.value_or(-1) << "," << level.switchPrice.value_or(-1)
       << "," << level.nic.value_or(-1) << "}";
  }
  os << "\n  loop: " << toString(p.model.trainingLoop) << ", workloads: " << p.workloads.size()
     << ", collectives: " << r.collectives;
  for (const auto& w : p.workloads) {
    os << "\n  workload " << w.name << " weight " << w.weight;
    for (const auto& l : w.layers) {
      os << "\n    " << l.name << ":";
      for (const auto& ph : l.phases) {
        os << " [" << ph.computeNs << " ns";
        if (ph.collective != CollectiveType::None) {
          os << " " << toString(ph.collective) << " " << ph.sizeBytes << " B over (";
          for (std::size_t d = 0; d < ph.groups.size(); ++d) os << (d ? "," : "") << ph.groups[d];
          os << ")";
        }
        os << "]";
      }
    }
  }
  os << "\n  constraints:";
  for (const auto& c : p.constraints) os << "\n    " << c;
  os << "\n  feasible point: " << formatVector(r.point)
     << (r.knownFeasible ? "" : " (plus an arbitrary constraint)") << "\n";
  os.precision(precision);
  return os;
}

// Integer uniform in [lo, hi), independent of the size parameter (rc::gen::inRange
// shrinks its range with the size: at size 0 it always returns lo).
inline rc::Gen<int> genIndex(int lo, int hi) {
  return rc::gen::resize(100, rc::gen::inRange(lo, hi));
}

// Uniform in [lo, hi), independent of the size parameter.
inline rc::Gen<double> genUniform(double lo, double hi) {
  return rc::gen::map(rc::gen::resize(100, rc::gen::inRange(0, 1 << 30)),
                      [lo, hi](int v) { return lo + (hi - lo) * (v / 1073741824.0); });
}

// Log-uniform in [lo, hi).
inline rc::Gen<double> genLogUniform(double lo, double hi) {
  return rc::gen::map(genUniform(std::log10(lo), std::log10(hi)),
                      [](double e) { return std::pow(10.0, e); });
}

inline std::string bwRef(const Network& net, int d, bool byName) {
  return "bw[" + (byName ? net.dims[d].name : std::to_string(d)) + "]";
}

inline rc::Gen<RandomProblem> genProblem(ProblemOptions opt = {}) {
  return rc::gen::exec([opt]() {
    RandomProblem r;
    Project& p = r.project;
    p.name = "random";
    const int dims = *rc::gen::inRange(opt.minDims, opt.maxDims + 1);
    for (int d = 0; d < dims; ++d) {
      const auto block = *rc::gen::element(BuildingBlock::Ring, BuildingBlock::FullyConnected,
                                           BuildingBlock::Switch);
      const int npus = *genIndex(2, 17);
      const std::string level = "L" + std::to_string(d);
      p.network.dims.push_back(makeDim("d" + std::to_string(d), block, npus, level));
      p.costModel.levels[level] =
          CostLevel{*genLogUniform(0.1, 50), *genLogUniform(0.1, 50), *genLogUniform(0.1, 50)};
    }
    std::vector<int> loops{0, 1};
    if (opt.allowOverlap) loops.push_back(2);
    const int loop = *rc::gen::elementOf(loops);
    p.model.trainingLoop = loop == 0   ? TrainingLoop::NoOverlap
                           : loop == 1 ? TrainingLoop::Recompute
                                       : TrainingLoop::Overlap;

    // Collectives, three per layer (some phases left without one).
    const int K = *rc::gen::inRange(1, opt.maxCollectives + 1);
    r.collectives = K;
    const int workloads = *rc::gen::inRange(1, 3);
    for (int w = 0; w < workloads; ++w) {
      Workload wl;
      wl.name = "w" + std::to_string(w);
      wl.weight = w == 0 ? 1.0 : *genUniform(0.1, 2);
      const std::vector<int> ones(dims, 1);
      wl.communicator = makeCommunicator(ones, ones, ones);
      p.workloads.push_back(std::move(wl));
    }
    int placed = 0;
    int layer = 0;
    while (placed < K) {
      Workload& wl = p.workloads[*genIndex(0, workloads)];
      Layer l;
      l.name = "l" + std::to_string(layer++);
      for (auto& ph : l.phases) {
        ph.computeNs = *rc::gen::element(0.0, 1.0) * *genLogUniform(1e2, 1e7);
        if (placed >= K || *genIndex(0, 5) == 0) continue;  // no collective (1 in 5)
        ph.collective = *rc::gen::element(CollectiveType::AllReduce, CollectiveType::ReduceScatter,
                                          CollectiveType::AllGather, CollectiveType::AllToAll);
        ph.sizeBytes = *genLogUniform(1e3, 1e10);
        ph.groups.assign(dims, 1);
        bool any = false;
        for (int d = 0; d < dims; ++d) {
          if (*rc::gen::arbitrary<bool>()) {
            ph.groups[d] = *genIndex(2, p.network.dims[d].npus + 1);
            any = true;
          }
        }
        if (!any) {
          const int d = *genIndex(0, dims);
          ph.groups[d] = p.network.dims[d].npus;
        }
        ++placed;
      }
      wl.layers.push_back(std::move(l));
    }

    // A known point and the constraints around it.
    r.point.resize(dims);
    for (int d = 0; d < dims; ++d) r.point[d] = *genLogUniform(1, 1000);
    double sum = 0;
    for (double x : r.point) sum += x;
    r.totalIsEquality = opt.totalKind == 0 || (opt.totalKind < 0 && *rc::gen::arbitrary<bool>());
    r.budget = r.totalIsEquality ? sum : sum * (1 + *genUniform(0, 1));
    p.constraints.push_back(std::string("total ") + (r.totalIsEquality ? "== " : "<= ") +
                            exactNumber(r.budget));
    const std::vector<double> costs = costPerBandwidth(p.network, p.costModel);
    const int extras = opt.extraKinds.empty() ? 0 : *rc::gen::inRange(0, opt.maxExtras + 1);
    for (int e = 0; e < extras; ++e) {
      const ExtraKind kind = *rc::gen::elementOf(opt.extraKinds);
      const int i = *genIndex(0, dims);
      int j = *genIndex(0, dims - 1);
      if (j >= i) ++j;
      const bool byName = *rc::gen::arbitrary<bool>();
      const double u = *genUniform(0, 1);
      const auto& x = r.point;
      const Network& net = p.network;
      std::string c;
      switch (kind) {
        case ExtraKind::LowerBound:
          c = bwRef(net, i, byName) + " >= " + exactNumber(u * x[i]);
          break;
        case ExtraKind::UpperBound:
          c = bwRef(net, i, byName) + " <= " + exactNumber((1 + u) * x[i]);
          break;
        case ExtraKind::Ordering:
          c = x[i] >= x[j] ? bwRef(net, i, byName) + " >= " + bwRef(net, j, byName)
                           : bwRef(net, j, byName) + " >= " + bwRef(net, i, byName);
          break;
        case ExtraKind::PartialSumUpper:
          c = bwRef(net, i, byName) + " + " + bwRef(net, j, byName) +
              " <= " + exactNumber((1 + u) * (x[i] + x[j]));
          break;
        case ExtraKind::PartialSumLower:
          c = bwRef(net, i, byName) + " + " + bwRef(net, j, byName) +
              " >= " + exactNumber(u * (x[i] + x[j]));
          break;
        case ExtraKind::CostCap: {
          double cost = 0;
          for (int d = 0; d < dims; ++d) cost += costs[d] * x[d];
          c = "cost <= " + exactNumber((1 + u) * cost);
          break;
        }
        case ExtraKind::Fixed:
          c = bwRef(net, i, true) + " == " + exactNumber(x[i]);
          break;
      }
      p.constraints.push_back(c);
    }
    // Rounding of the printed numbers could put x0 a hair outside a tight
    // constraint (e.g. total == sum printed to 17 digits); x0 only serves to
    // prove feasibility, which survives such a hair.
    if (opt.arbitraryPercent > 0 && *genIndex(0, 100) < opt.arbitraryPercent) {
      const int i = *genIndex(0, dims);
      const double v = *genLogUniform(1, 1e4);
      const bool lower = *rc::gen::arbitrary<bool>();
      p.constraints.push_back(bwRef(p.network, i, false) + (lower ? " >= " : " <= ") +
                              exactNumber(v));
      r.knownFeasible = false;
    }
    return r;
  });
}

}  // namespace libra::test
