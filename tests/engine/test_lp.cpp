// The presolve's dense two-phase simplex (engine/solve/src/lp.hpp):
//   minimize c'x  subject to  Aeq x == beq,  Ain x <= bin,  x >= 0.
// Small LPs with optima worked out by hand, infeasible and unbounded ones, a
// classic cycling example, redundant equalities, and a property against brute
// force vertex enumeration.
//
// Tolerances: the data are small integers or simple fractions and the simplex
// takes a handful of pivots, so values agree to ~1e-15; we allow 1e-12.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "lp.hpp"
#include "rc_support.hpp"

namespace libra::lp {
namespace {

constexpr double kTol = 1e-12;

Eigen::MatrixXd rows(int cols, std::initializer_list<std::initializer_list<double>> r) {
  Eigen::MatrixXd m(static_cast<int>(r.size()), cols);
  int i = 0;
  for (const auto& row : r) {
    int j = 0;
    for (double v : row) m(i, j++) = v;
    ++i;
  }
  return m;
}

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd x(static_cast<int>(v.size()));
  int i = 0;
  for (double a : v) x(i++) = a;
  return x;
}

Eigen::MatrixXd none(int cols) {
  return Eigen::MatrixXd(0, cols);
}
Eigen::VectorXd noneVec() {
  return Eigen::VectorXd(0);
}

void expectFeasible(const Result& r, const Eigen::MatrixXd& Aeq, const Eigen::VectorXd& beq,
                    const Eigen::MatrixXd& Ain, const Eigen::VectorXd& bin) {
  ASSERT_EQ(r.x.size(), std::max(Aeq.cols(), Ain.cols()));
  EXPECT_GE(r.x.minCoeff(), 0);
  if (Aeq.rows()) {
    EXPECT_LE((Aeq * r.x - beq).cwiseAbs().maxCoeff(), 1e-9);
  }
  if (Ain.rows()) {
    EXPECT_LE((Ain * r.x - bin).maxCoeff(), 1e-9);
  }
}

TEST(Lp, TwoVariablesInequalities) {
  // max x + y s.t. x + 2y <= 4, 3x + y <= 6. Vertices: (0,0), (2,0), (0,2) and
  // the intersection x + 2y = 4, 3x + y = 6 -> x = 8/5, y = 6/5 (x + y = 2.8),
  // the best. As a minimization of -x - y: value -2.8.
  const auto Ain = rows(2, {{1, 2}, {3, 1}});
  const auto bin = vec({4, 6});
  const Result r = minimize(vec({-1, -1}), none(2), noneVec(), Ain, bin);
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, -2.8, kTol);
  EXPECT_NEAR(r.x(0), 1.6, kTol);
  EXPECT_NEAR(r.x(1), 1.2, kTol);
  expectFeasible(r, none(2), noneVec(), Ain, bin);
}

TEST(Lp, EqualityPicksTheCheapestVariable) {
  // min x + 2y + 3z s.t. x + y + z == 1: all weight on x, value 1.
  const auto Aeq = rows(3, {{1, 1, 1}});
  const Result r = minimize(vec({1, 2, 3}), Aeq, vec({1}), none(3), noneVec());
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, 1, kTol);
  EXPECT_NEAR(r.x(0), 1, kTol);
  EXPECT_NEAR(r.x(1), 0, kTol);
  EXPECT_NEAR(r.x(2), 0, kTol);
}

TEST(Lp, NegativeRightHandSideNeedsPhaseOne) {
  // x - y <= -1 (y >= x + 1); min y + x: x = 0, y = 1, value 1. The origin is not
  // feasible, so phase 1 must find a start.
  const auto Ain = rows(2, {{1, -1}});
  const Result r = minimize(vec({1, 1}), none(2), noneVec(), Ain, vec({-1}));
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, 1, kTol);
  EXPECT_NEAR(r.x(0), 0, kTol);
  EXPECT_NEAR(r.x(1), 1, kTol);
}

TEST(Lp, MixedEqualitiesAndInequalities) {
  // min -x - 2y + z s.t. x + y + z == 10, y <= 4, x - z >= 2 (-x + z <= -2).
  // z costs, so z = 0 if possible: x + y = 10, y <= 4, x >= 2: objective
  // -x - 2y = -(10 - y) - 2y = -10 - y, best at y = 4, x = 6: value -14.
  const auto Aeq = rows(3, {{1, 1, 1}});
  const auto Ain = rows(3, {{0, 1, 0}, {-1, 0, 1}});
  const Result r = minimize(vec({-1, -2, 1}), Aeq, vec({10}), Ain, vec({4, -2}));
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, -14, kTol);
  EXPECT_NEAR(r.x(0), 6, kTol);
  EXPECT_NEAR(r.x(1), 4, kTol);
  EXPECT_NEAR(r.x(2), 0, kTol);
}

