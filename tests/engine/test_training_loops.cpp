// Training loops against hand-computed timelines, and several weighted workloads
// in one objective (docs/workloads.md section 5).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <random>

#include "libra/project.hpp"
#include "libra/solver.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using libra::testing::dimension;

namespace {

Phase ph(double compute, CollectiveType type = CollectiveType::None, double size = 0) {
  Phase p;
  p.computeNs = compute;
  p.collective = type;
  p.sizeBytes = size;
  return p;
}

// One Ring(2) dimension: an AllReduce of S bytes moves 2 S (2 - 1) / 2 = S bytes,
// an AllGather of an S-byte shard S (2 - 1) = S bytes; at bw = 1 GB/s = 1 byte/ns
// each takes S ns.
Project twoLayers(double secondGradient, bool firstHasGradient, TrainingLoop loop) {
  using C = CollectiveType;
  Project p;
  p.network.dims = {dimension("x", BuildingBlock::Ring, 2, "InterPod")};
  p.costModel = referenceCostModel();
  Workload w;
  w.name = "two layers";
  w.communicator.groups = {std::vector<int>{2}, std::vector<int>{2}, std::vector<int>{2}};
  Layer l1;
  l1.name = "L1";
  l1.phases = {ph(10, C::AllReduce, 6), ph(5), firstHasGradient ? ph(3, C::AllReduce, 8) : ph(3)};
  Layer l2;
  l2.name = "L2";
  l2.phases = {ph(20), ph(7, C::AllGather, 2), ph(4, C::AllReduce, secondGradient)};
  w.layers = {l1, l2};
  p.workloads = {w};
  p.model.trainingLoop = loop;
  p.constraints = {"total == 1"};
  return p;
}

double timeAtOneGBps(const Project& p) {
  const std::vector<double> bw{1};
  return buildProblem(p).evaluate(bw).iterationNs;
}

}  // namespace

// Timeline of the overlap loop (forward and input-gradient collectives block; each
// weight-gradient collective queues once its compute is done):
//   forward   L1 0-10, its AllReduce 10-16, L2 16-36
//   backward  L2 IG 36-43, AllGather 43-45, L2 WG 45-49 -> gradient L2 (50 ns) queued at 49
//             L1 IG 49-54, L1 WG 54-57                  -> gradient L1 (8 ns) queued at 57
//   queue     L2 49-99, L1 99-107                        -> T = 107 ns
// No overlap: 30 + 6 + 7 + 2 + 4 + 50 + 5 + 3 + 8 = 115 ns.
TEST(TrainingLoops, OverlapQueueDominates) {
  EXPECT_DOUBLE_EQ(timeAtOneGBps(twoLayers(50, true, TrainingLoop::Overlap)), 107);
  EXPECT_DOUBLE_EQ(timeAtOneGBps(twoLayers(50, true, TrainingLoop::NoOverlap)), 115);
  // The solver sees the same function: with total == 1 the only point is bw = 1.
  const Solution s =
      solve(buildProblem(twoLayers(50, true, TrainingLoop::Overlap)), Objective::Performance);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NEAR(s.eval.iterationNs, 107, 1e-6);
}

// With a 5 ns gradient for L2 the queue is idle when L1's gradient arrives:
//   L2 gradient 49-54, L1 gradient 57-65 -> T = 65 ns.
TEST(TrainingLoops, OverlapQueueIdle) {
  EXPECT_DOUBLE_EQ(timeAtOneGBps(twoLayers(5, true, TrainingLoop::Overlap)), 65);
}

// Without L1's gradient the last collective (49-54) hides behind L1's backward
// compute, which ends at 57: T = compute + blocking collectives = 57 ns.
TEST(TrainingLoops, OverlapFullyHidden) {
  EXPECT_DOUBLE_EQ(timeAtOneGBps(twoLayers(5, false, TrainingLoop::Overlap)), 57);
}

// Recompute: forward compute (30) and forward collectives (6) count twice:
// 115 + 36 = 151 ns.
TEST(TrainingLoops, RecomputeCountsTheForwardTwice) {
  EXPECT_DOUBLE_EQ(timeAtOneGBps(twoLayers(50, true, TrainingLoop::Recompute)), 151);
}

