// The chunked, latency-aware collective model (collective_model.hpp) and how the
// time model, the solvers and the analysis use it.
//
// References, none of them the engine's own code:
//  - hand-computed schedules (the derivations are in the comments);
//  - the flow-shop closed form sum_k P_k + (C - 1) max_k P_k;
//  - an event simulation written independently (collective_test_support.hpp);
//  - LIBRA's traffic V_d (collectiveTraffic, tested in test_model.cpp) and
//    latency steps written out from the algorithms (expectedSteps);
//  - brute force over every chunk count;
//  - closed-form optima (Lagrange) and the other solver backend.
//
// Tolerances: schedules built from integers are exact in binary floating point
// (EXPECT_DOUBLE_EQ); sums of a few dozen rounded terms are compared at 1e-12
// relative; solver answers at 1e-6 relative for bandwidths and backend agreement
// (as in test_solver.cpp) and 1e-8 for objectives with a closed form.
//
// Case counts (rc_support.hpp): cheap schedule properties 200-500 cases,
// brute force over 1024 chunk counts 200 (flow shops) or 40 (shared queues),
// solves 50 (IPOPT, no shrinking) to 100. RC_PARAMS="max_success=N" overrides.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "collective_test_support.hpp"
#include "engine_test_support.hpp"
#include "generators.hpp"
#include "libra/analysis.hpp"
#include "libra/collective_model.hpp"
#include "rc_support.hpp"
#include "regressions.hpp"