TEST(Lp, InfeasibleSystems) {
  // x + y <= 1 and x + y == 3.
  EXPECT_EQ(minimize(vec({0, 0}), rows(2, {{1, 1}}), vec({3}), rows(2, {{1, 1}}), vec({1})).status,
            Status::Infeasible);
  // x <= -1 with x >= 0.
  EXPECT_EQ(minimize(vec({1}), none(1), noneVec(), rows(1, {{1}}), vec({-1})).status,
            Status::Infeasible);
  // x + y == 1 and x + y == 2.
  EXPECT_EQ(
      minimize(vec({0, 0}), rows(2, {{1, 1}, {1, 1}}), vec({1, 2}), none(2), noneVec()).status,
      Status::Infeasible);
  // -x - y == 1 (a negative combination of nonnegatives).
  EXPECT_EQ(minimize(vec({0, 0}), rows(2, {{-1, -1}}), vec({1}), none(2), noneVec()).status,
            Status::Infeasible);
}

TEST(Lp, UnboundedSystems) {
  // min -x s.t. x - y <= 1: x = 1 + y grows without limit.
  EXPECT_EQ(minimize(vec({-1, 0}), none(2), noneVec(), rows(2, {{1, -1}}), vec({1})).status,
            Status::Unbounded);
  // No rows at all and a negative cost.
  EXPECT_EQ(minimize(vec({0, -1}), none(2), noneVec(), none(2), noneVec()).status,
            Status::Unbounded);
  // Unbounded direction along an equality: x - y == 0, min -x.
  EXPECT_EQ(minimize(vec({-1, 0}), rows(2, {{1, -1}}), vec({0}), none(2), noneVec()).status,
            Status::Unbounded);
}

TEST(Lp, NoRowsNonNegativeCostIsOptimalAtTheOrigin) {
  const Result r = minimize(vec({1, 0, 2}), none(3), noneVec(), none(3), noneVec());
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_EQ(r.value, 0);
  EXPECT_EQ(r.x, Eigen::VectorXd::Zero(3));
}

TEST(Lp, BealeCyclingExample) {
  // Beale (1955), the classic LP on which the simplex cycles with Dantzig's
  // largest-coefficient rule (Chvatal, Linear Programming, ch. 3):
  //   min -3/4 x4 + 150 x5 - 1/50 x6 + 6 x7
  //   s.t. 1/4 x4 -  60 x5 - 1/25 x6 + 9 x7 <= 0
  //        1/2 x4 -  90 x5 - 1/50 x6 + 3 x7 <= 0
  //                              x6        <= 1
  // Optimum -1/20 at x4 = 1/25, x6 = 1, x5 = x7 = 0: row 1 = 1/100 - 1/25 < 0,
  // row 2 = 1/50 - 1/50 = 0, objective -3/100 - 2/100. Dual certificate: the
  // multipliers y = (0, 3/2, 1/20) >= 0 give c + A'y = (0, 15, 0, 21/2) >= 0, so
  // c'x >= -b'y = -1/20 for every feasible x.
  const auto Ain = rows(4, {{0.25, -60, -1.0 / 25, 9}, {0.5, -90, -1.0 / 50, 3}, {0, 0, 1, 0}});
  const auto bin = vec({0, 0, 1});
  const Result r = minimize(vec({-0.75, 150, -1.0 / 50, 6}), none(4), noneVec(), Ain, bin);
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, -0.05, kTol);
  EXPECT_NEAR(r.x(0), 1.0 / 25, kTol);
  EXPECT_NEAR(r.x(1), 0, kTol);
  EXPECT_NEAR(r.x(2), 1, kTol);
  EXPECT_NEAR(r.x(3), 0, kTol);
  expectFeasible(r, none(4), noneVec(), Ain, bin);
}

TEST(Lp, DegenerateVertexWithManyTightConstraints) {
  // Rows x <= 1, y <= 1, x + y <= 2, x - y <= 0, y - x <= 0 (so x == y). Four
  // constraints are tight at the origin and five at the optimum (1, 1), where
  // max x + y = 2 (value -2 as a minimization).
  const auto Ain = rows(2, {{1, 0}, {0, 1}, {1, 1}, {1, -1}, {-1, 1}});
  const Result r = minimize(vec({-1, -1}), none(2), noneVec(), Ain, vec({1, 1, 2, 0, 0}));
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, -2, kTol);
  EXPECT_NEAR(r.x(0), 1, kTol);
  EXPECT_NEAR(r.x(1), 1, kTol);
}

