// Parallelization mapping: degrees onto dimensions, automatic and by hand.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <numeric>

#include "libra/error.hpp"
#include "libra/mapping.hpp"
#include "preset_test_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

Network net(const std::vector<int>& npus, const std::vector<BuildingBlock>& blocks,
            const std::vector<std::string>& names) {
  Network n;
  for (std::size_t d = 0; d < npus.size(); ++d) {
    n.dims.push_back(dimension(names[d], blocks[d], npus[d], "InterPod"));
  }
  return n;
}

Network reference4d() {
  using B = BuildingBlock;
  return net({4, 8, 4, 32}, {B::Ring, B::FullyConnected, B::Ring, B::Switch},
             {"chiplet", "package", "node", "pod"});
}

std::string messageOf(const Network& n, const Parallelism& p) {
  try {
    mapParallelism(n, p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

long long product(const std::vector<int>& v) {
  return std::accumulate(v.begin(), v.end(), 1LL, std::multiplies<>());
}

}  // namespace

// GPT_3_4d.yml: TP 16 over chiplet (4) and half of package (4 of 8); DP 256 over
// the other half of package (2), node (4) and pod (32): a split dimension.
TEST(Mapping, SplitDimensionLikeTheGpt3Reference) {
  Parallelism p;
  p.tp = 16;
  const ParallelismMapping m = mapParallelism(reference4d(), p);
  EXPECT_EQ(m.tensor(), (std::vector<int>{4, 4, 1, 1}));
  EXPECT_EQ(m.data(), (std::vector<int>{1, 2, 4, 32}));
  EXPECT_EQ(m.pipeline(), (std::vector<int>{1, 1, 1, 1}));
  const Communicator c = m.communicator();
  EXPECT_EQ(c.of(PhaseKind::Forward), (std::vector<int>{4, 4, 1, 1}));
  EXPECT_EQ(c.of(PhaseKind::WeightGrad), (std::vector<int>{1, 2, 4, 32}));
}

// Where the groups lie on a dimension several axes share: TP consecutive, then
// EP, PP and DP each interleaved over the ones inside it (stride = the product
// of the inner axes' group sizes there); whole dimensions have stride 1.
TEST(Mapping, StridesOfAxesThatShareADimension) {
  Parallelism p;
  p.tp = 16;
  const ParallelismMapping m = mapParallelism(reference4d(), p);
  EXPECT_TRUE(m.strides(ParallelAxis::Tensor).empty());
  EXPECT_EQ(m.strides(ParallelAxis::Data), (std::vector<int>{1, 4, 1, 1}));
  EXPECT_EQ(m.communicator().stridesOf(PhaseKind::WeightGrad), (std::vector<int>{1, 4, 1, 1}));
  EXPECT_TRUE(m.communicator().stridesOf(PhaseKind::Forward).empty());

  Parallelism three;
  three.tp = 2;
  three.pp = 2;
  three.dp = 2;
  const ParallelismMapping x = mapParallelism(net({8}, {BuildingBlock::Ring}, {"x"}), three);
  EXPECT_TRUE(x.strides(ParallelAxis::Tensor).empty());
  EXPECT_EQ(x.strides(ParallelAxis::Pipeline), std::vector<int>{2});
  EXPECT_EQ(x.strides(ParallelAxis::Data), std::vector<int>{4});
}

TEST(Mapping, WholeDimensionsLikeTheMsft1TReference) {
  Parallelism p;
  p.tp = 128;
  const ParallelismMapping m = mapParallelism(reference4d(), p);
  EXPECT_EQ(m.tensor(), (std::vector<int>{4, 8, 4, 1}));
  EXPECT_EQ(m.data(), (std::vector<int>{1, 1, 1, 32}));
  EXPECT_EQ(formatGroups(m.tensor()), "[4, 8, 4, -1]");
}

TEST(Mapping, OneDimensionSplitThreeWays) {
  Parallelism p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 2;
  const ParallelismMapping m = mapParallelism(net({8}, {BuildingBlock::Switch}, {"x"}), p);
  EXPECT_EQ(m.tensor(), std::vector<int>{2});
  EXPECT_EQ(m.pipeline(), std::vector<int>{2});
  EXPECT_EQ(m.data(), std::vector<int>{2});
}

TEST(Mapping, ExpertParallelContinuesInsideOut) {
  Parallelism p;
  p.tp = 8;
  p.ep = 8;
  using B = BuildingBlock;
  const ParallelismMapping m =
      mapParallelism(net({8, 8, 64}, {B::Ring, B::Ring, B::Switch}, {"a", "b", "c"}), p);
  EXPECT_EQ(m.tensor(), (std::vector<int>{8, 1, 1}));
  EXPECT_EQ(m.expert(), (std::vector<int>{1, 8, 1}));
  EXPECT_EQ(m.data(), (std::vector<int>{1, 1, 64}));
  EXPECT_EQ(m.denseData(), (std::vector<int>{1, 8, 64}));
}

TEST(Mapping, DerivedDataParallelDegree) {
  Parallelism p;
  p.tp = 16;
  EXPECT_EQ(resolveDegrees(p, 4096).dp, 256);
  p.ep = 2;
  p.pp = 4;
  EXPECT_EQ(resolveDegrees(p, 4096).dp, 32);
  EXPECT_EQ(p.label(), "TP 16 x EP 2 x PP 4 x DP auto");
}

TEST(Mapping, ImpossibleTensorGroupNamesDegreeAndDimension) {
  using B = BuildingBlock;
  Parallelism p;
  p.tp = 3;  // 12 NPUs: DP 4; TP 3 cannot come out of package's 4 NPUs
  const std::string m = messageOf(net({4, 3}, {B::Ring, B::Switch}, {"package", "pod"}), p);
  EXPECT_NE(m.find("TP 3"), std::string::npos) << m;
  EXPECT_NE(m.find("'package'"), std::string::npos) << m;
  EXPECT_NE(m.find("inside out"), std::string::npos) << m;
}

TEST(Mapping, ImpossibleDataGroupNamesDegreeAndDimension) {
  using B = BuildingBlock;
  Parallelism p;
  p.pp = 2;  // DP 6 from the outside: pod has 4 NPUs, neither divides the other
  const std::string m = messageOf(net({3, 4}, {B::Ring, B::Switch}, {"node", "pod"}), p);
  EXPECT_NE(m.find("DP 6"), std::string::npos) << m;
  EXPECT_NE(m.find("'pod'"), std::string::npos) << m;
  EXPECT_NE(m.find("outside in"), std::string::npos) << m;
}

TEST(Mapping, ProductMustMatchTheNetwork) {
  Parallelism p;
  p.tp = 2;
  p.dp = 4;
  const std::string m = messageOf(ringNetwork({4, 4}, {"a", "b"}), p);
  EXPECT_NE(m.find("= 8 NPUs"), std::string::npos) << m;
  EXPECT_NE(m.find("16 NPUs"), std::string::npos) << m;
  Parallelism q;
  q.tp = 3;
  const std::string n = messageOf(ringNetwork({4, 4}, {"a", "b"}), q);
  EXPECT_NE(n.find("does not divide the network's 16 NPUs"), std::string::npos) << n;
  Parallelism zero;
  zero.tp = 0;
  EXPECT_THROW(mapParallelism(ringNetwork({4, 4}, {"a", "b"}), zero), InputError);
}

TEST(Mapping, GivenByHand) {
  Parallelism p;
  p.tp = 16;
  // TP over chiplet x node instead of chiplet x package.
  p.tpGroups = {4, 1, 4, 1};
  p.dpGroups = {1, 8, 1, 32};
  const ParallelismMapping m = mapParallelism(reference4d(), p);
  EXPECT_EQ(m.tensor(), (std::vector<int>{4, 1, 4, 1}));
  EXPECT_EQ(m.data(), (std::vector<int>{1, 8, 1, 32}));

  p.dpGroups = {1, 4, 1, 64};  // 64 > 32 NPUs of pod
  EXPECT_NE(messageOf(reference4d(), p).find("'pod'"), std::string::npos);
  p.dpGroups = {1, 4, 2, 32};  // node: 4 x 2 = 8 != 4; package 4 != 8
  const std::string m2 = messageOf(reference4d(), p);
  EXPECT_NE(m2.find("multiply to"), std::string::npos) << m2;
  p.dpGroups = {};
  EXPECT_NE(messageOf(reference4d(), p).find("DP 256"), std::string::npos);
}

// Automatic mappings of power-of-two networks: every axis gets its degree, each
// dimension is fully used, TP is a contiguous block from the inside, DP from the
// outside.
RC_GTEST_PROP(Mapping, AutomaticMappingIsAConsistentNesting, ()) {
  const int dims = *rc::gen::inRange(1, 5);
  std::vector<int> npus;
  for (int d = 0; d < dims; ++d) npus.push_back(1 << *rc::gen::inRange(1, 5));
  int log2n = 0;
  for (int n : npus) log2n += __builtin_ctz(static_cast<unsigned>(n));
  const int tpLog = *rc::gen::inRange(0, log2n + 1);
  const int ppLog = *rc::gen::inRange(0, log2n - tpLog + 1);
  std::vector<std::string> names;
  for (int d = 0; d < dims; ++d) names.push_back("d" + std::to_string(d));
  const Network n = ringNetwork(npus, names);
  Parallelism p;
  p.tp = 1 << tpLog;
  p.pp = 1 << ppLog;
  const ParallelismMapping m = mapParallelism(n, p);
  RC_ASSERT(product(m.tensor()) == p.tp);
  RC_ASSERT(product(m.pipeline()) == p.pp);
  RC_ASSERT(product(m.data()) == n.npuCount() / p.tp / p.pp);
  for (int d = 0; d < dims; ++d) {
    RC_ASSERT(m.tensor()[d] * m.expert()[d] * m.pipeline()[d] * m.data()[d] == npus[d]);
  }
  // Contiguity: a dimension only partly used by TP ends the TP block.
  bool tpEnded = false;
  for (int d = 0; d < dims; ++d) {
    if (tpEnded) RC_ASSERT(m.tensor()[d] == 1);
    if (m.tensor()[d] < npus[d]) tpEnded = true;
  }
  bool dpEnded = false;
  for (int d = dims - 1; d >= 0; --d) {
    if (dpEnded) RC_ASSERT(m.data()[d] == 1);
    if (m.data()[d] < npus[d]) dpEnded = true;
  }
}