namespace libra {
namespace {

using test::checkProperty;
using test::CollectiveOptions;
using test::contains;
using test::exactNumber;
using test::genCollective;
using test::genIndex;
using test::genLogUniform;
using test::genProblem;
using test::genUniform;
using test::kBackends;
using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using test::ProblemOptions;
using test::RandomCollective;
using test::RandomProblem;
using test::relNear;
using test::thrownMessage;
using test::vecRelNear;
using test::withBackend;

using test::relDiff;

Dimension dimWithLatency(BuildingBlock block, int npus, double latencyNs, std::string level = "A") {
  static int counter = 0;
  Dimension d = makeDim("d" + std::to_string(counter++), block, npus, std::move(level));
  d.latencyNs = latencyNs;
  return d;
}

Network networkOf(std::vector<Dimension> dims) {
  Network n;
  n.dims = std::move(dims);
  for (int d = 0; d < n.size(); ++d) n.dims[d].name = "d" + std::to_string(d);
  return n;
}

// ---------------------------------------------------------------------------
// Schedule::time: closed forms and hand-computed schedules
// ---------------------------------------------------------------------------

// Three stages on three different dimensions (no shared queue), built by hand:
//   stage 0: dim 0, latency 10, 400 B, bw 2  -> P0 = 10 + 400 / (C 2)
//   stage 1: dim 1, latency 5, 1200 B, bw 4  -> P1 = 5 + 1200 / (C 4)
//   stage 2: dim 2, latency 0, 800 B,  bw 1  -> P2 = 800 / C
// C = 4: P = (60, 80, 200), T = 340 + 3 * 200 = 940.
// C = 1: P = (210, 305, 800), T = 1315 (the sum).
// C = 2: P = (110, 155, 400), T = 665 + 400 = 1065.
TEST(ScheduleTime, FlowShopMatchesTheClosedForm) {
  Schedule s;
  s.stages = {{0, 10, 400}, {1, 5, 1200}, {2, 0, 800}};
  const std::vector<double> bw{2, 4, 1};
  EXPECT_DOUBLE_EQ(s.time(bw, 4), 940);
  EXPECT_DOUBLE_EQ(s.time(bw, 1), 1315);
  EXPECT_DOUBLE_EQ(s.time(bw, 2), 1065);
  // The same stages in another order give the same time (a flow shop of
  // identical jobs is symmetric in its stage order).
  Schedule reversed;
  reversed.stages = {s.stages[2], s.stages[1], s.stages[0]};
  EXPECT_DOUBLE_EQ(reversed.time(bw, 4), 940);
}

// A Reduce-Scatter through collectiveStages: S = 1.6e6 over Ring(4, 100 ns) and
// FullyConnected(5, 40 ns), bw (150, 80), C = 8:
//   dim 0: bytes 1.6e6 * 3/4 = 1.2e6, latency 3 * 100 = 300, P0 = 300 + 1.2e6 / 1200 = 1300
//   dim 1: s = 4e5; bytes 4e5 * 4/5 = 3.2e5, latency 1 * 40, P1 = 40 + 3.2e5 / 640 = 540
//   T = 1840 + 7 * 1300 = 10940.
TEST(ScheduleTime, ReduceScatterIsAFlowShop) {
  const Network net = networkOf({dimWithLatency(BuildingBlock::Ring, 4, 100),
                                 dimWithLatency(BuildingBlock::FullyConnected, 5, 40)});
  const std::vector<int> groups{4, 5};
  Schedule s;
  s.stages = collectiveStages(CollectiveType::ReduceScatter, 1.6e6, groups, net);
  ASSERT_EQ(s.stages.size(), 2u);
  EXPECT_DOUBLE_EQ(s.time(std::vector<double>{150, 80}, 8), 10940);
}

// An All-Reduce over three dimensions (five stages, dims 0 and 1 shared): with
// C = 1 there is nothing to overlap, the time is the sum of the stages.
// S = 8e6 over Ring(4, 10 ns), FullyConnected(2, 20 ns), Switch(8, 30 ns), bw (100, 50, 25):
//   RS dim 0: 8e6 * 3/4 = 6e6 B,       latency 3 * 10 = 30,          60030 ns
//   RS dim 1: s = 2e6, 2e6 / 2 = 1e6,  latency 1 * 20 = 20,          20020 ns
//   AR dim 2: s = 1e6, 2e6 * 7/8 = 1.75e6, latency 4 * 3 * 30 = 360, 70360 ns
//   AG dim 1: 20020, AG dim 0: 60030.   Sum = 230460 ns.
TEST(ScheduleTime, OneChunkIsTheSumOfTheStages) {
  const Network net = networkOf({dimWithLatency(BuildingBlock::Ring, 4, 10),
                                 dimWithLatency(BuildingBlock::FullyConnected, 2, 20),
                                 dimWithLatency(BuildingBlock::Switch, 8, 30)});
  const std::vector<int> groups{4, 2, 8};
  Schedule s;
  s.stages = collectiveStages(CollectiveType::AllReduce, 8e6, groups, net);
  const std::vector<Stage> expected{
      {0, 30, 6e6}, {1, 20, 1e6}, {2, 360, 1.75e6}, {1, 20, 1e6}, {0, 30, 6e6}};
  EXPECT_EQ(s.stages, expected);
  const std::vector<double> bw{100, 50, 25};
  EXPECT_DOUBLE_EQ(s.time(bw, 1), 230460);
  // The convex form with one chunk is the same sum (no pipelined part).
  const TimeTerm term = chunkedTerm(s, 1);
  EXPECT_TRUE(term.pipelined.empty());
  EXPECT_DOUBLE_EQ(term.value(bw), 230460);
  EXPECT_DOUBLE_EQ(term.exact(bw), 230460);
}

// Random schedules with C = 1: the time is the sum of the stage durations
// (written out here from Stage's definition), shared queues or not.
TEST(ScheduleTime, OneChunkIsTheSumOfTheStagesOnRandomCollectives) {
  checkProperty(300, [] {
    RandomCollective r = *genCollective();
    r.chunks = 1;
    const std::vector<Stage> stages = r.stages();
    double sum = 0;
    for (double p : test::stageDurations(stages, r.bw, 1)) sum += p;
    RC_ASSERT(relNear(r.schedule().time(r.bw, 1), sum, 1e-12));
  });
}

// Without a shared dimension (Reduce-Scatter, All-Gather, All-to-All, a one-
// dimension All-Reduce) the time is the flow-shop closed form, and the surrogate
// equals it: sum of one chunk's stages + (C - 1) x the slowest stage.
TEST(ScheduleTime, WithoutSharedQueuesTheTimeIsTheFlowShopFormula) {
  checkProperty(500, [] {
    const RandomCollective r = *genCollective();
    const Schedule s = r.schedule();
    RC_PRE(!test::sharesADimension(s.stages));
    RC_TAG(toString(r.type));
    const double expected =
        test::flowShopTime(test::stageDurations(s.stages, r.bw, r.chunks), r.chunks);
    RC_ASSERT(relNear(s.time(r.bw, r.chunks), expected, 1e-12));
    RC_ASSERT(relNear(chunkedTerm(s, r.chunks).value(r.bw), expected, 1e-12));
  });
}

// The shared queue, by hand. All-Reduce of S = 12 B over Ring(2) x Ring(2), no
// latency, C = 2. Stages: RS on dim 0 (S/2 = 6 B), AR on dim 1 (2 (S/2)(1/2) = 6 B),
// AG on dim 0 (6 B); each chunk carries 3 B per stage.
//
// bw = (1, 3): p0 = 3 (RS and AG), p1 = 1 (AR).
//   t=0  dim 0 queue [RS c0, RS c1]; RS c0 runs [0, 3]
//   t=3  AR c0 on dim 1 [3, 4]; RS c1 on dim 0 [3, 6]
//   t=4  AG c0 joins dim 0's queue (dim 0 busy until 6)
//   t=6  AR c1 on dim 1 [6, 7]; AG c0 on dim 0 [6, 9]
//   t=7  AG c1 joins dim 0's queue
//   t=9  AG c1 on dim 0 [9, 12]                                  -> T = 12
// (The surrogate: one chunk 3 + 1 + 3 = 7, plus (C - 1) x the busiest
// dimension per chunk, dim 0 with 6: 13 >= 12.)
//
// bw = (3, 1): p0 = 1, p1 = 3.
//   t=0  RS c0 on dim 0 [0, 1]
//   t=1  AR c0 on dim 1 [1, 4]; RS c1 on dim 0 [1, 2]
//   t=2  AR c1 waits for dim 1 (busy until 4); dim 0 idle
//   t=4  AG c0 on dim 0 [4, 5]; AR c1 on dim 1 [4, 7]
//   t=7  AG c1 on dim 0 [7, 8]                                   -> T = 8
// (The surrogate: 1 + 3 + 1 = 5, plus dim 1's 3: 8, tight.)
TEST(SharedQueue, TwoDimensionAllReduceWithTwoChunksByHand) {
  const Network net = networkOf(
      {dimWithLatency(BuildingBlock::Ring, 2, 0), dimWithLatency(BuildingBlock::Ring, 2, 0)});
  const std::vector<int> groups{2, 2};
  Schedule s;
  s.stages = collectiveStages(CollectiveType::AllReduce, 12, groups, net);
  const std::vector<Stage> expected{{0, 0, 6}, {1, 0, 6}, {0, 0, 6}};
  ASSERT_EQ(s.stages, expected);
  EXPECT_DOUBLE_EQ(s.time(std::vector<double>{1, 3}, 2), 12);
  EXPECT_DOUBLE_EQ(s.time(std::vector<double>{3, 1}, 2), 8);
  EXPECT_DOUBLE_EQ(chunkedTerm(s, 2).value(std::vector<double>{1, 3}), 13);
  EXPECT_DOUBLE_EQ(chunkedTerm(s, 2).value(std::vector<double>{3, 1}), 8);
  // The independent simulation agrees.
  EXPECT_DOUBLE_EQ(test::simulateSchedule(s.stages, {1, 3}, 2), 12);
  EXPECT_DOUBLE_EQ(test::simulateSchedule(s.stages, {3, 1}, 2), 8);
}

// The same two schedules with the stage times made of latency and transfer:
// stage (latency 1, 4 B) at bw 1 with C = 2 takes 1 + 2 = 3; (latency 0.5, 1 B)
// at bw 1 takes 0.5 + 0.5 = 1.
TEST(SharedQueue, TwoDimensionAllReduceWithLatencyByHand) {
  Schedule slowInner;
  slowInner.stages = {{0, 1, 4}, {1, 0.5, 1}, {0, 1, 4}};
  EXPECT_DOUBLE_EQ(slowInner.time(std::vector<double>{1, 1}, 2), 12);
  Schedule slowOuter;
  slowOuter.stages = {{0, 0.5, 1}, {1, 1, 4}, {0, 0.5, 1}};
  EXPECT_DOUBLE_EQ(slowOuter.time(std::vector<double>{1, 1}, 2), 8);
}

// FIFO matters: with three chunks and p0 = 3, p1 = 1 every Reduce-Scatter is
// queued at t = 0 ahead of every All-Gather, so dim 0 runs RS c0, c1, c2 over
// [0, 9] and then AG c0, c1, c2 over [9, 18]: T = 18 = 2 C p0 (dim 0 never idles).
// With C = 3 and p0 = 1, p1 = 3: AR ends at 4, 7, 10, AG c_i runs right after
// (dim 0 is idle from t = 3): T = 11 = 2 p0 + C p1.
TEST(SharedQueue, ReduceScattersQueuedAtTheStartGoFirst) {
  const Network net = networkOf(
      {dimWithLatency(BuildingBlock::Ring, 2, 0), dimWithLatency(BuildingBlock::Ring, 2, 0)});
  Schedule s;
  s.stages = collectiveStages(CollectiveType::AllReduce, 18, std::vector<int>{2, 2}, net);
  // 9 B per stage, 3 B per chunk.
  EXPECT_DOUBLE_EQ(s.time(std::vector<double>{1, 3}, 3), 18);
  EXPECT_DOUBLE_EQ(s.time(std::vector<double>{3, 1}, 3), 11);
}

// Schedule::time against the independent simulation on random collectives
// (shared queues about half the time). Both compute every start as the same
// max of the same sums, so they agree to rounding; 1e-12 relative.
TEST(ScheduleTime, MatchesAnIndependentSimulation) {
  checkProperty(300, [] {
    const RandomCollective r = *genCollective();
    const Schedule s = r.schedule();
    RC_TAG(test::sharesADimension(s.stages) ? "shared queue" : "flow shop");
    const double reference = test::simulateSchedule(s.stages, r.bw, r.chunks);
    RC_ASSERT(relNear(s.time(r.bw, r.chunks), reference, 1e-12));
  });
}

// Schedule::time keeps its last few simulations (a Pareto scan asks for the
// same point more than once): a remembered answer must never stand in for a
// different question. Asked in turn at the design, at another bandwidth on one
// dimension, at another chunk count, for another collective and at the design
// again, every answer is the independent simulation's.
TEST(ScheduleTime, RememberedAnswersNeverGoStale) {
  checkProperty(200, [] {
    const RandomCollective r = *genCollective();
    const RandomCollective other = *genCollective();
    const Schedule s = r.schedule();
    const Schedule t = other.schedule();
    RC_PRE(test::sharesADimension(s.stages));
    std::vector<double> moved = r.bw;
    const int dim = s.stages[*rc::gen::inRange<std::size_t>(0, s.stages.size())].dim;
    moved[dim] *= *rc::gen::element(0.5, 1.0 + 1e-9, 2.0);
    const int chunks = r.chunks + *rc::gen::inRange(1, 4);
    for (int round = 0; round < 2; ++round) {
      RC_ASSERT(
          relNear(s.time(r.bw, r.chunks), test::simulateSchedule(s.stages, r.bw, r.chunks), 1e-12));
      RC_ASSERT(relNear(s.time(moved, r.chunks), test::simulateSchedule(s.stages, moved, r.chunks),
                        1e-12));
      RC_ASSERT(
          relNear(s.time(r.bw, chunks), test::simulateSchedule(s.stages, r.bw, chunks), 1e-12));
      RC_ASSERT(relNear(t.time(other.bw, other.chunks),
                        test::simulateSchedule(t.stages, other.bw, other.chunks), 1e-12));
    }
  });
}

// With no latency and many chunks a multi-dimension All-Reduce approaches
// LIBRA's max_d V_d / bw_d =: M. Bounds: every dimension must move all of its
// traffic, so T >= M; and the surrogate gives T <= M + (Sum - M) / C with Sum =
// sum_d V_d / bw_d (one chunk's stages take Sum / C, each further chunk adds the
// busiest dimension's M / C). So 0 <= T / M - 1 <= (Sum / M - 1) / C < (Sum / M) / C.
TEST(ScheduleTime, ManyChunksWithoutLatencyApproachLibra) {
  checkProperty(200, [] {
    CollectiveOptions opt;
    opt.latency = false;
    opt.sharedOnly = true;
    opt.maxChunks = kMaxChunks;
    RandomCollective r = *genCollective(opt);
    r.chunks = *genIndex(64, kMaxChunks + 1);
    // LIBRA's bound with each dimension's bandwidth as the group's placement
    // leaves it (placementShare).
    const std::vector<double> v = collectiveTraffic(r.type, r.sizeBytes, r.groups);
    double M = 0, sum = 0;
    for (int d = 0; d < r.network.size(); ++d) {
      if (v[d] <= 0) continue;
      const double bw = r.bw[d] * placementShare(r.network.dims[d], r.type, r.groups[d], 1);
      M = std::max(M, v[d] / bw), sum += v[d] / bw;
    }
    const double t = r.schedule().time(r.bw, r.chunks);
    RC_LOG() << "T / M - 1 = " << t / M - 1 << ", bound " << (sum / M - 1) / r.chunks << "\n";
    RC_ASSERT(t >= M * (1 - 1e-12));
    RC_ASSERT(t <= M * (1 + (sum / M - 1) / r.chunks) * (1 + 1e-12));
  });
}

TEST(ScheduleTime, ManyChunksOnAFixedAllReduce) {
  // Ring(4) x FC(8) x Switch(16), S = 1e9, bw (300, 200, 100), no latency:
  //   V = (1.5e9, 4.375e8, 5.859375e7) -> V / bw = (5e6, 2.1875e6, 585937.5)
  //   M = 5e6, Sum = 7773437.5; bound on T / M - 1 for C = 1024: 5.4e-4.
  const Network net = networkOf({dimWithLatency(BuildingBlock::Ring, 4, 0),
                                 dimWithLatency(BuildingBlock::FullyConnected, 8, 0),
                                 dimWithLatency(BuildingBlock::Switch, 16, 0)});
  Schedule s;
  s.stages = collectiveStages(CollectiveType::AllReduce, 1e9, std::vector<int>{4, 8, 16}, net);
  const std::vector<double> bw{300, 200, 100};
  const double M = 5e6, sum = 7773437.5;
  for (int c : {1, 2, 16, 256, 1024}) {
    SCOPED_TRACE(c);
    const double t = s.time(bw, c);
    EXPECT_GE(t, M);
    EXPECT_LE(t, M + (sum - M) / c + 1e-6);
  }
  EXPECT_DOUBLE_EQ(s.time(bw, 1), sum);
}

TEST(ScheduleTime, NoBandwidthOnAUsedDimensionIsInfinite) {
  Schedule s;
  s.stages = {{0, 10, 100}, {1, 10, 100}, {0, 10, 100}};
  EXPECT_EQ(s.time(std::vector<double>{0, 1}, 4), std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.time(std::vector<double>{1, 0}, 1), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Schedule{}.time(std::vector<double>{1}, 3), 0);
}

// ---------------------------------------------------------------------------
// collectiveStages and latencySteps
// ---------------------------------------------------------------------------

// The bytes of each dimension's stages add up to LIBRA's traffic V_d (model.md
// section 4), for all four collectives; 1e-12 relative (a few roundings).
// The bytes of a dimension's stages are LIBRA's traffic V_d over the share of
// the dimension the group's placement leaves it (1 for a whole dimension).
TEST(CollectiveStages, BytesPerDimensionAreLibrasTraffic) {
  checkProperty(500, [] {
    const RandomCollective r = *genCollective();
    RC_TAG(toString(r.type));
    const std::vector<double> v = collectiveTraffic(r.type, r.sizeBytes, r.groups);
    std::vector<double> bytes(r.network.size(), 0.0);
    for (const Stage& s : r.stages()) bytes[s.dim] += s.bytes;
    for (int d = 0; d < r.network.size(); ++d) {
      if (v[d] == 0) {
        RC_ASSERT(bytes[d] == 0);
      } else {
        // Over the share of the dimension the group's placement leaves it.
        const double share = placementShare(r.network.dims[d], r.type, r.groups[d], 1);
        RC_ASSERT(relNear(bytes[d], v[d] / share, 1e-12));
      }
    }
  });
}

// Stage order (model.md section 4 and collective_model.hpp) and latency =
// steps x link latency, with the steps from the algorithms (expectedSteps).
TEST(CollectiveStages, OrderAndLatencyFollowTheAlgorithm) {
  checkProperty(500, [] {
    const RandomCollective r = *genCollective();
    RC_TAG(toString(r.type));
    std::vector<int> used;
    for (int d = 0; d < r.network.size(); ++d) {
      if (r.groups[d] > 1) used.push_back(d);
    }
    // (dim, kind) expected in order.
    std::vector<std::pair<int, CollectiveType>> order;
    const int m = static_cast<int>(used.size());
    switch (r.type) {
      case CollectiveType::AllReduce:
        for (int i = 0; i + 1 < m; ++i) order.emplace_back(used[i], CollectiveType::ReduceScatter);
        order.emplace_back(used[m - 1], CollectiveType::AllReduce);
        for (int i = m - 2; i >= 0; --i) order.emplace_back(used[i], CollectiveType::AllGather);
        break;
      case CollectiveType::ReduceScatter:
        for (int d : used) order.emplace_back(d, CollectiveType::ReduceScatter);
        break;
      case CollectiveType::AllGather:
        for (int i = m - 1; i >= 0; --i) order.emplace_back(used[i], CollectiveType::AllGather);
        break;
      default:
        for (int d : used) order.emplace_back(d, CollectiveType::AllToAll);
        break;
    }
    const std::vector<Stage> stages = r.stages();
    RC_ASSERT(stages.size() == order.size());
    for (std::size_t k = 0; k < stages.size(); ++k) {
      const auto [d, kind] = order[k];
      RC_ASSERT(stages[k].dim == d);
      const Dimension& dim = r.network.dims[d];
      const double latency = test::expectedSteps(dim.block, kind, r.groups[d]) *
                             placementHops(dim, r.type, r.groups[d], 1) * dim.latencyNs;
      RC_ASSERT(relNear(stages[k].latencyNs, latency, 1e-12));
      RC_ASSERT(stages[k].bytes > 0);
    }
    // An All-Reduce's Reduce-Scatter and All-Gather on a dimension take the same
    // time (bytes and latency). The surrogate's upper bound (Surrogate tests
    // below) rests on it: with unequal RS / AG stages on a shared queue, random
    // search finds schedules whose surrogate is 0.52 x the exact time.
    if (r.type == CollectiveType::AllReduce) {
      for (int i = 0; i + 1 < m; ++i) {
        RC_ASSERT(stages[i].bytes == stages[2 * (m - 1) - i].bytes);
        RC_ASSERT(stages[i].latencyNs == stages[2 * (m - 1) - i].latencyNs);
      }
    }
  });
}

TEST(CollectiveStages, NothingToMoveGivesNoStages) {
  const Network net = networkOf(
      {dimWithLatency(BuildingBlock::Ring, 4, 100), dimWithLatency(BuildingBlock::Switch, 8, 100)});
  const std::vector<int> full{4, 8}, none{1, 1};
  EXPECT_TRUE(collectiveStages(CollectiveType::None, 1e6, full, net).empty());
  EXPECT_TRUE(collectiveStages(CollectiveType::AllReduce, 0, full, net).empty());
  EXPECT_TRUE(collectiveStages(CollectiveType::AllToAll, 1e6, none, net).empty());
  CollectiveModel chunked;
  chunked.chunks = ChunkSetting::fixed(8);
  EXPECT_TRUE(collectiveTerm(CollectiveType::AllReduce, 1e6, none, net, chunked).empty());
  EXPECT_TRUE(collectiveTerm(CollectiveType::AllReduce, 0, full, net, chunked).empty());
}

// A one-dimension All-Reduce is a single AR stage (no Reduce-Scatter / All-Gather).
TEST(CollectiveStages, SingleUsedDimensionAllReduce) {
  const Network net = networkOf(
      {dimWithLatency(BuildingBlock::Ring, 4, 100), dimWithLatency(BuildingBlock::Switch, 8, 7)});
  // 2 * 1e6 * 7/8 = 1.75e6 B; 4 * ceil(log2 8) = 12 steps of 7 ns = 84.
  const auto stages = collectiveStages(CollectiveType::AllReduce, 1e6, std::vector<int>{1, 8}, net);
  EXPECT_EQ(stages, (std::vector<Stage>{{1, 84, 1.75e6}}));
}

// latencySteps against the formulas, for n = 1..300. Hand values first:
//   Ring n = 8: AR 14, RS / AG 7, All-to-All 1+2+3+4+3+2+1 = 16;
//   Ring n = 5: All-to-All 1+2+2+1 = 6;  FC: 2 / 1 / 1 / 1;
//   Switch n = 8: AR 12, RS 6, All-to-All 14;  n = 9: AR 16, RS 8 (ceil(log2 9) = 4).
TEST(LatencySteps, MatchTheAlgorithms) {
  using B = BuildingBlock;
  using T = CollectiveType;
  EXPECT_EQ(latencySteps(B::Ring, T::AllReduce, 8), 14);
  EXPECT_EQ(latencySteps(B::Ring, T::ReduceScatter, 8), 7);
  EXPECT_EQ(latencySteps(B::Ring, T::AllGather, 8), 7);
  EXPECT_EQ(latencySteps(B::Ring, T::AllToAll, 8), 16);
  EXPECT_EQ(latencySteps(B::Ring, T::AllToAll, 5), 6);
  EXPECT_EQ(latencySteps(B::FullyConnected, T::AllReduce, 8), 2);
  EXPECT_EQ(latencySteps(B::FullyConnected, T::ReduceScatter, 8), 1);
  EXPECT_EQ(latencySteps(B::FullyConnected, T::AllGather, 8), 1);
  EXPECT_EQ(latencySteps(B::FullyConnected, T::AllToAll, 8), 1);
  EXPECT_EQ(latencySteps(B::Switch, T::AllReduce, 8), 12);
  EXPECT_EQ(latencySteps(B::Switch, T::ReduceScatter, 8), 6);
  EXPECT_EQ(latencySteps(B::Switch, T::AllToAll, 8), 14);
  EXPECT_EQ(latencySteps(B::Switch, T::AllReduce, 9), 16);
  EXPECT_EQ(latencySteps(B::Switch, T::AllGather, 9), 8);
  for (B block : {B::Ring, B::FullyConnected, B::Switch}) {
    for (T kind : {T::AllReduce, T::ReduceScatter, T::AllGather, T::AllToAll}) {
      for (int n = 1; n <= 300; ++n) {
        SCOPED_TRACE(std::string(toString(block)) + " " + std::string(toString(kind)) +
                     " n=" + std::to_string(n));
        EXPECT_EQ(latencySteps(block, kind, n), test::expectedSteps(block, kind, n));
        if (block == B::Ring && kind == T::AllToAll) {  // the sum itself, not floor(n^2/4)
          double hops = 0;
          for (int j = 1; j < n; ++j) hops += std::min(j, n - j);
          EXPECT_EQ(latencySteps(block, kind, n), hops);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// ChunkSetting
// ---------------------------------------------------------------------------

TEST(ChunkSetting, ParsesIdealAutoAndCounts) {
  EXPECT_EQ(parseChunkSetting("ideal"), ChunkSetting::ideal());
  EXPECT_EQ(parseChunkSetting("auto"), ChunkSetting::automatic());
  EXPECT_EQ(parseChunkSetting("1"), ChunkSetting::fixed(1));
  EXPECT_EQ(parseChunkSetting("1024"), ChunkSetting::fixed(1024));
  EXPECT_EQ(parseChunkSetting(" 16 "), ChunkSetting::fixed(16));
  EXPECT_EQ(kMaxChunks, 1024);
}

TEST(ChunkSetting, RefusesEverythingElse) {
  for (const char* text :
       {"0", "1025", "-3", "1.5", "", " ", "many", "16x", "1e3", "0x10", "99999999999999999999"}) {
    EXPECT_EQ(parseChunkSetting(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(ChunkSetting, ToStringRoundTrips) {
  EXPECT_EQ(ChunkSetting::ideal().toString(), "ideal");
  EXPECT_EQ(ChunkSetting::automatic().toString(), "auto");
  EXPECT_EQ(ChunkSetting::fixed(16).toString(), "16");
  EXPECT_EQ(parseChunkSetting(ChunkSetting::ideal().toString()), ChunkSetting::ideal());
  EXPECT_EQ(parseChunkSetting(ChunkSetting::automatic().toString()), ChunkSetting::automatic());
  for (int c = 1; c <= kMaxChunks; ++c) {
    EXPECT_EQ(parseChunkSetting(ChunkSetting::fixed(c).toString()), ChunkSetting::fixed(c)) << c;
  }
}

// ---------------------------------------------------------------------------
// The convex surrogate and the chunk count of "auto"
// ---------------------------------------------------------------------------

// The surrogate the solvers minimize, chunkedTerm(...).value(), bounds the exact
// time from above. A property that can fail: it is exact for flow shops (proved
// by the formula), but for a shared queue (All-Reduce over >= 2 dimensions) the
// FIFO order can make a dimension idle while chunks wait elsewhere; the bound
// says this never costs more than (C - 1) x the busiest dimension's per-chunk load
// on top of one chunk's path. 1e-12 relative for rounding.
TEST(Surrogate, IsAnUpperBoundOfTheExactTime) {
  checkProperty(500, [] {
    const RandomCollective r = *genCollective();
    const Schedule s = r.schedule();
    RC_TAG(test::sharesADimension(s.stages) ? "shared queue" : "flow shop");
    const double exact = s.time(r.bw, r.chunks);
    const double surrogate = chunkedTerm(s, r.chunks).value(r.bw);
    RC_LOG() << "exact " << exactNumber(exact) << ", surrogate " << exactNumber(surrogate) << "\n";
    RC_ASSERT(surrogate >= exact * (1 - 1e-12));
  });
}

// The same on shared-queue schedules only, where it is not a consequence of the
// closed form.
TEST(Surrogate, IsAnUpperBoundOnSharedQueues) {
  checkProperty(500, [] {
    CollectiveOptions opt;
    opt.sharedOnly = true;
    const RandomCollective r = *genCollective(opt);
    const Schedule s = r.schedule();
    const double exact = s.time(r.bw, r.chunks);
    const double surrogate = chunkedTerm(s, r.chunks).value(r.bw);
    RC_LOG() << "exact " << exactNumber(exact) << ", surrogate " << exactNumber(surrogate) << "\n";
    RC_ASSERT(surrogate >= exact * (1 - 1e-12));
  });
}

// The parts of chunkedTerm as documented: serial = each stage of one chunk,
// pipelined = (C - 1) x each dimension's per-chunk load, occupancy = C x that.
TEST(Surrogate, ChunkedTermByHand) {
  Schedule s;
  s.stages = {{0, 1, 40}, {1, 2, 80}, {0, 1, 40}};
  const TimeTerm t = chunkedTerm(s, 4);
  EXPECT_EQ(t.serial, (std::vector<DimTime>{{0, 1, 10}, {1, 2, 20}, {0, 1, 10}}));
  EXPECT_EQ(t.pipelined, (std::vector<DimTime>{{0, 6, 60}, {1, 6, 60}}));
  EXPECT_EQ(t.occupancy, (std::vector<DimTime>{{0, 8, 80}, {1, 8, 80}}));
  ASSERT_TRUE(t.schedule.has_value());
  EXPECT_EQ(t.schedule->chunks, 4);
  // bw (10, 20): serial 2 + 3 + 2 = 7; pipelined max(6 + 6, 6 + 3) = 12 -> 19.
  EXPECT_DOUBLE_EQ(t.value(std::vector<double>{10, 20}), 19);
  EXPECT_TRUE(t.uses(0));
  EXPECT_TRUE(t.uses(1));
  EXPECT_FALSE(t.uses(2));
}

// Brute force over every count 1..kMaxChunks, flow shops: bestChunks finds the
// best exact time within 1e-9 relative (the surrogate is the exact time there,
// and convex in C).
TEST(BestChunks, IsTheBruteForceBestOnFlowShops) {
  checkProperty(200, [] {
    const RandomCollective r = *genCollective();
    const Schedule s = r.schedule();
    RC_PRE(!test::sharesADimension(s.stages));
    double best = std::numeric_limits<double>::infinity();
    for (int c = 1; c <= kMaxChunks; ++c) best = std::min(best, s.time(r.bw, c));
    const int chosen = s.bestChunks(r.bw);
    RC_ASSERT(chosen >= 1 && chosen <= kMaxChunks);
    RC_ASSERT(s.time(r.bw, chosen) <= best * (1 + 1e-9));
  });
}

// The same with shared queues: the ternary search minimizes the surrogate f,
// whose minimizer C_s can lie away from the exact time's (the exact time is not
// the surrogate there), and only C_s and C_s +- 1 are tried exactly. So the
// brute-force best C* is not always found. Measured: over 23000 random
// All-Reduces over 2-4 dimensions (latency 0 or 1..3000 ns per dimension, bw
// 1..1000 GB/s, 1 kB..10 GB) about 1 in 3 miss it by more than 1e-9, the worst
// at 1.130 x (chose 5, best 3); a hill climb on the parameters found 1.202 x
// (chose 6, best 3).
//
// Asserted: a bound that follows from the surrogate's: with P the time of one
// chunk's stages and L the busiest dimension's per-chunk load at C*, the exact
// time at C* is at least P and at least C* L, so
//   T(chosen) <= T(C_s) <= f(C_s) <= f(C*) = P + (C* - 1) L <= (2 - 1 / C*) T(C*).
TEST(BestChunks, IsWithinTheSurrogatesBoundOfTheBruteForceBestOnSharedQueues) {
  checkProperty(40, [] {
    CollectiveOptions opt;
    opt.sharedOnly = true;
    const RandomCollective r = *genCollective(opt);
    const Schedule s = r.schedule();
    double best = std::numeric_limits<double>::infinity();
    int bestCount = 1;
    for (int c = 1; c <= kMaxChunks; ++c) {
      const double t = s.time(r.bw, c);
      if (t < best) best = t, bestCount = c;
    }
    const int chosen = s.bestChunks(r.bw);
    const double ratio = s.time(r.bw, chosen) / best;
    RC_TAG(ratio <= 1 + 1e-9 ? "brute-force best" : "worse than the brute-force best");
    RC_LOG() << "chose " << chosen << " at " << exactNumber(ratio) << " x the time of " << bestCount
             << "\n";
    RC_ASSERT(ratio <= (2 - 1.0 / bestCount) * (1 + 1e-12));
    RC_ASSERT(s.time(r.bw, chosen) <= s.time(r.bw, 1) * (1 + 1e-12));
  });
}

// "auto": exact() takes the chosen count, fixedAt() turns the term into the fixed
// term of that count.
TEST(BestChunks, AutoTermsResolveToTheChosenCount) {
  const Network net = networkOf({dimWithLatency(BuildingBlock::Ring, 8, 500),
                                 dimWithLatency(BuildingBlock::Switch, 16, 936.25)});
  CollectiveModel model;
  model.chunks = ChunkSetting::automatic();
  const std::vector<int> groups{8, 16};
  const TimeTerm term = collectiveTerm(CollectiveType::AllReduce, 1e8, groups, net, model);
  ASSERT_TRUE(term.automatic());
  const std::vector<double> bw{400, 100};
  const int c = term.schedule->bestChunks(bw);
  EXPECT_DOUBLE_EQ(term.exact(bw), term.schedule->time(bw, c));
  const TimeTerm fixed = term.fixedAt(bw);
  EXPECT_FALSE(fixed.automatic());
  Schedule expectedSchedule = *term.schedule;
  expectedSchedule.automatic = false;
  EXPECT_EQ(fixed, chunkedTerm(expectedSchedule, c));
  // A fixed or ideal term is its own fixedAt.
  EXPECT_EQ(fixed.fixedAt(bw), fixed);
  const TimeTerm ideal = collectiveTerm(CollectiveType::AllReduce, 1e8, groups, net, {});
  EXPECT_FALSE(ideal.schedule.has_value());
  EXPECT_EQ(ideal.fixedAt(bw), ideal);
}

// ---------------------------------------------------------------------------
// The time model and the solvers with a chunked model
// ---------------------------------------------------------------------------

// Levels: A link 2, B link 3.
CostModel costModel() {
  return test::makeCostModel({{"A", CostLevel{2.0, std::nullopt, std::nullopt}},
                              {"B", CostLevel{3.0, std::nullopt, std::nullopt}}});
}

// pkg Ring(4, 100 ns), node FullyConnected(8, 200 ns); one weight-gradient
// All-Reduce of 1e6 B over both; compute 1000 + 2000 + 3000 ns; total == 500.
//   V0 = 2e6 * 3/4 = 1.5e6 (RS 7.5e5 + AG 7.5e5 on pkg), V1 = 2 * 2.5e5 * 7/8 = 437500.
//   latency: RS 3 * 100 + AR 2 * 200 + AG 3 * 100 = 1000 ns per chunk.
Project twoDimProject(ChunkSetting chunks) {
  Network net;
  net.dims = {makeDim("pkg", BuildingBlock::Ring, 4, "A"),
              makeDim("node", BuildingBlock::FullyConnected, 8, "B")};
  net.dims[0].latencyNs = 100;
  net.dims[1].latencyNs = 200;
  Workload w;
  w.name = "one all-reduce";
  w.communicator = makeCommunicator({1, 1}, {1, 1}, {4, 8});
  w.layers = {makeLayer("L", makePhase(1000), makePhase(2000),
                        makePhase(3000, CollectiveType::AllReduce, 1e6))};
  Project p = test::makeProject(net, costModel(), {w}, TrainingLoop::NoOverlap, {"total == 500"});
  p.model.collectives.chunks = chunks;
  return p;
}

// With C = 1 the stages run one after another: T = 6000 + 1000 + V0 / b0 + V1 / b1.
// Under b0 + b1 = B, Lagrange: V_d / b_d^2 = lambda, so b_d = B sqrt(V_d) / sum sqrt(V)
// and T = 7000 + (sum sqrt V)^2 / B -- not LIBRA's b_d = B V_d / sum V, which the
// ideal model gives on the same problem (T = 6000 + sum V / B).
TEST(ChunkedSolver, OneChunkFollowsTheSquareRootRule) {
  const double V0 = 1.5e6, V1 = 437500, B = 500;
  const double root = std::sqrt(V0) + std::sqrt(V1);
  const std::vector<double> expected{B * std::sqrt(V0) / root, B * std::sqrt(V1) / root};
  const Problem p = buildProblem(twoDimProject(ChunkSetting::fixed(1)));
  for (Backend b : kBackends) {
    SCOPED_TRACE(toString(b));
    const Solution s = solve(p, Objective::Performance, withBackend(b));
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_TRUE(vecRelNear(s.bandwidth, expected, 1e-6)) << test::formatVector(s.bandwidth);
    EXPECT_TRUE(relNear(s.eval.iterationNs, 7000 + root * root / B, 1e-8));
    EXPECT_TRUE(relNear(s.eval.surrogateIterationNs, s.eval.iterationNs, 1e-12));
  }
  const Problem ideal = buildProblem(twoDimProject(ChunkSetting::ideal()));
  const std::vector<double> proportional{B * V0 / (V0 + V1), B * V1 / (V0 + V1)};
  for (Backend b : kBackends) {
    SCOPED_TRACE(toString(b));
    const Solution s = solve(ideal, Objective::Performance, withBackend(b));
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_TRUE(vecRelNear(s.bandwidth, proportional, 1e-6)) << test::formatVector(s.bandwidth);
    EXPECT_TRUE(relNear(s.eval.iterationNs, 6000 + (V0 + V1) / B, 1e-8));
  }
}

// TimeModel::evaluate reports the exact schedule and the surrogate beside it:
// at bw (250, 250) with C = 2, per chunk the stages take
//   RS pkg 100 * 3 + 7.5e5 / 500 = 1800, AR node 400 + 437500 / 500 = 1275, AG pkg 1800;
// p0 = 1800 >= p1, so (as in SharedQueue above) T = 2 C p0 = 7200, and the
// surrogate = 1800 + 1275 + 1800 + 1 x (pkg's 3600 per chunk) = 8475.
TEST(ChunkedSolver, EvaluateReportsTheExactTimeAndTheSurrogate) {
  const Problem p = buildProblem(twoDimProject(ChunkSetting::fixed(2)));
  const Evaluation e = p.evaluate(std::vector<double>{250, 250});
  EXPECT_DOUBLE_EQ(e.iterationNs, 6000 + 7200);
  EXPECT_DOUBLE_EQ(e.surrogateIterationNs, 6000 + 8475);
  EXPECT_DOUBLE_EQ(e.communicationNs, 7200);
  // busy: pkg 2 x 3600 = 7200, node 2 x 1275 = 2550.
  ASSERT_EQ(e.busyNs.size(), 2u);
  EXPECT_DOUBLE_EQ(e.busyNs[0], 7200);
  EXPECT_DOUBLE_EQ(e.busyNs[1], 2550);
  ASSERT_TRUE(surrogateGap(e).has_value());
  EXPECT_DOUBLE_EQ(*surrogateGap(e), 1275.0 / 13200);
  EXPECT_FALSE(p.time.isAdaptive());
  EXPECT_TRUE(buildProblem(twoDimProject(ChunkSetting::automatic())).time.isAdaptive());
  EXPECT_FALSE(buildProblem(twoDimProject(ChunkSetting::ideal())).time.isAdaptive());
}

// The surrogate gap is 0 for the ideal model and for C = 1, at any design.
TEST(ChunkedSolver, SurrogateGapIsZeroForTheIdealModelAndOneChunk) {
  checkProperty(100, [] {
    ProblemOptions opt;
    opt.maxDims = 5;
    opt.maxCollectives = 30;
    RandomProblem r = *genProblem(opt);
    for (Dimension& d : r.project.network.dims) d.latencyNs = *genLogUniform(1, 3000);
    std::vector<double> bw;
    for (int d = 0; d < r.project.network.size(); ++d) bw.push_back(*genLogUniform(1, 1000));
    for (ChunkSetting c : {ChunkSetting::ideal(), ChunkSetting::fixed(1)}) {
      r.project.model.collectives.chunks = c;
      const Evaluation e = r.problem().evaluate(bw);
      RC_ASSERT(e.finite);
      const auto gap = surrogateGap(e);
      RC_ASSERT(gap.has_value());
      if (c.isIdeal()) {
        RC_ASSERT(*gap == 0.0);
      } else {
        RC_ASSERT(std::abs(*gap) <= 1e-12);
      }
    }
  });
}

// Random chunked problems: the generators' random projects with random link
// latencies (a third of them 0) and the given chunk setting.
RandomProblem chunkedProblem(ProblemOptions opt, ChunkSetting chunks) {
  RandomProblem r = *genProblem(opt);
  for (Dimension& d : r.project.network.dims) {
    d.latencyNs = *rc::gen::element(0.0, 1.0, 1.0) * *genLogUniform(1, 3000);
  }
  r.project.model.collectives.chunks = chunks;
  RC_LOG() << r << "  chunks " << chunks.toString() << ", latencies:";
  for (const Dimension& d : r.project.network.dims) RC_LOG() << " " << d.latencyNs;
  RC_LOG() << "\n";
  return r;
}

ProblemOptions smallProblems() {
  ProblemOptions opt;
  opt.maxDims = 5;
  opt.maxCollectives = 30;
  return opt;
}

std::string describe(const Solution& s) {
  return std::string(toString(s.status)) + " " + s.message + " bw " +
         test::formatVector(s.bandwidth) + " T " + exactNumber(s.eval.iterationNs) + " surrogate " +
         exactNumber(s.eval.surrogateIterationNs);
}

// Both backends minimize the same surrogate: their objectives (the surrogate
// at their answers) agree within 1e-6 relative. (The exact times are reported,
// not minimized; on a flat optimum they may differ more, so they are not compared.)
TEST(ChunkedSolver, BackendsAgreeOnFixedChunkCounts) {
  checkProperty(
      50,
      [] {
        const int c = *rc::gen::element(1, 2, 4, 16, 64, 256);
        const RandomProblem r = chunkedProblem(smallProblems(), ChunkSetting::fixed(c));
        const Problem p = r.problem();
        const Solution native = solve(p, Objective::Performance, withBackend(Backend::Native));
        if (!native.ok()) RC_FAIL("native: " + describe(native));
        const Solution ipopt = solve(p, Objective::Performance, withBackend(Backend::Ipopt));
        if (!ipopt.ok()) RC_FAIL("ipopt: " + describe(ipopt));
        if (relDiff(native.eval.surrogateIterationNs, ipopt.eval.surrogateIterationNs) > 1e-6) {
          RC_FAIL("backends disagree: native " + describe(native) + " / ipopt " + describe(ipopt));
        }
        for (const auto& con : p.constraints) {
          RC_ASSERT(con.isSatisfied(native.bandwidth));
          RC_ASSERT(con.isSatisfied(ipopt.bandwidth));
        }
      },
      /*shrink=*/false);
}

// More budget is never slower: `total <= B` vs `total <= B (1 + r)` (the feasible
// set grows). By the objective the solvers minimize (the surrogate) this holds
// within 1e-9. By the exact time reported it does not quite: the extra budget may
// buy bandwidth that lowers the surrogate but not the exact time (a shared queue
// paced by one dimension, the surrogate also charging the other), e.g. one
// All-Reduce of 655 MB over Switch(15) x Ring(5) at C = 16 under a cost cap:
// total <= 314.5 gives 4310679 ns, total <= 600 gives 4322458 ns (+0.27 %) while
// the surrogate falls from 4406265 to 4336690 ns. Measured over 20000 random
// problems: 6 slower by more than 1e-6, the worst by 0.28 %. Asserted: a
// documented bound of 1 % on the exact time, which seed 2560241930292346057
// breaks (2.1 %; docs/collective-model.md, Known limits).
TEST(ChunkedSolver, LargerBudgetIsNeverSlower) {
  checkProperty(100, [] {
    ProblemOptions opt = smallProblems();
    opt.totalKind = 1;
    const int c = *rc::gen::element(1, 4, 16, 64);
    const RandomProblem r = chunkedProblem(opt, ChunkSetting::fixed(c));
    const double factor = 1 + *genUniform(0.001, 3);
    const Solution a = solve(r.problem(), Objective::Performance);
    const Solution b =
        solve(r.withTotal("total <= " + exactNumber(r.budget * factor)), Objective::Performance);
    if (!a.ok() || !b.ok()) RC_FAIL("not solved: " + describe(a) + " / " + describe(b));
    if (b.eval.surrogateIterationNs > a.eval.surrogateIterationNs * (1 + 1e-9)) {
      RC_FAIL("budget x" + exactNumber(factor) + " has a larger objective: " + describe(a) +
              " -> " + describe(b));
    }
    RC_TAG(b.eval.iterationNs > a.eval.iterationNs * (1 + 1e-6) ? "exact time slower by 1e-6"
                                                                : "exact time no slower");
    if (b.eval.iterationNs > a.eval.iterationNs * 1.01) {
      RC_FAIL("budget x" + exactNumber(factor) + " is slower: " + describe(a) + " -> " +
              describe(b));
    }
  });
}

// "auto" chooses the counts per collective at the design, so one would like its
// exact time to be no worse than the optimum with any one count for all
// collectives (C in {1, 4, 16, 64}). It is not always: minimizeTime alternates
// between fixing the counts at a design and solving at those counts, a local
// search on a problem that is not convex in (bw, C) jointly, and it minimizes the
// surrogate, not the exact time. Measured over 1900 random problems (2-5 dims,
// 1-30 collectives, random latencies, native backend) x 4 counts: auto was slower
// than the fixed count in 76 of 7600 comparisons by more than 1e-9, in 14 by more
// than 1e-3; the worst was 1.048 x the optimum with C = 4 (C = 1: 1.025, C = 16:
// 1.002, C = 64: 1.017). Asserted: a documented bound of 1.10; the share beyond
// 1e-3 is tagged. Seed 15647204509653938768 then found auto 1.10x slower than
// C = 1 (from the start of 16 chunks the search settled at a worse design); a
// cold solve now also starts from one chunk per collective (minimizeTime), and
// the seed is replayed below.
void autoIsWithinTheBoundOfEveryFixedCount() {
  const RandomProblem r = chunkedProblem(smallProblems(), ChunkSetting::automatic());
  const Solution a = solve(r.problem(), Objective::Performance);
  if (!a.ok()) RC_FAIL("auto: " + describe(a));
  double worst = 0;
  for (int c : {1, 4, 16, 64}) {
    Project fixed = r.project;
    fixed.model.collectives.chunks = ChunkSetting::fixed(c);
    const Solution f = solve(buildProblem(fixed), Objective::Performance);
    if (!f.ok()) RC_FAIL("C = " + std::to_string(c) + ": " + describe(f));
    worst = std::max(worst, a.eval.iterationNs / f.eval.iterationNs);
    if (a.eval.iterationNs > f.eval.iterationNs * 1.10) {
      RC_FAIL("auto " + describe(a) + " is slower than C = " + std::to_string(c) + " " +
              describe(f));
    }
  }
  RC_TAG(worst <= 1 + 1e-3 ? "no fixed count faster by 1e-3" : "a fixed count faster by 1e-3");
}

TEST(ChunkedSolver, AutoIsWithinADocumentedBoundOfAnyFixedCount) {
  checkProperty(50, autoIsWithinTheBoundOfEveryFixedCount);
}

// The seeds that failed the property (tests/data/regressions/seeds.tsv).
TEST(ChunkedSolver, AutoOfTheSeedThatSettledTooSlowIsWithinTheBound) {
  for (const std::uint64_t seed : test::regressionSeeds("chunks-auto")) {
    SCOPED_TRACE(seed);
    checkProperty(50, autoIsWithinTheBoundOfEveryFixedCount, /*shrink=*/false, seed);
  }
}

// At the optimum of a chunked problem the surrogate is no smaller than the exact
// time (each term's bound, summed and maxed with nonnegative weights).
TEST(ChunkedSolver, SurrogateGapIsNonNegativeAtTheOptimum) {
  checkProperty(100, [] {
    const ChunkSetting chunks =
        *rc::gen::element(ChunkSetting::fixed(4), ChunkSetting::fixed(16), ChunkSetting::fixed(256),
                          ChunkSetting::automatic());
    const RandomProblem r = chunkedProblem(smallProblems(), chunks);
    const Solution s = solve(r.problem(), Objective::Performance);
    if (!s.ok()) RC_FAIL("not solved: " + describe(s));
    const auto gap = surrogateGap(s.eval);
    RC_ASSERT(gap.has_value());
    RC_ASSERT(*gap >= -1e-12);
  });
}

// ---------------------------------------------------------------------------
// applyModelOverrides (--chunks, --latency)
// ---------------------------------------------------------------------------

Project fourDimProject() {
  Network net;
  net.dims = {makeDim("a", BuildingBlock::Ring, 4, "A"),
              makeDim("b", BuildingBlock::FullyConnected, 8, "A"),
              makeDim("c", BuildingBlock::Ring, 2, "A"),
              makeDim("d", BuildingBlock::FullyConnected, 4, "B")};
  for (int d = 0; d < 4; ++d) net.dims[d].latencyNs = 10.0 * (d + 1);
  Workload w;
  w.communicator = test::fullCommunicator(net);
  w.layers = {
      makeLayer("L", makePhase(0), makePhase(0), makePhase(0, CollectiveType::AllReduce, 1e6))};
  return test::makeProject(net, costModel(), {w}, TrainingLoop::NoOverlap, {"total == 100"});
}

std::vector<double> latencies(const Project& p) {
  std::vector<double> v;
  for (const Dimension& d : p.network.dims) v.push_back(d.latencyNs);
  return v;
}

TEST(ModelOverrides, EmptyChangesNothing) {
  Project p = fourDimProject();
  const Project before = p;
  EXPECT_TRUE(ModelOverrides{}.empty());
  applyModelOverrides(p, {});
  EXPECT_EQ(p, before);
}

TEST(ModelOverrides, OneLatencyForAllDimensionsOrOnePerDimension) {
  Project p = fourDimProject();
  ModelOverrides one;
  one.latencyNs = {250};
  applyModelOverrides(p, one);
  EXPECT_EQ(latencies(p), (std::vector<double>{250, 250, 250, 250}));
  EXPECT_EQ(p.model.collectives.chunks, ChunkSetting::ideal());  // chunks untouched

  ModelOverrides each;
  each.latencyNs = {1, 0, 3.5, 4};
  each.chunks = ChunkSetting::fixed(32);
  applyModelOverrides(p, each);
  EXPECT_EQ(latencies(p), (std::vector<double>{1, 0, 3.5, 4}));
  EXPECT_EQ(p.model.collectives.chunks, ChunkSetting::fixed(32));
}

TEST(ModelOverrides, WrongLengthIsRefusedNamingTheFlag) {
  for (std::vector<double> lat : {std::vector<double>{1, 2}, std::vector<double>{1, 2, 3, 4, 5}}) {
    Project p = fourDimProject();
    const Project before = p;
    ModelOverrides o;
    o.latencyNs = lat;
    const std::string m = thrownMessage<InputError>([&] { applyModelOverrides(p, o); });
    EXPECT_TRUE(contains(m, "--latency")) << m;
    EXPECT_TRUE(contains(m, std::to_string(lat.size()))) << m;
    EXPECT_EQ(latencies(p), latencies(before));
  }
}

TEST(ModelOverrides, NegativeOrNonFiniteLatencyIsRefusedNamingTheFlag) {
  for (std::vector<double> lat :
       {std::vector<double>{-5}, std::vector<double>{1, 2, -0.5, 4},
        std::vector<double>{std::nan("")}, std::vector<double>{HUGE_VAL}}) {
    Project p = fourDimProject();
    ModelOverrides o;
    o.latencyNs = lat;
    const std::string m = thrownMessage<InputError>([&] { applyModelOverrides(p, o); });
    EXPECT_TRUE(contains(m, "--latency")) << m;
    EXPECT_EQ(latencies(p), latencies(fourDimProject()));
  }
}

// The overrides reach the analysis: the model and latencies in force.
TEST(ModelOverrides, ReachTheAnalysis) {
  AnalysisOptions options;
  options.model.chunks = ChunkSetting::fixed(1);
  options.model.latencyNs = {7};
  const Analysis a = analyze(fourDimProject(), options);
  ASSERT_TRUE(a.ok()) << a.message;
  EXPECT_EQ(a.model.collectives.chunks, ChunkSetting::fixed(1));
  EXPECT_EQ(a.latencyNs, (std::vector<double>{7, 7, 7, 7}));
  ASSERT_TRUE(surrogateGap(a.design.eval).has_value());
  EXPECT_LE(std::abs(*surrogateGap(a.design.eval)), 1e-12);
}

TEST(DefaultModel, IsAutoWithTheDocumentedLatencies) {
  EXPECT_EQ(defaultCollectiveModel().chunks, ChunkSetting::automatic());
  EXPECT_EQ(defaultLinkLatencyNs(BuildingBlock::Ring), 500);
  EXPECT_EQ(defaultLinkLatencyNs(BuildingBlock::FullyConnected), 500);
  EXPECT_EQ(defaultLinkLatencyNs(BuildingBlock::Switch), 936.25);
}

}  // namespace
}  // namespace libra

namespace libra {
namespace {

// Groups on part of a dimension (docs/collective-model.md section 7): the share
// of bw_d one group gets while all groups of its kind on the dimension run.
TEST(Placement, SharesOfEachBuildingBlock) {
  using C = CollectiveType;
  const Dimension sw = dimWithLatency(BuildingBlock::Switch, 16, 0);
  const Dimension fc = dimWithLatency(BuildingBlock::FullyConnected, 8, 0);
  const Dimension ring = dimWithLatency(BuildingBlock::Ring, 8, 0);
  // A non-blocking switch: every subset keeps the port.
  EXPECT_EQ(placementShare(sw, C::AllReduce, 4, 1), 1.0);
  EXPECT_EQ(placementShare(sw, C::AllReduce, 4, 4), 1.0);
  // Fully connected: g - 1 of the n - 1 links; a send over one of them.
  EXPECT_DOUBLE_EQ(placementShare(fc, C::AllReduce, 8, 1), 1.0);
  EXPECT_DOUBLE_EQ(placementShare(fc, C::AllReduce, 4, 1), 3.0 / 7);
  EXPECT_DOUBLE_EQ(placementShare(fc, C::ReduceScatter, 2, 4), 1.0 / 7);
  EXPECT_DOUBLE_EQ(placementShare(fc, C::SendRecv, 2, 1), 1.0 / 7);
  // Ring: whole; interleaved round the whole ring (1 / s); arcs (1 / (2 s)).
  EXPECT_DOUBLE_EQ(placementShare(ring, C::AllReduce, 8, 1), 1.0);
  EXPECT_DOUBLE_EQ(placementShare(ring, C::AllReduce, 4, 2), 1.0 / 2);
  EXPECT_DOUBLE_EQ(placementShare(ring, C::AllGather, 2, 4), 1.0 / 4);
  EXPECT_DOUBLE_EQ(placementShare(ring, C::AllReduce, 4, 1), 1.0 / 2);
  EXPECT_DOUBLE_EQ(placementShare(ring, C::AllReduce, 2, 2), 1.0 / 4);
  EXPECT_DOUBLE_EQ(placementShare(ring, C::SendRecv, 2, 1), 1.0);
  EXPECT_DOUBLE_EQ(placementShare(ring, C::SendRecv, 2, 4), 1.0 / 4);
  // Hops of one step: an arc's wrap-around comes back over g - 1 links.
  EXPECT_EQ(placementHops(ring, C::AllReduce, 8, 1), 1.0);
  EXPECT_EQ(placementHops(ring, C::AllReduce, 4, 2), 2.0);
  EXPECT_EQ(placementHops(ring, C::AllReduce, 4, 1), 3.0);
  EXPECT_EQ(placementHops(fc, C::AllReduce, 4, 1), 1.0);
}

// The chunked model charges the placement; LIBRA's ideal model keeps its
// convention (a group on part of a dimension uses the whole bw_d), so every
// reference result holds.
TEST(Placement, ChunkedModelsChargeItAndTheIdealModelDoesNot) {
  const Network net = networkOf({dimWithLatency(BuildingBlock::FullyConnected, 8, 0),
                                 dimWithLatency(BuildingBlock::Ring, 8, 0)});
  const std::vector<double> bw{70, 100};
  CollectiveModel chunked;
  chunked.chunks = ChunkSetting::fixed(1);
  // An All-Reduce of 8e6 B over 4 of the FC's 8 NPUs: V = 2 S 3/4 = 1.2e7 B at
  // 3/7 of 70 GB/s = 30 GB/s: 4e5 ns; ideal: 1.2e7 / 70.
  const std::vector<int> fcHalf{4, 1};
  EXPECT_DOUBLE_EQ(collectiveTerm(CollectiveType::AllReduce, 8e6, fcHalf, net, chunked).exact(bw),
                   4e5);
  EXPECT_DOUBLE_EQ(collectiveTerm(CollectiveType::AllReduce, 8e6, fcHalf, net, {}).exact(bw),
                   1.2e7 / 70);
  // On the ring: 4 NPUs consecutive (an arc, 1/2) or interleaved (stride 2, 1/2);
  // 2 NPUs 4 apart (1/4).
  const std::vector<int> ringFour{1, 4}, ringTwo{1, 2};
  const double v4 = 2 * 8e6 * 3 / 4, v2 = 2 * 8e6 / 2;
  EXPECT_DOUBLE_EQ(collectiveTerm(CollectiveType::AllReduce, 8e6, ringFour, net, chunked).exact(bw),
                   v4 / 50);
  EXPECT_DOUBLE_EQ(
      collectiveTerm(CollectiveType::AllReduce, 8e6, ringFour, net, chunked, std::vector<int>{1, 2})
          .exact(bw),
      v4 / 50);
  EXPECT_DOUBLE_EQ(
      collectiveTerm(CollectiveType::AllReduce, 8e6, ringTwo, net, chunked, std::vector<int>{1, 4})
          .exact(bw),
      v2 / 25);
}

// The endpoint delay (ASTRA-sim's endpoint-delay, docs/collective-model.md
// section 3): each stage's fixed cost per chunk gains bundles x e, with the
// bundles of ASTRA-sim's algorithms (Ring: n, All-Reduce 2n - 1; direct: 2, 3;
// halving-doubling: log2 n + 1, 2 log2 n + 1; All-to-All one peer at a time n,
// direct 2; a send 2). The bytes do not change.
TEST(EndpointDelay, EachStagePaysItsBundles) {
  struct Expect {
    BuildingBlock block;
    int n;
    CollectiveType type;
    double bundles;
  };
  const std::vector<Expect> table{
      {BuildingBlock::Ring, 8, CollectiveType::ReduceScatter, 8},
      {BuildingBlock::Ring, 8, CollectiveType::AllGather, 8},
      {BuildingBlock::Ring, 8, CollectiveType::AllReduce, 15},
      {BuildingBlock::Ring, 8, CollectiveType::AllToAll, 8},
      {BuildingBlock::Ring, 8, CollectiveType::SendRecv, 2},
      {BuildingBlock::FullyConnected, 8, CollectiveType::ReduceScatter, 2},
      {BuildingBlock::FullyConnected, 8, CollectiveType::AllReduce, 3},
      {BuildingBlock::FullyConnected, 8, CollectiveType::AllToAll, 2},
      {BuildingBlock::Switch, 16, CollectiveType::AllGather, 5},
      {BuildingBlock::Switch, 16, CollectiveType::AllReduce, 9},
      {BuildingBlock::Switch, 16, CollectiveType::AllToAll, 16},
  };
  for (const Expect& x : table) {
    Network net;
    net.dims = {makeDim("d", x.block, x.n, "L")};
    net.dims[0].latencyNs = 100;
    const std::vector<int> groups{x.n};
    const std::vector<Stage> without = collectiveStages(x.type, 1 << 20, groups, net);
    net.endpointDelayNs = 10;
    const std::vector<Stage> with = collectiveStages(x.type, 1 << 20, groups, net);
    ASSERT_EQ(with.size(), 1u);
    ASSERT_EQ(without.size(), 1u);
    EXPECT_DOUBLE_EQ(with[0].latencyNs - without[0].latencyNs, 10 * x.bundles)
        << toString(x.block) << " " << toString(x.type);
    EXPECT_DOUBLE_EQ(with[0].bytes, without[0].bytes);
    EXPECT_DOUBLE_EQ(endpointBundles(x.block, x.type, x.n), x.bundles);
  }
}

}  // namespace
}  // namespace libra