TEST(Lp, RedundantEqualities) {
  // Rows [1 1 0] = 2, [2 2 0] = 4, [1 1 1] = 3, [0 0 1] = 1 have rank 2: the
  // second is twice the first, the third is the first plus the fourth. So
  // z = 1 and x + y = 2; min x + 3y + z puts x = 2, y = 0: value 3.
  const auto Aeq = rows(3, {{1, 1, 0}, {2, 2, 0}, {1, 1, 1}, {0, 0, 1}});
  const auto beq = vec({2, 4, 3, 1});
  const Result r = minimize(vec({1, 3, 1}), Aeq, beq, none(3), noneVec());
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, 3, kTol);
  EXPECT_NEAR(r.x(0), 2, kTol);
  EXPECT_NEAR(r.x(1), 0, kTol);
  EXPECT_NEAR(r.x(2), 1, kTol);
  expectFeasible(r, Aeq, beq, none(3), noneVec());
}

TEST(Lp, RedundantEqualityAtZero) {
  // x - y == 0 twice and x + y <= 2; max x: x = y = 1.
  const auto Aeq = rows(2, {{1, -1}, {-1, 1}});
  const Result r = minimize(vec({-1, 0}), Aeq, vec({0, 0}), rows(2, {{1, 1}}), vec({2}));
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_NEAR(r.value, -1, kTol);
  EXPECT_NEAR(r.x(0), 1, kTol);
  EXPECT_NEAR(r.x(1), 1, kTol);
}

TEST(Lp, TiesAreRelativeToTheRightHandSides) {
  // min -x0 s.t. x0 + x1 == s, x0 - x1 <= 0: x0 = x1 = s/2, value -s/2, at any
  // scale. With ratios tied to an absolute 1e-15, every ratio at s = 2.4e-231
  // (a presolve scaled by a bound of 5e17) tied, and the answer (s, 0) broke
  // x0 <= x1 by its whole size.
  for (const double s : {2.413359821801407e-231, 1e-20, 1.0, 1e20, 1e200}) {
    SCOPED_TRACE(s);
    const auto Aeq = rows(2, {{1, 1}});
    const auto Ain = rows(2, {{1, -1}});
    const Result r = minimize(vec({-1, 0}), Aeq, vec({s}), Ain, vec({0}));
    ASSERT_EQ(r.status, Status::Optimal);
    EXPECT_NEAR(r.value / s, -0.5, kTol);
    EXPECT_NEAR(r.x(0) / s, 0.5, kTol);
    EXPECT_NEAR(r.x(1) / s, 0.5, kTol);
  }
}

// ---------------------------------------------------------------------------
// Property: random small bounded LPs against vertex enumeration.
// ---------------------------------------------------------------------------

struct Reference {
  bool feasible = false;
  double value = std::numeric_limits<double>::infinity();
};

// The feasible set is bounded (every variable has an upper bound row) and lies
// in x >= 0, so it is empty or has a vertex, and the minimum is at a vertex: a
// point where n linearly independent constraints (equalities, inequalities or
// x_j >= 0) are tight. Enumerate all n-subsets of the constraints.
Reference enumerateVertices(const Eigen::VectorXd& c, const Eigen::MatrixXd& Aeq,
                            const Eigen::VectorXd& beq, const Eigen::MatrixXd& Ain,
                            const Eigen::VectorXd& bin) {
  const int n = static_cast<int>(c.size());
  const int me = static_cast<int>(Aeq.rows()), mi = static_cast<int>(Ain.rows());
  const int total = me + mi + n;
  auto row = [&](int i) -> Eigen::RowVectorXd {
    if (i < me) return Aeq.row(i);
    if (i < me + mi) return Ain.row(i - me);
    Eigen::RowVectorXd e = Eigen::RowVectorXd::Zero(n);
    e(i - me - mi) = 1;
    return e;
  };
  auto rhs = [&](int i) { return i < me ? beq(i) : i < me + mi ? bin(i - me) : 0.0; };
  Reference ref;
  std::vector<int> pick(n);
  std::vector<bool> mask(total, false);
  std::fill(mask.begin(), mask.begin() + std::min(n, total), true);
  if (total < n) return ref;
  do {
    int j = 0;
    for (int i = 0; i < total; ++i) {
      if (mask[i]) pick[j++] = i;
    }
    Eigen::MatrixXd M(n, n);
    Eigen::VectorXd b(n);
    for (int k = 0; k < n; ++k) {
      M.row(k) = row(pick[k]);
      b(k) = rhs(pick[k]);
    }
    Eigen::FullPivLU<Eigen::MatrixXd> lu(M);
    if (lu.rank() < n) continue;
    const Eigen::VectorXd x = lu.solve(b);
    bool ok = (x.array() >= -1e-9).all();
    if (me) ok = ok && (Aeq * x - beq).cwiseAbs().maxCoeff() <= 1e-9;
    if (mi) ok = ok && (Ain * x - bin).maxCoeff() <= 1e-9;
    if (!ok) continue;
    ref.feasible = true;
    ref.value = std::min(ref.value, c.dot(x));
  } while (std::prev_permutation(mask.begin(), mask.end()));
  return ref;
}

