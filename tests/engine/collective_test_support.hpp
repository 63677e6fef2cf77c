// Pieces of the chunked collective model's tests (test_collective_model.cpp)
// that do not trust the engine: an event simulation of the schedule written
// independently of Schedule::time, the flow-shop closed form, the latency steps
// of each building block's algorithm written out from their definitions, and a
// RapidCheck generator of random collectives on random networks.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <vector>

#include "engine_test_support.hpp"
#include "generators.hpp"
#include "libra/collective_model.hpp"

namespace libra::test {

// --- an independent simulation of a chunked schedule ---------------------------
//
// C chunks pass the stages in order; each dimension serves one chunk at a time,
// the waiting chunk that arrived first (ties: the one whose arrival was
// produced first); all chunks wait at the first stage's dimension at t = 0, in
// order. Unlike the engine (a heap of stage ends), this starts stages in
// nondecreasing order of their start time: among the dimensions with a waiting
// chunk it picks the one that can start earliest. That start is final: a chunk
// not yet known to arrive comes from a stage that has not started, so it
// arrives after the earliest possible start (durations are > 0). O(C^2 S^2 D):
// fine for the test sizes.
inline double simulateSchedule(const std::vector<double>& durations, const std::vector<int>& dimOf,
                               int chunks) {
  struct Waiting {
    double arrival;
    long long order;
    int chunk, stage;
  };
  const int S = static_cast<int>(durations.size());
  if (S == 0) return 0;
  int dims = 0;
  for (int d : dimOf) dims = std::max(dims, d + 1);
  std::vector<std::vector<Waiting>> waiting(dims);
  std::vector<double> freeAt(dims, 0.0);
  long long order = 0;
  for (int c = 0; c < chunks; ++c) waiting[dimOf[0]].push_back({0.0, order++, c, 0});
  double finish = 0;
  for (long long served = 0; served < static_cast<long long>(chunks) * S; ++served) {
    int bestDim = -1;
    std::size_t bestItem = 0;
    double bestStart = std::numeric_limits<double>::infinity();
    for (int d = 0; d < dims; ++d) {
      if (waiting[d].empty()) continue;
      std::size_t head = 0;
      for (std::size_t i = 1; i < waiting[d].size(); ++i) {
        const Waiting& a = waiting[d][i];
        const Waiting& h = waiting[d][head];
        if (a.arrival < h.arrival || (a.arrival == h.arrival && a.order < h.order)) head = i;
      }
      const double start = std::max(freeAt[d], waiting[d][head].arrival);
      if (start < bestStart) bestStart = start, bestDim = d, bestItem = head;
    }
    const Waiting w = waiting[bestDim][bestItem];
    waiting[bestDim].erase(waiting[bestDim].begin() + static_cast<std::ptrdiff_t>(bestItem));
    const double end = bestStart + durations[w.stage];
    freeAt[bestDim] = end;
    if (w.stage + 1 < S) {
      waiting[dimOf[w.stage + 1]].push_back({end, order++, w.chunk, w.stage + 1});
    } else {
      finish = std::max(finish, end);
    }
  }
  return finish;
}

// Stage durations for C chunks, written out from the definition in
// collective_model.hpp: latency + bytes / (C bw).
inline std::vector<double> stageDurations(const std::vector<Stage>& stages,
                                          const std::vector<double>& bw, int chunks) {
  std::vector<double> p;
  for (const Stage& s : stages) p.push_back(s.latencyNs + s.bytes / (chunks * bw[s.dim]));
  return p;
}

inline double simulateSchedule(const std::vector<Stage>& stages, const std::vector<double>& bw,
                               int chunks) {
  std::vector<int> dimOf;
  for (const Stage& s : stages) dimOf.push_back(s.dim);
  return simulateSchedule(stageDurations(stages, bw, chunks), dimOf, chunks);
}

// A flow shop of identical jobs (no dimension serves two stages):
// sum_k P_k + (C - 1) max_k P_k.
inline double flowShopTime(const std::vector<double>& p, int chunks) {
  double sum = 0, worst = 0;
  for (double x : p) sum += x, worst = std::max(worst, x);
  return sum + (chunks - 1) * worst;
}

inline bool sharesADimension(const std::vector<Stage>& stages) {
  for (std::size_t i = 0; i < stages.size(); ++i) {
    for (std::size_t j = i + 1; j < stages.size(); ++j) {
      if (stages[i].dim == stages[j].dim) return true;
    }
  }
  return false;
}

// --- latency steps, from the algorithms' definitions -------------------------

// Smallest k with 2^k >= n (integer arithmetic only).
inline int ceilLog2(int n) {
  int k = 0;
  while ((1LL << k) < n) ++k;
  return k;
}

// Steps of one stage of `kind` on a block of n NPUs (docs/collective-model.md):
//   Ring: ring algorithm, n - 1 neighbour steps per half (All-Reduce 2 (n - 1));
//         All-to-All one peer after another, peer j min(j, n - j) hops away:
//         sum_j min(j, n - j) = floor(n^2 / 4);
//   FullyConnected: direct, one step per half (All-Reduce 2, others 1);
//   Switch: halving-doubling, ceil(log2 n) steps per half, two links each
//         (All-Reduce 4 ceil(log2 n), RS / AG 2 ceil(log2 n)); All-to-All one
//         peer after another over two links: 2 (n - 1).
inline double expectedSteps(BuildingBlock block, CollectiveType kind, int n) {
  if (n <= 1) return 0;
  switch (block) {
    case BuildingBlock::Ring:
      if (kind == CollectiveType::AllReduce) return 2.0 * (n - 1);
      if (kind == CollectiveType::AllToAll) return static_cast<double>((n * n) / 4);
      return n - 1.0;
    case BuildingBlock::FullyConnected:
      return kind == CollectiveType::AllReduce ? 2.0 : 1.0;
    case BuildingBlock::Switch:
      if (kind == CollectiveType::AllReduce) return 4.0 * ceilLog2(n);
      if (kind == CollectiveType::AllToAll) return 2.0 * (n - 1);
      return 2.0 * ceilLog2(n);
  }
  return -1;
}

// --- random collectives ------------------------------------------------------

struct RandomCollective {
  Network network;
  CollectiveType type = CollectiveType::AllReduce;
  double sizeBytes = 0;
  std::vector<int> groups;
  std::vector<double> bw;
  int chunks = 1;