// Two workloads, weights 1/4 and 3/4, each using one dimension of Ring(2) x Ring(2):
//   T(bw) = 0.25 (100 + 1000 / bw0) + 0.75 (200 + 3000 / bw1).
// At bw = (2, 4): 0.25 x 600 + 0.75 x 950 = 862.5 ns.
// Under bw0 + bw1 = 10 the optimum of a / x + b / (10 - x) with a = 250, b = 2250 is
// x = 10 sqrt(a) / (sqrt(a) + sqrt(b)) = 2.5, so bw = (2.5, 7.5) and
// T* = 25 + 150 + 250 / 2.5 + 2250 / 7.5 = 575 ns.
TEST(TrainingLoops, WeightedWorkloadsSumInTheObjective) {
  using C = CollectiveType;
  Project p;
  p.network.dims = {dimension("a", BuildingBlock::Ring, 2, "InterNode"),
                    dimension("b", BuildingBlock::Ring, 2, "InterPod")};
  p.costModel = referenceCostModel();
  auto workload = [](const char* name, double weight, double compute, double size,
                     std::vector<int> groups) {
    Workload w;
    w.name = name;
    w.weight = weight;
    w.communicator.groups = {std::vector<int>{1, 1}, std::vector<int>{1, 1}, groups};
    Layer l;
    l.name = "only";
    l.phases = {ph(compute), ph(0), ph(0, C::AllReduce, size)};
    w.layers = {l};
    return w;
  };
  p.workloads = {workload("A", 0.25, 100, 1000, {2, 1}), workload("B", 0.75, 200, 3000, {1, 2})};
  p.constraints = {"total == 10"};
  const Problem problem = buildProblem(p);
  const std::vector<double> bw{2, 4};
  EXPECT_DOUBLE_EQ(problem.evaluate(bw).iterationNs, 862.5);
  EXPECT_DOUBLE_EQ(problem.evaluate(bw).computeNs, 175);
  const Solution s = solve(problem, Objective::Performance);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NEAR(s.bandwidth[0], 2.5, 1e-5);
  EXPECT_NEAR(s.bandwidth[1], 7.5, 1e-5);
  EXPECT_NEAR(s.eval.iterationNs, 575, 575 * 1e-7);
}

namespace {

// `layers` layers on one Ring(2) dimension (each collective of S bytes takes S
// ns at 1 GB/s), every phase's compute and collective drawn from `seed`, each
// collective of its own size (so no two merge), some phases without one.
Project randomLayers(int layers, unsigned seed, TrainingLoop loop) {
  using C = CollectiveType;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> compute(0, 100), size(1, 100);
  std::bernoulli_distribution has(0.8);
  Project p = twoLayers(1, true, loop);
  Workload& w = p.workloads[0];
  w.layers.mutate().clear();
  for (int i = 0; i < layers; ++i) {
    Layer l;
    l.name = "L" + std::to_string(i);
    l.phases = {ph(compute(rng), has(rng) ? C::AllReduce : C::None, size(rng)),
                ph(compute(rng), has(rng) ? C::AllReduce : C::None, size(rng)),
                ph(compute(rng), has(rng) ? C::AllReduce : C::None, size(rng))};
    w.layers.push_back(l);
  }
  return p;
}

// The overlap loop's timeline, simulated: the forward pass and the input
// gradients block; each weight gradient joins a queue once its compute is done
// and starts when the queue is free; the iteration ends when both are done.
double simulatedOverlap(const Project& p) {
  double clock = 0, queueFree = 0;
  const std::vector<Layer>& layers = p.workloads[0].layers.get();
  auto cost = [](const Phase& ph) {
    return ph.collective == CollectiveType::None ? 0.0 : ph.sizeBytes;
  };
  for (const Layer& l : layers) clock += l.phases[0].computeNs + cost(l.phases[0]);
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    clock += it->phases[1].computeNs + cost(it->phases[1]);
    clock += it->phases[2].computeNs;
    if (it->phases[2].collective != CollectiveType::None) {
      queueFree = std::max(queueFree, clock) + it->phases[2].sizeBytes;
    }
  }
  return std::max(clock, queueFree);
}

}  // namespace

// The time model's overlap pieces (each the difference from the one before)
// against the simulated timeline, for random workloads of up to 200 layers.
RC_GTEST_PROP(TrainingLoopsProperties, OverlapMatchesTheSimulatedTimeline, ()) {
  const int layers = *rc::gen::inRange(1, 200);
  const auto seed = *rc::gen::arbitrary<unsigned>();
  const Project p = randomLayers(layers, seed, TrainingLoop::Overlap);
  const double expected = simulatedOverlap(p);
  const double modelled = timeAtOneGBps(p);
  RC_ASSERT(std::abs(modelled - expected) <= 1e-12 * expected);
}

// 3,000 layers of distinct collectives: the overlap loop's pieces hold a few
// terms per layer (the whole sums held 13 million: 0.97 GB and no answer in
// 30 s), and the native solver answers.
TEST(TrainingLoops, TheOverlapLoopIsLinearInTheLayers) {
  const Project p = randomLayers(3000, 7, TrainingLoop::Overlap);
  const Problem problem = buildProblem(p);
  std::size_t terms = 0;
  for (const auto& g : problem.time.groups) {
    for (const auto& piece : g.pieces) terms += piece.terms.size();
  }
  EXPECT_LT(terms, 4u * 3000u);
  EXPECT_NEAR(timeAtOneGBps(p), simulatedOverlap(p), 1e-12 * simulatedOverlap(p));
  const Solution s = solve(problem, Objective::Performance);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_NEAR(s.bandwidth[0], 1, 1e-9);  // the only dimension, under `total == 1`
}