rc::Gen<double> smallInt(int lo, int hi) {
  return rc::gen::map(rc::gen::inRange(lo, hi + 1), [](int v) { return static_cast<double>(v); });
}

struct RandomLp {
  Eigen::VectorXd c;
  Eigen::MatrixXd Aeq, Ain;
  Eigen::VectorXd beq, bin;
};

// A small bounded LP of small integers; degenerate draws are common.
RandomLp drawLp() {
  const int n = *rc::gen::inRange(1, 5);
  const int me = *rc::gen::inRange(0, 3);
  const int mi = *rc::gen::inRange(0, 4);
  // Degenerate draws are common: many zero right-hand sides and coefficients.
  Eigen::VectorXd c(n);
  for (int j = 0; j < n; ++j) c(j) = *smallInt(-5, 5);
  Eigen::MatrixXd Aeq(me, n), Ain(mi + n, n);
  Eigen::VectorXd beq(me), bin(mi + n);
  for (int i = 0; i < me; ++i) {
    for (int j = 0; j < n; ++j) Aeq(i, j) = *smallInt(-3, 3);
    beq(i) = *smallInt(-2, 6);
  }
  for (int i = 0; i < mi; ++i) {
    for (int j = 0; j < n; ++j) Ain(i, j) = *smallInt(-3, 3);
    bin(i) = *smallInt(-2, 6);
  }
  // Upper bounds x_j <= u_j keep the problem bounded.
  Ain.bottomRows(n).setIdentity();
  for (int j = 0; j < n; ++j) bin(mi + j) = *smallInt(0, 8);
  // Sometimes repeat an equality row, scaled (a redundant equality).
  if (me > 0 && *rc::gen::arbitrary<bool>()) {
    Aeq.conservativeResize(me + 1, n);
    beq.conservativeResize(me + 1);
    Aeq.row(me) = 2 * Aeq.row(0);
    beq(me) = 2 * beq(0);
  }
  return {c, Aeq, Ain, beq, bin};
}

TEST(LpProperties, AgreesWithVertexEnumeration) {
  // Cheap (microseconds per case): 2000 cases.
  libra::test::checkProperty(2000, [] {
    const auto [c, Aeq, Ain, beq, bin] = drawLp();
    const Reference ref = enumerateVertices(c, Aeq, beq, Ain, bin);
    const Result r = minimize(c, Aeq, beq, Ain, bin);
    RC_TAG(ref.feasible ? "feasible" : "infeasible");
    if (!ref.feasible) {
      RC_ASSERT(r.status == Status::Infeasible);
      return;
    }
    RC_ASSERT(r.status == Status::Optimal);
    RC_ASSERT(std::abs(r.value - ref.value) <= 1e-9 * (1 + std::abs(ref.value)));
    RC_ASSERT(std::abs(c.dot(r.x) - r.value) <= 1e-9 * (1 + std::abs(r.value)));
    RC_ASSERT((r.x.array() >= 0).all());
    if (Aeq.rows()) RC_ASSERT((Aeq * r.x - beq).cwiseAbs().maxCoeff() <= 1e-9);
    RC_ASSERT((Ain * r.x - bin).maxCoeff() <= 1e-9);
  });
}

TEST(LpProperties, ScaledRightHandSidesScaleTheAnswer) {
  // Right-hand sides times s = 10^k, k in [-250, 250], scale the feasible set
  // and the optimum by s: the verdicts and the optimum (relative to s) must
  // be those of s = 1. The presolve scales its rows to their largest bound,
  // so its LPs come with right-hand sides of any size.
  libra::test::checkProperty(1000, [] {
    const auto [c, Aeq, Ain, beq, bin] = drawLp();
    const double s = std::pow(10.0, *rc::gen::inRange(-250, 251));
    const Result one = minimize(c, Aeq, beq, Ain, bin);
    const Result scaled = minimize(c, Aeq, beq * s, Ain, bin * s);
    RC_ASSERT(one.status != Status::Failed);
    RC_ASSERT(scaled.status == one.status);
    if (one.status != Status::Optimal) return;
    RC_ASSERT(std::abs(scaled.value / s - one.value) <= 1e-9 * (1 + std::abs(one.value)));
    const Eigen::VectorXd x = scaled.x / s;
    RC_ASSERT((x.array() >= 0).all());
    if (Aeq.rows()) RC_ASSERT((Aeq * x - beq).cwiseAbs().maxCoeff() <= 1e-9);
    RC_ASSERT((Ain * x - bin).maxCoeff() <= 1e-9);
  });
}

}  // namespace
}  // namespace libra::lp
