// The analytical model (spec/model.md sections 4-6): traffic of the four
// collectives, the compiled time model and its training loops, the cost model,
// and the validation of networks and communicators. Expected values are worked
// out by hand in the comments; most of them are exact in binary floating point
// (sizes are powers of two or small integers), so the comparisons allow only a
// few ulps (EXPECT_DOUBLE_EQ) unless stated otherwise.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

#include "engine_test_support.hpp"

namespace libra {
namespace {

using test::contains;
using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using test::thrownMessage;

// LIBRA's model: one pipelined part per used dimension carrying its traffic.
std::vector<double> pipelinedBytes(const TimeTerm& term, int dims) {
  std::vector<double> v(dims, 0.0);
  for (const DimTime& p : term.pipelined) v[p.dim] += p.bytes;
  return v;
}

std::vector<double> traffic(CollectiveType type, double size, std::vector<int> groups) {
  return collectiveTraffic(type, size, groups);
}

// ---------------------------------------------------------------------------
// Traffic per collective (model.md section 4)
// ---------------------------------------------------------------------------

TEST(Traffic, AllReduceInnerToOuter) {
  // S = 1024 over groups [4, 2, 1, 8]:
  //   dim0: 2 * 1024 * 3/4            = 1536,  s = 1024/4 = 256
  //   dim1: 2 * 256 * 1/2             = 256,   s = 128
  //   dim2: unused                    = 0
  //   dim3: 2 * 128 * 7/8             = 224
  const auto v = traffic(CollectiveType::AllReduce, 1024, {4, 2, 1, 8});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_DOUBLE_EQ(v[0], 1536);
  EXPECT_DOUBLE_EQ(v[1], 256);
  EXPECT_EQ(v[2], 0);
  EXPECT_DOUBLE_EQ(v[3], 224);
}

TEST(Traffic, ReduceScatterInnerToOuter) {
  // Half of AllReduce on each dimension: 768, 128, 0, 112. Their sum telescopes
  // to S (1 - 1/64) = 1008.
  const auto v = traffic(CollectiveType::ReduceScatter, 1024, {4, 2, 1, 8});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_DOUBLE_EQ(v[0], 768);
  EXPECT_DOUBLE_EQ(v[1], 128);
  EXPECT_EQ(v[2], 0);
  EXPECT_DOUBLE_EQ(v[3], 112);
  EXPECT_DOUBLE_EQ(v[0] + v[1] + v[2] + v[3], 1008);
}

TEST(Traffic, AllGatherOuterToInner) {
  // Shard S = 1000 over [4, 2, 1, 8], outermost first:
  //   dim3: 1000 * 7    = 7000,   s = 8000
  //   dim2: unused
  //   dim1: 8000 * 1    = 8000,   s = 16000
  //   dim0: 16000 * 3   = 48000
  // Each NPU receives the 63 shards it lacks: 63000 = 7000 + 8000 + 48000.
  const auto v = traffic(CollectiveType::AllGather, 1000, {4, 2, 1, 8});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_DOUBLE_EQ(v[0], 48000);
  EXPECT_DOUBLE_EQ(v[1], 8000);
  EXPECT_EQ(v[2], 0);
  EXPECT_DOUBLE_EQ(v[3], 7000);
}

TEST(Traffic, AllGatherIsNotInnerToOuter) {
  // Guards against running AllGather in the wrong order: inner to outer would
  // give dim0 = 1000*3 = 3000 and dim1 = 4000*1 = 4000 for groups [4, 2].
  // Outer to inner: dim1 = 1000*1 = 1000, s = 2000; dim0 = 2000*3 = 6000.
  const auto v = traffic(CollectiveType::AllGather, 1000, {4, 2});
  EXPECT_DOUBLE_EQ(v[0], 6000);
  EXPECT_DOUBLE_EQ(v[1], 1000);
}

TEST(Traffic, AllToAllEveryDimensionSeesFullSize) {
  // S (g-1)/g on each used dimension, no size change: 750, 500, 0, 875.
  const auto v = traffic(CollectiveType::AllToAll, 1000, {4, 2, 1, 8});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_DOUBLE_EQ(v[0], 750);
  EXPECT_DOUBLE_EQ(v[1], 500);
  EXPECT_EQ(v[2], 0);
  EXPECT_DOUBLE_EQ(v[3], 875);
}

TEST(Traffic, AllGroupsOneMovesNothing) {
  for (auto type : {CollectiveType::AllReduce, CollectiveType::ReduceScatter,
                    CollectiveType::AllGather, CollectiveType::AllToAll, CollectiveType::None}) {
    const auto v = traffic(type, 1e9, {1, 1, 1});
    EXPECT_EQ(v, std::vector<double>(3, 0.0)) << toString(type);
  }
}

TEST(Traffic, NoneAndZeroSizeMoveNothing) {
  EXPECT_EQ(traffic(CollectiveType::None, 1e9, {4, 8}), std::vector<double>(2, 0.0));
  EXPECT_EQ(traffic(CollectiveType::AllReduce, 0, {4, 8}), std::vector<double>(2, 0.0));
}

TEST(Traffic, SingleDimension) {
  // The flat ring AllReduce: 2 S (n-1)/n = 2 * 800 * 7/8 = 1400.
  EXPECT_DOUBLE_EQ(traffic(CollectiveType::AllReduce, 800, {8})[0], 1400);
}

// Closed-form identities that hold for every group vector (exact up to rounding:
// each value is a few multiplications and one sum, relative error <= ~1e-15;
// we allow 1e-12).
RC_GTEST_PROP(TrafficProperties, IdentitiesOfTheHierarchicalAlgorithm, ()) {
  const int dims = *rc::gen::inRange(1, 7);
  const auto groups = *rc::gen::container<std::vector<int>>(dims, rc::gen::inRange(1, 17));
  const double size = *rc::gen::inRange(1, 1 << 30);
  const double product = std::accumulate(groups.begin(), groups.end(), 1.0, std::multiplies<>());

  const auto ar = collectiveTraffic(CollectiveType::AllReduce, size, groups);
  const auto rs = collectiveTraffic(CollectiveType::ReduceScatter, size, groups);
  const auto ag = collectiveTraffic(CollectiveType::AllGather, size / product, groups);
  const auto a2a = collectiveTraffic(CollectiveType::AllToAll, size, groups);
  double sumRs = 0, sumAr = 0;
  for (int d = 0; d < dims; ++d) {
    // AllReduce = ReduceScatter + AllGather of the scattered shard, both 2x RS.
    RC_ASSERT(test::relNear(ar[d], 2 * rs[d], 1e-12));
    // AllGather of shard S/P outer to inner mirrors ReduceScatter of S inner to outer.
    RC_ASSERT(test::relNear(ag[d], rs[d], 1e-12));
    // AllToAll: S (g-1)/g on every used dim, 0 elsewhere.
    RC_ASSERT(test::relNear(a2a[d], size * (groups[d] - 1) / groups[d], 1e-12));
    RC_ASSERT((groups[d] == 1) == (rs[d] == 0));
    sumRs += rs[d];
    sumAr += ar[d];
  }
  // Telescoping sums: RS moves S (1 - 1/P), AR 2 S (1 - 1/P).
  RC_ASSERT(test::relNear(sumRs, size * (1 - 1 / product), 1e-12));
  RC_ASSERT(test::relNear(sumAr, 2 * size * (1 - 1 / product), 1e-12));
}

// ---------------------------------------------------------------------------
// Time model
// ---------------------------------------------------------------------------

// Network: dim0 "pkg" Ring(4), dim1 "pod" Switch(2), dim2 "spare" FC(2) (unused).
Network threeDimNetwork() {
  Network n;
  n.dims = {makeDim("pkg", BuildingBlock::Ring, 4, "A"),
            makeDim("pod", BuildingBlock::Switch, 2, "C"),
            makeDim("spare", BuildingBlock::FullyConnected, 2, "B")};
  return n;
}

// Two layers; communicator F/IG tensor parallel on pkg, WG data parallel on pod.
//   L1: F  1000 ns + AllReduce 4000 B over [4,1,1]: V0 = 2*4000*3/4 = 6000
//       IG 2000 ns + AllReduce 4000 B over [4,1,1]: same traffic (merged)
//       WG 3000 ns + AllReduce 8000 B over [1,2,1]: V1 = 2*8000*1/2 = 8000
//   L2: F   500 ns + AllToAll 2000 B over its own groups [4,2,1]:
//                    V0 = 2000*3/4 = 1500, V1 = 2000*1/2 = 1000
//       IG  700 ns, no collective
//       WG  900 ns + ReduceScatter 6000 B over [1,2,1]: V1 = 6000*1/2 = 3000
Workload twoLayerWorkload() {
  Workload w;
  w.name = "two-layer";
  w.communicator = makeCommunicator({4, 1, 1}, {4, 1, 1}, {1, 2, 1});
  w.layers = {
      makeLayer("L1", makePhase(1000, CollectiveType::AllReduce, 4000),
                makePhase(2000, CollectiveType::AllReduce, 4000),
                makePhase(3000, CollectiveType::AllReduce, 8000)),
      makeLayer("L2", makePhase(500, CollectiveType::AllToAll, 2000, {4, 2, 1}), makePhase(700),
                makePhase(900, CollectiveType::ReduceScatter, 6000)),
  };
  return w;
}

// At bw = [100, 50, 7] GB/s (= bytes/ns) the collective times are
//   L1 F  : 6000/100                  = 60
//   L1 IG : 60
//   L1 WG : 8000/50                   = 160
//   L2 F  : max(1500/100, 1000/50)    = max(15, 20) = 20
//   L2 WG : 3000/50                   = 60
const std::vector<double> kBw{100, 50, 7};

TEST(TimeModel, IdenticalCollectivesMergeIntoOneVectorWithACount) {
  // Three layers with the same forward AllReduce and the same WG AllReduce, plus
  // a ReduceScatter of 2x the size that has the same traffic as the AllReduce
  // (RS of 8000 over [4] = 8000*3/4 = 6000 = AR of 4000) and one collective over
  // groups of 1 that moves nothing: K must be 2.
  Workload w;
  w.communicator = makeCommunicator({4, 1, 1}, {4, 1, 1}, {1, 2, 1});
  for (int i = 0; i < 3; ++i) {
    w.layers.push_back(makeLayer("L", makePhase(10, CollectiveType::AllReduce, 4000), makePhase(10),
                                 makePhase(10, CollectiveType::AllReduce, 8000)));
  }
  w.layers.push_back(makeLayer("RS", makePhase(0, CollectiveType::ReduceScatter, 8000),
                               makePhase(0, CollectiveType::AllGather, 123, {1, 1, 1}),
                               makePhase(0)));
  const Network net = threeDimNetwork();
  const TimeModel m = buildTimeModel(net, std::span<const Workload>(&w, 1),
                                     ModelOptions{TrainingLoop::NoOverlap, {}});
  ASSERT_EQ(m.collectiveCount(), 2);
  ASSERT_EQ(m.dims, 3);
  const std::vector<double> fwd{6000, 0, 0}, wg{8000, 0, 0};
  const std::vector<double> wgTraffic{0, 8000, 0};
  int kF = -1, kW = -1;
  for (int k = 0; k < 2; ++k) {
    if (pipelinedBytes(m.terms[k], 3) == fwd) kF = k;
    if (pipelinedBytes(m.terms[k], 3) == wgTraffic) kW = k;
  }
  ASSERT_GE(kF, 0);
  ASSERT_GE(kW, 0);
  ASSERT_EQ(m.groups.size(), 1u);
  const auto& g = m.groups[0];
  // Occurrences: forward vector 3 (AR) + 1 (RS) = 4 times, WG vector 3 times.
  std::map<int, double> occ(g.occurrences.begin(), g.occurrences.end());
  EXPECT_EQ(occ.size(), 2u);
  EXPECT_DOUBLE_EQ(occ[kF], 4);
  EXPECT_DOUBLE_EQ(occ[kW], 3);
  ASSERT_EQ(g.pieces.size(), 1u);
  std::map<int, double> terms(g.pieces[0].terms.begin(), g.pieces[0].terms.end());
  EXPECT_DOUBLE_EQ(terms[kF], 4);
  EXPECT_DOUBLE_EQ(terms[kW], 3);
  // Compute: 3 layers x 30 ns.
  EXPECT_DOUBLE_EQ(g.pieces[0].constantNs, 90);
  EXPECT_TRUE(m.isSeparable());
  EXPECT_EQ(m.usedDims(), (std::vector<bool>{true, true, false}));
}

TEST(TimeModel, CollectiveTimeIsTheMaxOverUsedDims) {
  // AllReduce 8000 over [4, 2]: V0 = 2*8000*3/4 = 12000, s = 2000, V1 = 2*2000/2 = 2000.
  Workload w;
  w.communicator = makeCommunicator({4, 2, 1}, {1, 1, 1}, {1, 1, 1});
  w.layers = {
      makeLayer("L", makePhase(0, CollectiveType::AllReduce, 8000), makePhase(0), makePhase(0))};
  const TimeModel m = buildTimeModel(threeDimNetwork(), std::span<const Workload>(&w, 1),
                                     ModelOptions{TrainingLoop::NoOverlap, {}});
  ASSERT_EQ(m.collectiveCount(), 1);
  // bw [100, 50]: max(120, 40) = 120; bw [100, 10]: max(120, 200) = 200. The
  // unused third dimension does not matter, even at bandwidth 0.
  EXPECT_DOUBLE_EQ(m.collectiveTime(0, std::vector<double>{100, 50, 0}), 120);
  EXPECT_DOUBLE_EQ(m.collectiveTime(0, std::vector<double>{100, 10, 0}), 200);
  EXPECT_TRUE(std::isinf(m.collectiveTime(0, std::vector<double>{100, 0, 5})));
}

TEST(TimeModel, NoOverlapIterationTime) {
  // T = sum_layers [F.compute + F.coll] + sum_layers reversed [IG + IG.coll + WG + WG.coll]
  //   = (1000 + 60) + (500 + 20) + (700 + 0 + 900 + 60) + (2000 + 60 + 3000 + 160)
  //   = 1060 + 520 + 1660 + 5220 = 8460
  // compute = 1000 + 2000 + 3000 + 500 + 700 + 900 = 8100; communication = 360.
  const Workload w = twoLayerWorkload();
  const TimeModel m = buildTimeModel(threeDimNetwork(), std::span<const Workload>(&w, 1),
                                     ModelOptions{TrainingLoop::NoOverlap, {}});
  EXPECT_EQ(m.collectiveCount(), 4);  // L1 F and IG share one vector
  const Evaluation e = m.evaluate(kBw);
  EXPECT_TRUE(e.finite);
  EXPECT_DOUBLE_EQ(e.iterationNs, 8460);
  EXPECT_DOUBLE_EQ(e.computeNs, 8100);
  EXPECT_DOUBLE_EQ(e.communicationNs, 360);
  // Busy time per dim: sum of V_kd / bw_d over all collective runs (not the max):
  //   pkg: 6000/100 * 2 (L1 F, IG) + 1500/100 (L2 F) = 120 + 15 = 135
  //   pod: 8000/50 + 1000/50 + 3000/50 = 160 + 20 + 60 = 240
  //   spare: 0
  ASSERT_EQ(e.busyNs.size(), 3u);
  EXPECT_DOUBLE_EQ(e.busyNs[0], 135);
  EXPECT_DOUBLE_EQ(e.busyNs[1], 240);
  EXPECT_EQ(e.busyNs[2], 0);
}

TEST(TimeModel, RecomputeCountsTheForwardPassTwice) {
  // Forward compute and collectives count twice:
  //   compute = 8100 + (1000 + 500)       = 9600
  //   comm    = 360 + (60 + 20)           = 440
  //   T       = 10040
  //   busy pkg = 135 + 60 + 15 = 210; pod = 240 + 20 = 260
  const Workload w = twoLayerWorkload();
  const TimeModel m = buildTimeModel(threeDimNetwork(), std::span<const Workload>(&w, 1),
                                     ModelOptions{TrainingLoop::Recompute, {}});
  const Evaluation e = m.evaluate(kBw);
  EXPECT_DOUBLE_EQ(e.iterationNs, 10040);
  EXPECT_DOUBLE_EQ(e.computeNs, 9600);
  EXPECT_DOUBLE_EQ(e.communicationNs, 440);
  EXPECT_DOUBLE_EQ(e.busyNs[0], 210);
  EXPECT_DOUBLE_EQ(e.busyNs[1], 260);
}

TEST(TimeModel, OverlapQueuesWeightGradientCollectives) {
  // Timeline (time_model.hpp: F and IG collectives block; a WG collective joins
  // a FIFO queue once its WG compute is done):
  //   L1 F  0..1000, coll ..1060; L2 F ..1560, coll ..1580
  //   L2 IG ..2280; L2 WG ..3180 -> L2's WG RS (60) queued at 3180, runs ..3240
  //   L1 IG ..5180, coll ..5240; L1 WG ..8240 -> L1's WG AR (160) runs 8240..8400
  //   T = max(end of compute and blocking = 8240, queue end = 8400) = 8400.
  // Never more than no-overlap (8460).
  const Workload w = twoLayerWorkload();
  const TimeModel m = buildTimeModel(threeDimNetwork(), std::span<const Workload>(&w, 1),
                                     ModelOptions{TrainingLoop::Overlap, {}});
  EXPECT_FALSE(m.isSeparable());
  const Evaluation e = m.evaluate(kBw);
  EXPECT_DOUBLE_EQ(e.iterationNs, 8400);
  EXPECT_DOUBLE_EQ(e.computeNs, 8100);
  EXPECT_DOUBLE_EQ(e.communicationNs, 300);
  // When WG communication is slow the queue sets the pace: with pod at 5 GB/s,
  //   L2 F = max(15, 1000/5 = 200) = 200, L2 WG = 3000/5 = 600, L1 WG = 8000/5 = 1600
  //   blocking end = 8100 + 60 + 200 + 60 = 8420
  //   L2 WG ready at 1000+60+500+200+700+900 = 3360, queue: 3360 + 600 + 1600 = 5560
  //   L1 WG ready at 8420 -> 8420 + 1600 = 10020 (the queue is empty again by then)
  //   T = 10020.
  EXPECT_DOUBLE_EQ(m.evaluate(std::vector<double>{100, 5, 0}).iterationNs, 10020);
}

TEST(TimeModel, ZeroBandwidthOnAUsedDimensionIsInfinite) {
  const Workload w = twoLayerWorkload();
  const TimeModel m = buildTimeModel(threeDimNetwork(), std::span<const Workload>(&w, 1),
                                     ModelOptions{TrainingLoop::NoOverlap, {}});
  const Evaluation e = m.evaluate(std::vector<double>{100, 0, 7});
  EXPECT_FALSE(e.finite);
  EXPECT_TRUE(std::isinf(e.iterationNs));
  EXPECT_TRUE(std::isinf(e.busyNs[1]));
  EXPECT_DOUBLE_EQ(e.busyNs[0], 135);
  // Zero on the unused dimension changes nothing.
  const Evaluation idle = m.evaluate(std::vector<double>{100, 50, 0});
  EXPECT_TRUE(idle.finite);
  EXPECT_DOUBLE_EQ(idle.iterationNs, 8460);
}

TEST(TimeModel, WeightedWorkloadsAddUp) {
  // Two copies of the workload with weights 0.25 and 2: T = 2.25 * 8460 = 19035,
  // compute 2.25 * 8100 = 18225, busy pod 2.25 * 240 = 540.
  Workload a = twoLayerWorkload(), b = twoLayerWorkload();
  a.weight = 0.25;
  b.weight = 2;
  const std::vector<Workload> ws{a, b};
  const TimeModel m =
      buildTimeModel(threeDimNetwork(), ws, ModelOptions{TrainingLoop::NoOverlap, {}});
  EXPECT_EQ(m.collectiveCount(), 4);  // shared across workloads
  const Evaluation e = m.evaluate(kBw);
  EXPECT_DOUBLE_EQ(e.iterationNs, 19035);
  EXPECT_DOUBLE_EQ(e.computeNs, 18225);
  EXPECT_DOUBLE_EQ(e.busyNs[1], 540);
}

TEST(TimeModel, RejectsNegativeComputeAndSize) {
  Workload w = twoLayerWorkload();
  w.layers.mutate()[1].phases[0].computeNs = -1;
  const Network net = threeDimNetwork();
  std::string msg = thrownMessage<InputError>([&] {
    buildTimeModel(net, std::span<const Workload>(&w, 1),
                   ModelOptions{TrainingLoop::NoOverlap, {}});
  });
  EXPECT_TRUE(contains(msg, "layer 2")) << msg;
  EXPECT_TRUE(contains(msg, "compute")) << msg;
  w = twoLayerWorkload();
  w.layers.mutate()[0].phases[2].sizeBytes = std::numeric_limits<double>::quiet_NaN();
  msg = thrownMessage<InputError>([&] {
    buildTimeModel(net, std::span<const Workload>(&w, 1),
                   ModelOptions{TrainingLoop::NoOverlap, {}});
  });
  EXPECT_TRUE(contains(msg, "size")) << msg;
}

// ---------------------------------------------------------------------------
// Communicator validation
// ---------------------------------------------------------------------------

TEST(Communicator, WrongLengthIsRejected) {
  const Network net = threeDimNetwork();
  const Communicator c = makeCommunicator({4, 1}, {4, 1, 1}, {1, 2, 1});
  const std::string msg =
      thrownMessage<InputError>([&] { validateCommunicator(c, net, "workload 'w'"); });
  EXPECT_TRUE(contains(msg, "workload 'w'")) << msg;
  EXPECT_TRUE(contains(msg, "forward")) << msg;
  EXPECT_TRUE(contains(msg, "2 group sizes")) << msg;
  EXPECT_TRUE(contains(msg, "3 dimensions")) << msg;
}

TEST(Communicator, GroupLargerThanTheDimensionIsRejected) {
  const Network net = threeDimNetwork();
  // pod has 2 NPUs; a weight-gradient group of 3 does not fit.
  const Communicator c = makeCommunicator({4, 1, 1}, {4, 1, 1}, {1, 3, 1});
  const std::string msg = thrownMessage<InputError>([&] { validateCommunicator(c, net, "w"); });
  EXPECT_TRUE(contains(msg, "group size 3")) << msg;
  EXPECT_TRUE(contains(msg, "'pod'")) << msg;
  EXPECT_TRUE(contains(msg, "weight_grad")) << msg;
}

TEST(Communicator, GroupZeroIsRejectedAndValidGroupsPass) {
  const Network net = threeDimNetwork();
  EXPECT_THROW(validateCommunicator(makeCommunicator({0, 1, 1}, {4, 1, 1}, {1, 2, 1}), net, "w"),
               InputError);
  EXPECT_NO_THROW(
      validateCommunicator(makeCommunicator({4, 2, 2}, {1, 1, 1}, {4, 2, 2}), net, "w"));
}

TEST(Communicator, PerPhaseGroupsAreValidatedToo) {
  Workload w = twoLayerWorkload();
  w.layers.mutate()[1].phases[0].groups = {4, 2, 5};  // spare has 2 NPUs
  const Network net = threeDimNetwork();
  const std::string msg = thrownMessage<InputError>([&] {
    buildTimeModel(net, std::span<const Workload>(&w, 1),
                   ModelOptions{TrainingLoop::NoOverlap, {}});
  });
  EXPECT_TRUE(contains(msg, "group size 5")) << msg;
  EXPECT_TRUE(contains(msg, "'spare'")) << msg;
}

// ---------------------------------------------------------------------------
// Network validation
// ---------------------------------------------------------------------------

TEST(Network, ValidNetworkPasses) {
  const Network net = threeDimNetwork();
  EXPECT_NO_THROW(net.validate());
  EXPECT_EQ(net.npuCount(), 16);
  EXPECT_EQ(net.indexOf("pod"), 1);
  EXPECT_EQ(net.indexOf("nope"), std::nullopt);
}

TEST(Network, TooFewNpusIsRejected) {
  Network net = threeDimNetwork();
  net.dims[1].npus = 1;
  const std::string msg = thrownMessage<InputError>([&] { net.validate(); });
  EXPECT_TRUE(contains(msg, "dimension 1")) << msg;
  EXPECT_TRUE(contains(msg, "'pod'")) << msg;
  EXPECT_TRUE(contains(msg, "NPU count 1")) << msg;
}

TEST(Network, DuplicateNamesAreRejected) {
  Network net = threeDimNetwork();
  net.dims[2].name = "pkg";
  const std::string msg = thrownMessage<InputError>([&] { net.validate(); });
  EXPECT_TRUE(contains(msg, "dimension 2")) << msg;
  EXPECT_TRUE(contains(msg, "'pkg'")) << msg;
}

TEST(Network, MinimumAboveMaximumIsRejected) {
  Network net = threeDimNetwork();
  net.dims[0].minBandwidth = 300;
  net.dims[0].maxBandwidth = 200;
  const std::string msg = thrownMessage<InputError>([&] { net.validate(); });
  EXPECT_TRUE(contains(msg, "'pkg'")) << msg;
  EXPECT_TRUE(contains(msg, "300")) << msg;
  EXPECT_TRUE(contains(msg, "200")) << msg;
  net.dims[0].maxBandwidth = 300;  // equal bounds are fine
  EXPECT_NO_THROW(net.validate());
}

TEST(Network, OtherInvalidNetworks) {
  Network empty;
  EXPECT_THROW(empty.validate(), InputError);
  Network net = threeDimNetwork();
  net.dims[0].fixedBandwidth = -5;
  EXPECT_THROW(net.validate(), InputError);
  net = threeDimNetwork();
  net.dims[1].name = "";
  EXPECT_THROW(net.validate(), InputError);
}

// ---------------------------------------------------------------------------
// Cost model (model.md section 6)
// ---------------------------------------------------------------------------

// Levels: A link 2; B link 3 (its Switch price must be ignored for FC);
// C link 5, switch 7, nic 11 (price 23 for a Switch dimension).
CostModel threeLevelCostModel() {
  return test::makeCostModel({{"A", CostLevel{2.0, std::nullopt, std::nullopt}},
                              {"B", CostLevel{3.0, 100.0, std::nullopt}},
                              {"C", CostLevel{5.0, 7.0, 11.0}}});
}

TEST(Cost, RingFullyConnectedAndSwitchPrices) {
  // Network pkg Ring(4, A), pod Switch(2, C), spare FC(2, B): N = 16.
  //   unit prices: [2, 5+7+11 = 23, 3]
  //   costPerBandwidth = 16 * [2, 23, 3] = [32, 368, 48]
  //   cost at bw [100, 50, 7] = 3200 + 18400 + 336 = 21936
  const Network net = threeDimNetwork();
  const CostModel model = threeLevelCostModel();
  EXPECT_EQ(unitPrices(net, model), (std::vector<double>{2, 23, 3}));
  EXPECT_EQ(costPerBandwidth(net, model), (std::vector<double>{32, 368, 48}));
  const Project project =
      test::makeProject(net, model, {twoLayerWorkload()}, TrainingLoop::NoOverlap, {});
  const Problem p = buildProblem(project);
  EXPECT_DOUBLE_EQ(p.cost(kBw), 21936);
  const Evaluation e = p.evaluate(kBw);
  EXPECT_DOUBLE_EQ(e.costUsd, 21936);
  EXPECT_DOUBLE_EQ(e.iterationNs, 8460);
}

TEST(Cost, ReferencePrices) {
  // Reference: package link 4, node link 4, pod link 7.8 + switch 18 + NIC 31.6 = 57.4.
  Network net;
  net.dims = {makeDim("package", BuildingBlock::Ring, 16, "InterPackage"),
              makeDim("node", BuildingBlock::FullyConnected, 8, "InterNode"),
              makeDim("pod", BuildingBlock::Switch, 32, "InterPod")};
  const auto prices = unitPrices(net, referenceCostModel());
  ASSERT_EQ(prices.size(), 3u);
  EXPECT_DOUBLE_EQ(prices[0], 4);
  EXPECT_DOUBLE_EQ(prices[1], 4);
  EXPECT_NEAR(prices[2], 57.4, 1e-12);
  // N = 16 * 8 * 32 = 4096.
  EXPECT_NEAR(costPerBandwidth(net, referenceCostModel())[2], 4096 * 57.4, 1e-9);
}

TEST(Cost, SwitchLevelWithoutNicIsAnInputErrorNamingTheLevel) {
  // The reference InterPackage level has Link and Switch but no Nic price.
  Network net;
  net.dims = {makeDim("package", BuildingBlock::Switch, 4, "InterPackage"),
              makeDim("pod", BuildingBlock::Switch, 4, "InterPod")};
  const std::string msg = thrownMessage<InputError>([&] { unitPrices(net, referenceCostModel()); });
  EXPECT_TRUE(contains(msg, "'InterPackage'")) << msg;
  EXPECT_TRUE(contains(msg, "Nic")) << msg;
  EXPECT_TRUE(contains(msg, "'package'")) << msg;
  // The same through the project path.
  Workload w;
  w.communicator = makeCommunicator({4, 4}, {4, 4}, {4, 4});
  const Project project =
      test::makeProject(net, referenceCostModel(), {w}, TrainingLoop::NoOverlap, {});
  EXPECT_THROW(buildProblem(project), InputError);
}

TEST(Cost, MissingSwitchPriceOrLevelIsAnInputError) {
  Network net;
  net.dims = {makeDim("a", BuildingBlock::Switch, 4, "A")};
  std::string msg = thrownMessage<InputError>([&] { unitPrices(net, threeLevelCostModel()); });
  EXPECT_TRUE(contains(msg, "'A'")) << msg;
  EXPECT_TRUE(contains(msg, "Switch")) << msg;
  net.dims[0].costLevel = "Nowhere";
  msg = thrownMessage<InputError>([&] { unitPrices(net, threeLevelCostModel()); });
  EXPECT_TRUE(contains(msg, "'Nowhere'")) << msg;
  // A Ring only needs the Link price; a negative one is an error.
  net.dims[0] = makeDim("a", BuildingBlock::Ring, 4, "A");
  EXPECT_NO_THROW(unitPrices(net, threeLevelCostModel()));
  CostModel bad = threeLevelCostModel();
  bad.levels["A"].link = -1;
  EXPECT_THROW(unitPrices(net, bad), InputError);
}

// The reference's way of counting hardware (model.md section 6 table), block by
// block, must multiply out to cost = N * sum_d price_d * bw_d. This recomputes
// the cost literally from the table for random networks and bandwidths.
RC_GTEST_PROP(CostProperties, BuildingBlockCountMatchesTheLinearForm, ()) {
  const int dims = *rc::gen::inRange(1, 6);
  Network net;
  CostModel model;
  std::vector<double> bw;
  for (int d = 0; d < dims; ++d) {
    const auto block = *rc::gen::element(BuildingBlock::Ring, BuildingBlock::FullyConnected,
                                         BuildingBlock::Switch);
    const int npus = *rc::gen::inRange(2, 17);
    const std::string level = "L" + std::to_string(d);
    net.dims.push_back(makeDim("d" + std::to_string(d), block, npus, level));
    model.levels[level] =
        CostLevel{*rc::gen::inRange(1, 1000) / 10.0, *rc::gen::inRange(1, 1000) / 10.0,
                  *rc::gen::inRange(1, 1000) / 10.0};
    bw.push_back(*rc::gen::inRange(0, 100000) / 7.0);
  }
  const double N = static_cast<double>(net.npuCount());
  double expected = 0;
  for (int d = 0; d < dims; ++d) {
    const Dimension& dim = net.dims[d];
    const CostLevel& lv = model.levels[dim.costLevel];
    const double n = dim.npus;
    switch (dim.block) {
      case BuildingBlock::Ring:  // 2n links of bw/2 per ring, N/n rings
        expected += (2 * n) * (bw[d] / 2) * (N / n) * *lv.link;
        break;
      case BuildingBlock::FullyConnected:  // n(n-1) links of bw/(n-1), N/n blocks
        expected += n * (n - 1) * (bw[d] / (n - 1)) * (N / n) * *lv.link;
        break;
      case BuildingBlock::Switch: {  // one switch spans dims 0..d
        double inside = 1, outside = 1;
        for (int e = 0; e <= d; ++e) inside *= net.dims[e].npus;
        for (int e = d + 1; e < dims; ++e) outside *= net.dims[e].npus;
        expected += inside * bw[d] * outside * (*lv.link + *lv.switchPrice + *lv.nic);
        break;
      }
    }
  }
  const auto perBw = costPerBandwidth(net, model);
  double actual = 0;
  for (int d = 0; d < dims; ++d) actual += perBw[d] * bw[d];
  // A handful of roundings in each sum: 1e-12 relative is ample.
  RC_ASSERT(test::relNear(actual, expected, 1e-12));
}

// ---------------------------------------------------------------------------
// Problem::checkBandwidth
// ---------------------------------------------------------------------------

TEST(Problem, CheckBandwidthRejectsBadVectors) {
  const Project project = test::makeProject(threeDimNetwork(), threeLevelCostModel(),
                                            {twoLayerWorkload()}, TrainingLoop::NoOverlap, {});
  const Problem p = buildProblem(project);
  EXPECT_NO_THROW(p.checkBandwidth(kBw));
  std::string msg = thrownMessage<InputError>([&] { p.checkBandwidth(std::vector<double>{1, 2}); });
  EXPECT_TRUE(contains(msg, "2 values")) << msg;
  msg = thrownMessage<InputError>([&] { p.checkBandwidth(std::vector<double>{1, -2, 3}); });
  EXPECT_TRUE(contains(msg, "'pod'")) << msg;
  EXPECT_THROW(p.checkBandwidth(std::vector<double>{1, 2, std::nan("")}), InputError);
  EXPECT_THROW(p.checkBandwidth(std::vector<double>{1, 2, INFINITY}), InputError);
}

TEST(Problem, BoundsFromTheNetworkBecomeConstraints) {
  Network net = threeDimNetwork();
  net.dims[0].fixedBandwidth = 120;
  net.dims[1].minBandwidth = 10;
  net.dims[2].maxBandwidth = 30;
  const Project project = test::makeProject(net, threeLevelCostModel(), {twoLayerWorkload()},
                                            TrainingLoop::NoOverlap, {"total <= 500"});
  const Problem p = buildProblem(project);
  ASSERT_EQ(p.constraints.size(), 4u);
  EXPECT_EQ(p.constraints[0].coefficients, (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(p.constraints[0].relation, Relation::Equal);
  EXPECT_EQ(p.constraints[0].rhs, 120);
  EXPECT_EQ(p.constraints[1].coefficients, (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(p.constraints[1].relation, Relation::GreaterEqual);
  EXPECT_EQ(p.constraints[1].rhs, 10);
  EXPECT_EQ(p.constraints[2].coefficients, (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(p.constraints[2].relation, Relation::LessEqual);
  EXPECT_EQ(p.constraints[2].rhs, 30);
  EXPECT_EQ(p.constraints[3].coefficients, (std::vector<double>{1, 1, 1}));
}

}  // namespace
}  // namespace libra

namespace libra {
namespace {

// Copies of a workload share their layers (a GUI edit or a solve snapshot copies
// none) until one of them is changed; the other never sees the change.
TEST(Workload, CopiesShareLayersUntilOneChanges) {
  Workload a;
  a.layers = {test::makeLayer("L0", test::makePhase(1), test::makePhase(2), test::makePhase(3)),
              test::makeLayer("L1", test::makePhase(4), test::makePhase(5), test::makePhase(6))};
  Workload b = a;
  EXPECT_TRUE(b.layers.sharesStorageWith(a.layers));
  EXPECT_EQ(a, b);
  b.layers.mutate()[1].name = "changed";
  EXPECT_FALSE(b.layers.sharesStorageWith(a.layers));
  EXPECT_EQ(a.layers[1].name, "L1");
  EXPECT_EQ(b.layers[1].name, "changed");
  EXPECT_NE(a, b);
  // A list nobody else holds is changed in place.
  const Layer* before = &b.layers[0];
  b.layers.mutate()[0].name = "again";
  EXPECT_EQ(&b.layers[0], before);
  // Equal contents in different storage still compare equal.
  Workload c;
  c.layers = std::vector<Layer>(a.layers.begin(), a.layers.end());
  EXPECT_FALSE(c.layers.sharesStorageWith(a.layers));
  EXPECT_EQ(c.layers, a.layers);
}

}  // namespace
}  // namespace libra