  std::vector<Stage> stages() const { return collectiveStages(type, sizeBytes, groups, network); }
  Schedule schedule() const {
    Schedule s;
    s.stages = stages();
    s.chunks = chunks;
    return s;
  }
};

inline std::ostream& operator<<(std::ostream& os, const RandomCollective& r) {
  const auto precision = os.precision(17);
  os << "\n  " << toString(r.type) << " of " << r.sizeBytes << " B, C = " << r.chunks
     << "\n  dims (block, npus, group, latency ns, bw GB/s):";
  for (int d = 0; d < r.network.size(); ++d) {
    const Dimension& dim = r.network.dims[d];
    os << "\n    " << toString(dim.block) << " " << dim.npus << " g=" << r.groups[d]
       << " L=" << dim.latencyNs << " bw=" << r.bw[d];
  }
  os << "\n";
  os.precision(precision);
  return os;
}

struct CollectiveOptions {
  int minDims = 1, maxDims = 4;
  int maxChunks = 256;
  bool latency = true;  // random link latencies (some 0), else all 0
  bool allReduceOnly = false;
  bool sharedOnly = false;  // All-Reduce over >= 2 used dimensions (a shared queue)
};

inline rc::Gen<RandomCollective> genCollective(CollectiveOptions opt = {}) {
  return rc::gen::exec([opt]() {
    RandomCollective r;
    const int dims =
        *genIndex(opt.sharedOnly ? std::max(opt.minDims, 2) : opt.minDims, opt.maxDims + 1);
    for (int d = 0; d < dims; ++d) {
      const auto block = *rc::gen::element(BuildingBlock::Ring, BuildingBlock::FullyConnected,
                                           BuildingBlock::Switch);
      Dimension dim = makeDim("d" + std::to_string(d), block, *genIndex(2, 17), "L");
      if (opt.latency) dim.latencyNs = *rc::gen::element(0.0, 1.0, 1.0) * *genLogUniform(1, 3000);
      r.network.dims.push_back(dim);
      r.bw.push_back(*genLogUniform(1, 1000));
    }
    r.type = opt.allReduceOnly || opt.sharedOnly
                 ? CollectiveType::AllReduce
                 : *rc::gen::element(CollectiveType::AllReduce, CollectiveType::ReduceScatter,
                                     CollectiveType::AllGather, CollectiveType::AllToAll);
    r.sizeBytes = *genLogUniform(1e3, 1e10);
    r.groups.assign(dims, 1);
    int used = 0;
    for (int d = 0; d < dims; ++d) {
      if (*genIndex(0, 4) > 0) {  // used 3 times in 4
        r.groups[d] = *genIndex(2, r.network.dims[d].npus + 1);
        ++used;
      }
    }
    const int needed = opt.sharedOnly ? 2 : 1;
    for (int d = 0; d < dims && used < needed; ++d) {
      if (r.groups[d] == 1) r.groups[d] = r.network.dims[d].npus, ++used;
    }
    r.chunks = *genIndex(1, opt.maxChunks + 1);
    return r;
  });
}

}  // namespace libra::test
