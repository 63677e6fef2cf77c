// The sensitivity of an optimum (sensitivity.hpp): re-solves one step up and
// one step down, checked against closed forms and against independent cold
// solves.
//
// Closed forms (LIBRA's ideal model): the optimal value v is known as a
// function of the right-hand side, so each rate must equal the exact finite
// difference (v(b + h) - v(b)) / h or (v(b) - v(b - h)) / h of that function at
// the step h the engine reports, within 1e-5 relative (a solve's value is good
// to about 1e-10 of it; a rate is a difference over a step of 1e-4 of the
// right-hand side).
//
// Random problems (RapidCheck, generators.hpp): v is convex in every
// right-hand side for the performance objective, so the rate down never
// exceeds the rate up; more bandwidth is never slower; a direction without a
// rate is one a cold solve finds infeasible; and every rate matches the same
// difference of cold solves (solve() from scratch, no warm start), within the
// solves' noise: kNoise of v per solve, 2 kNoise v / h per rate.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "engine_test_support.hpp"
#include "generators.hpp"
#include "libra/analysis.hpp"
#include "libra/project_io.hpp"
#include "libra/sensitivity.hpp"
#include "rc_support.hpp"

namespace libra {
namespace {

using test::kBackends;
using test::makeCommunicator;
using test::makeDim;
using test::makeLayer;
using test::makePhase;
using test::relNear;
using test::withBackend;

constexpr double kClosedFormTol = 1e-5;
// A solve's value is accurate to this share of it (the backends stop at a
// gap of 1e-11 of the scaled objective; 1e-8 leaves room for the answer's
// projection onto the constraints and for IPOPT's looser stop).
constexpr double kNoise = 1e-8;

// inner Ring(4, link $2), outer Switch(16, $5 + $7 + $11): N = 64,
// costPerBandwidth = 64 * [2, 23] = [128, 1472].
Network twoDimNetwork() {
  Network n;
  n.dims = {makeDim("inner", BuildingBlock::Ring, 4, "A"),
            makeDim("outer", BuildingBlock::Switch, 16, "C")};
  return n;
}
CostModel costModel() {
  return test::makeCostModel(
      {{"A", CostLevel{2.0, std::nullopt, std::nullopt}}, {"C", CostLevel{5.0, 7.0, 11.0}}});
}
const std::vector<double> kPrice{128, 1472};

// One AllReduce of S bytes over both dimensions: V = (1.5 S, 0.46875 S); the
// compute of its layer is 6000 ns.
Workload oneAllReduce(double size = 1e9) {
  Workload w;
  w.name = "one";
  w.communicator = makeCommunicator({1, 1}, {1, 1}, {4, 16});
  w.layers = {makeLayer("L", makePhase(1000), makePhase(2000),
                        makePhase(3000, CollectiveType::AllReduce, size))};
  return w;
}
constexpr double kV0 = 1.5e9, kV1 = 0.46875e9, kCompute = 6000;

// Two AllReduces, one on each dimension alone, so T = c + W0/bw0 + W1/bw1 is
// smooth: W0 = 2 S0 3/4, W1 = 2 S1 15/16; c = 6 computeNs.
Workload twoSeparate(double computeNs = 1000) {
  Workload w;
  w.name = "two";
  w.communicator = makeCommunicator({1, 1}, {4, 1}, {1, 16});
  w.layers = {makeLayer("L", makePhase(computeNs),
                        makePhase(2 * computeNs, CollectiveType::AllReduce, 1e9),
                        makePhase(3 * computeNs, CollectiveType::AllReduce, 2e9))};
  return w;
}
constexpr double kW0 = 1.5e9, kW1 = 3.75e9;

// One AllReduce of 1e9 bytes on the outer dimension alone: T = c + W1 / bw1.
Workload outerOnly(double computeNs) {
  Workload w;
  w.name = "outer";
  w.communicator = makeCommunicator({1, 1}, {1, 1}, {1, 16});
  w.layers = {makeLayer("L", makePhase(computeNs), makePhase(2 * computeNs),
                        makePhase(3 * computeNs, CollectiveType::AllReduce, 1e9))};
  return w;
}
constexpr double kOuterV = 1.875e9;

Problem makeProblem(Workload w, std::vector<std::string> constraints) {
  return buildProblem(test::makeProject(twoDimNetwork(), costModel(), {std::move(w)},
                                        TrainingLoop::NoOverlap, std::move(constraints)));
}

struct Solved {
  Solution solution;
  Sensitivity sensitivity;
};
Solved solveAndSense(const Problem& p, Backend backend,
                     Objective objective = Objective::Performance) {
  Solved s;
  s.solution = solve(p, objective, withBackend(backend));
  EXPECT_TRUE(s.solution.ok()) << s.solution.message;
  if (s.solution.ok()) s.sensitivity = sensitivityAt(p, s.solution, withBackend(backend));
  EXPECT_TRUE(s.sensitivity.computed) << s.sensitivity.note;
  return s;
}

// The two finite differences of v at b with step h, as the engine defines them.
struct Differences {
  double up, down;
};
template <class V>
Differences differencesOf(V&& v, double b, double h) {
  return {(v(b + h) - v(b)) / h, (v(b) - v(b - h)) / h};
}

::testing::AssertionResult ratesAre(const std::optional<double>& up,
                                    const std::optional<double>& down, Differences expected,
                                    double tolerance = kClosedFormTol) {
  if (!up || !down) return ::testing::AssertionFailure() << "a direction has no rate";
  if (auto r = relNear(*up, expected.up, tolerance); !r) return r << " (up)";
  if (auto r = relNear(*down, expected.down, tolerance); !r) return r << " (down)";
  return ::testing::AssertionSuccess();
}

class SensitivityClosedForm : public ::testing::TestWithParam<Backend> {};

// One collective under `total == B`: the split is balanced and v(B) = c +
// sum V / B. A GB/s given to any one dimension is worth what one more of the
// total is (the others re-split around it), so every dimension is a bottleneck.
TEST_P(SensitivityClosedForm, OneCollectiveUnderATotalBudget) {
  auto v = [](double B) { return kCompute + (kV0 + kV1) / B; };
  for (const char* total : {"total == 500", "total <= 500"}) {
    SCOPED_TRACE(total);
    const Solved s = solveAndSense(makeProblem(oneAllReduce(), {total}), GetParam());
    ASSERT_EQ(s.sensitivity.constraints.size(), 1u);
    const ConstraintSensitivity& c = s.sensitivity.constraints[0];
    EXPECT_EQ(c.constraint, total);
    EXPECT_EQ(c.unit, "GB/s");
    EXPECT_TRUE(c.binding);
    EXPECT_DOUBLE_EQ(c.step, kSensitivityStep * 500);
    EXPECT_TRUE(ratesAre(c.nsPerUnit, c.nsPerUnitDown, differencesOf(v, 500, c.step)));
    ASSERT_EQ(s.sensitivity.dims.size(), 2u);
    for (const DimensionSensitivity& d : s.sensitivity.dims) {
      SCOPED_TRACE(d.name);
      EXPECT_TRUE(ratesAre(d.nsPerGbps, d.nsPerGbpsDown, differencesOf(v, 500, d.step)));
      EXPECT_TRUE(d.bottleneck);
    }
    EXPECT_GT(s.sensitivity.resolves, 0);
  }
}

// The outer dimension capped below its share: bw = (B - U, U), v = c + V1 / U.
// More or less total moves the inner dimension, which does not set the pace
// (0 both ways, yet binding); the cap's rates are those of V1 / U, and the
// outer dimension is the bottleneck.
TEST_P(SensitivityClosedForm, ACappedDimensionIsTheBottleneck) {
  const double U = 50;  // its share would be 500 * 0.46875 / 1.96875 = 119
  const Solved s =
      solveAndSense(makeProblem(oneAllReduce(), {"total == 500", "bw[outer] <= 50"}), GetParam());
  ASSERT_EQ(s.sensitivity.constraints.size(), 2u);
  const ConstraintSensitivity& total = s.sensitivity.constraints[0];
  const ConstraintSensitivity& cap = s.sensitivity.constraints[1];
  EXPECT_TRUE(total.binding);
  EXPECT_TRUE(cap.binding);
  EXPECT_EQ(total.nsPerUnit, 0.0);
  EXPECT_EQ(total.nsPerUnitDown, 0.0);
  auto v = [](double cap) { return kCompute + kV1 / cap; };
  EXPECT_TRUE(ratesAre(cap.nsPerUnit, cap.nsPerUnitDown, differencesOf(v, U, cap.step)));
  const DimensionSensitivity& inner = s.sensitivity.dims[0];
  const DimensionSensitivity& outer = s.sensitivity.dims[1];
  EXPECT_EQ(inner.nsPerGbps, 0.0);
  EXPECT_EQ(inner.nsPerGbpsDown, 0.0);
  EXPECT_FALSE(inner.bottleneck);
  EXPECT_TRUE(ratesAre(outer.nsPerGbps, outer.nsPerGbpsDown, differencesOf(v, U, outer.step)));
  EXPECT_EQ(s.sensitivity.bottlenecks(), std::vector<std::string>{"outer"});
}

// T = c + W0 / bw0 + W1 / bw1 (smooth). Under `total == B`:
// v(B) = c + (sqrt W0 + sqrt W1)^2 / B. Under `cost <= C` (prices p):
// v(C) = c + (sum_j sqrt(W_j p_j))^2 / C, in ns per $.
TEST_P(SensitivityClosedForm, SmoothTimeUnderATotalOrACostBudget) {
  const double c = 6000;
  {
    const Solved s = solveAndSense(makeProblem(twoSeparate(), {"total == 400"}), GetParam());
    const double root = std::sqrt(kW0) + std::sqrt(kW1);
    const ConstraintSensitivity& total = s.sensitivity.constraints.at(0);
    auto v = [&](double B) { return c + root * root / B; };
    EXPECT_TRUE(ratesAre(total.nsPerUnit, total.nsPerUnitDown, differencesOf(v, 400, total.step)));
  }
  {
    const Solved s = solveAndSense(makeProblem(twoSeparate(), {"cost <= 1e5"}), GetParam());
    const double root = std::sqrt(kW0 * kPrice[0]) + std::sqrt(kW1 * kPrice[1]);
    const ConstraintSensitivity& cost = s.sensitivity.constraints.at(0);
    EXPECT_EQ(cost.unit, "$");
    EXPECT_DOUBLE_EQ(cost.step, kSensitivityStep * 1e5);
    auto v = [&](double C) { return c + root * root / C; };
    EXPECT_TRUE(ratesAre(cost.nsPerUnit, cost.nsPerUnitDown, differencesOf(v, 1e5, cost.step)));
    // A gift of g GB/s on dimension d beyond the budget: the budget buys x with
    // p . x = C, and T = c + W_d / (x_d + g) + W_o / x_o. Its optimum by
    // bisection on the derivative (independent of the solvers).
    for (int d = 0; d < 2; ++d) {
      const int o = 1 - d;
      const double Wd = d == 0 ? kW0 : kW1, Wo = d == 0 ? kW1 : kW0;
      auto withGift = [&](double g) {
        double lo = 0, hi = 1e5 / kPrice[d];
        for (int i = 0; i < 200; ++i) {
          const double x = 0.5 * (lo + hi), xo = (1e5 - kPrice[d] * x) / kPrice[o];
          const double slope = -Wd / ((x + g) * (x + g)) + Wo * kPrice[d] / kPrice[o] / (xo * xo);
          (slope < 0 ? lo : hi) = x;
        }
        const double x = 0.5 * (lo + hi), xo = (1e5 - kPrice[d] * x) / kPrice[o];
        return c + Wd / (x + g) + Wo / xo;
      };
      const DimensionSensitivity& dim = s.sensitivity.dims[d];
      SCOPED_TRACE(dim.name);
      EXPECT_TRUE(ratesAre(dim.nsPerGbps, dim.nsPerGbpsDown, differencesOf(withGift, 0, dim.step)));
    }
  }
}

// A constraint with slack is worth nothing either way; two equalities that say
// the same hold each other fixed: neither can move alone, so neither direction
// has a rate, and a cold solve of either change is infeasible.
TEST_P(SensitivityClosedForm, SlackAndDependentConstraints) {
  const Solved s = solveAndSense(
      makeProblem(oneAllReduce(), {"total == 500", "bw[inner] <= 1e6", "bw[0] + bw[1] == 500"}),
      GetParam());
  ASSERT_EQ(s.sensitivity.constraints.size(), 3u);
  const ConstraintSensitivity& slack = s.sensitivity.constraints[1];
  EXPECT_FALSE(slack.binding);
  EXPECT_EQ(slack.nsPerUnit, 0.0);
  EXPECT_EQ(slack.nsPerUnitDown, 0.0);
  for (int i : {0, 2}) {
    EXPECT_FALSE(s.sensitivity.constraints[i].nsPerUnit);
    EXPECT_FALSE(s.sensitivity.constraints[i].nsPerUnitDown);
  }
  for (const char* changed : {"total == 500.05", "total == 499.95"}) {
    const Problem p = makeProblem(oneAllReduce(), {changed, "bw[0] + bw[1] == 500"});
    EXPECT_EQ(solve(p, Objective::Performance, withBackend(GetParam())).status,
              SolveStatus::Infeasible);
  }
}

// The cap exactly at the balanced optimum: v has a kink there, and the two
// directions differ. More total goes to the uncapped dimension, which does not
// help (the capped one paces too): 0 up; less total is re-split with both under
// the cap: the balanced rate down. More cap alone does not help (the total is
// spent); less cap makes the outer dimension pace: the rate of V1 / U down.
TEST_P(SensitivityClosedForm, AtAKinkTheDirectionsDiffer) {
  const double B = 500, U = B * kV1 / (kV0 + kV1);
  const Solved s = solveAndSense(
      makeProblem(oneAllReduce(), {"total == 500", "bw[outer] <= " + test::exactNumber(U)}),
      GetParam());
  const ConstraintSensitivity& total = s.sensitivity.constraints.at(0);
  const ConstraintSensitivity& cap = s.sensitivity.constraints.at(1);
  auto balanced = [](double b) { return kCompute + (kV0 + kV1) / b; };
  auto capped = [](double u) { return kCompute + kV1 / u; };
  ASSERT_TRUE(total.nsPerUnit && cap.nsPerUnit);
  EXPECT_EQ(*total.nsPerUnit, 0.0);
  EXPECT_EQ(*cap.nsPerUnit, 0.0);
  ASSERT_TRUE(total.nsPerUnitDown && cap.nsPerUnitDown);
  EXPECT_TRUE(
      relNear(*total.nsPerUnitDown, differencesOf(balanced, B, total.step).down, kClosedFormTol));
  EXPECT_TRUE(relNear(*cap.nsPerUnitDown, differencesOf(capped, U, cap.step).down, kClosedFormTol));
  EXPECT_TRUE(directionsDiffer(total.nsPerUnit, total.nsPerUnitDown));
  EXPECT_TRUE(directionsDiffer(cap.nsPerUnit, cap.nsPerUnitDown));
}

INSTANTIATE_TEST_SUITE_P(Backends, SensitivityClosedForm, ::testing::ValuesIn(kBackends),
                         [](const auto& info) { return std::string(toString(info.param)); });

// --- perf per cost -------------------------------------------------------------

// One AllReduce on the outer (dear) dimension alone, `total == B`: with x the
// outer bandwidth, T = c + V / x and cost = a + b x (a = p0 B, b = p1 - p0), so
// time x cost is least at x* = sqrt(V a / (c b)), where it is
// f(B) = c a + V b + 2 sqrt(a b c V). The rate is the finite difference of f
// over the optimum's cost a + b x*. A gift of g GB/s on either dimension (its
// price counted) moves a by p0 g, as a total of B + g does.
TEST(SensitivityPerfPerCost, MatchesTheClosedFormOfTimeTimesCost) {
  const double c = 6e6, B = 1000, b = kPrice[1] - kPrice[0];
  auto f = [&](double total) {
    const double a = kPrice[0] * total;
    return c * a + kOuterV * b + 2 * std::sqrt(a * b * c * kOuterV);
  };
  const double a = kPrice[0] * B, x = std::sqrt(kOuterV * a / (c * b)), cost = a + b * x;
  ASSERT_LT(x, B);
  for (Backend backend : kBackends) {
    SCOPED_TRACE(toString(backend));
    const Solved s = solveAndSense(makeProblem(outerOnly(1e6), {"total == 1000"}), backend,
                                   Objective::PerfPerCost);
    ASSERT_TRUE(relNear(s.solution.eval.costUsd, cost, 1e-8));
    const ConstraintSensitivity& total = s.sensitivity.constraints.at(0);
    auto over = [&](Differences d) { return Differences{d.up / cost, d.down / cost}; };
    EXPECT_TRUE(ratesAre(total.nsPerUnit, total.nsPerUnitDown,
                         over(differencesOf(f, B, total.step)), 1e-4));
    for (const DimensionSensitivity& d : s.sensitivity.dims) {
      SCOPED_TRACE(d.name);
      const double gift = d.step;
      const Differences expected{(f(B + gift) - f(B)) / gift / cost,
                                 (f(B) - f(B - gift)) / gift / cost};
      EXPECT_TRUE(ratesAre(d.nsPerGbps, d.nsPerGbpsDown, expected, 1e-4));
    }
  }
}

// --- the bundled example (chunks "auto": the exact schedule's time) -------------

// The rate of `total == 1000` is the difference of the exact reported times of
// cold solves at 1000 +- h: what a user who edits the budget sees.
TEST(SensitivityExample, TheBudgetsRateIsTheDifferenceOfReportedTimes) {
  const Project project = loadProject(LIBRA_SOURCE_DIR "/resources/examples/gpt3-4d.json");
  ASSERT_EQ(project.constraints.at(0), "total == 1000");
  const Problem problem = buildProblem(project);
  const Solution optimum = solve(problem, Objective::Performance);
  ASSERT_TRUE(optimum.ok()) << optimum.message;
  const Sensitivity s = sensitivityAt(problem, optimum);
  ASSERT_TRUE(s.computed) << s.note;
  const ConstraintSensitivity& total = s.constraints.at(0);
  auto v = [&](double B) {
    Problem p = problem;
    p.constraints[0].rhs = B;
    return solve(p, Objective::Performance).eval.iterationNs;
  };
  // Cold solves settle their chunk counts from two starts each; a warm one
  // from the optimum's: the exact times agree to about 1e-7 of the time.
  const double noise = 4e-7 * optimum.eval.iterationNs / total.step;
  const Differences cold = differencesOf(v, 1000, total.step);
  ASSERT_TRUE(total.nsPerUnit && total.nsPerUnitDown);
  EXPECT_NEAR(*total.nsPerUnit, cold.up, noise);
  EXPECT_NEAR(*total.nsPerUnitDown, cold.down, noise);
  EXPECT_LT(*total.nsPerUnit, 0);
}

// --- random problems -------------------------------------------------------------

// A random problem with up to `maxCollectives` collectives (inside a property).
Problem drawProblem(int maxCollectives) {
  test::ProblemOptions opt;
  opt.maxCollectives = maxCollectives;
  return (*test::genProblem(opt)).problem();
}

double valueOf(const Solution& s) {
  return s.eval.iterationNs;
}

// The rate `rate` of constraint i (direction sign) against cold solves.
void checkAgainstColdSolves(const Problem& p, std::size_t i, double step, int sign,
                            const std::optional<double>& rate, double v0,
                            const SolveOptions& options) {
  Problem changed = p;
  changed.constraints[i].rhs += sign * step;
  const Solution cold = solve(changed, Objective::Performance, options);
  const std::string what = "'" + p.constraints[i].text + "' " + (sign > 0 ? "up" : "down");
  if (!rate) {
    if (cold.status != SolveStatus::Infeasible) {
      RC_FAIL(what + " has no rate, but a cold solve gives " + std::string(toString(cold.status)));
    }
    return;
  }
  if (!cold.ok()) RC_FAIL(what + " has a rate, but a cold solve failed: " + cold.message);
  const double expected = sign * (valueOf(cold) - v0) / step;
  const double tolerance = 4 * kNoise * std::abs(v0) / step + 1e-6 * std::abs(expected);
  if (std::abs(*rate - expected) > tolerance) {
    RC_FAIL(what + ": rate " + test::exactNumber(*rate) + ", cold solves " +
            test::exactNumber(expected) + " (step " + test::exactNumber(step) + ")");
  }
}

// Performance on random problems: convexity, monotonicity, and cold solves.
void performanceProperty(Backend backend, int cases) {
  test::checkProperty(
      cases,
      [&] {
        const Problem p = drawProblem(40);
        const SolveOptions options = withBackend(backend);
        const Solution s = solve(p, Objective::Performance, options);
        if (!s.ok()) RC_FAIL("not solved: " + s.message);
        const Sensitivity sens = sensitivityAt(p, s, options);
        if (!sens.computed) RC_FAIL("not computed: " + sens.note);
        RC_ASSERT(sens.constraints.size() == p.constraints.size());
        const double v0 = valueOf(s);
        const double noise = 4 * kNoise * std::abs(v0);  // in ns; over a step, ns per unit
        for (std::size_t i = 0; i < p.constraints.size(); ++i) {
          const ConstraintSensitivity& c = sens.constraints[i];
          const double tol = noise / c.step;
          if (c.nsPerUnit && c.nsPerUnitDown && *c.nsPerUnitDown > *c.nsPerUnit + tol) {
            RC_FAIL("'" + c.constraint + "': down " + test::exactNumber(*c.nsPerUnitDown) +
                    " above up " + test::exactNumber(*c.nsPerUnit) + ": v is convex");
          }
          if (!c.binding && p.constraints[i].relation != Relation::Equal) {
            RC_TAG("slack");
            continue;
          }
          checkAgainstColdSolves(p, i, c.step, +1, c.nsPerUnit, v0, options);
          checkAgainstColdSolves(p, i, c.step, -1, c.nsPerUnitDown, v0, options);
        }
        for (const DimensionSensitivity& d : sens.dims) {
          const double tol = noise / d.step;
          if (!d.nsPerGbps) RC_FAIL(d.name + ": a gift has no rate");
          if (*d.nsPerGbps > tol) RC_FAIL(d.name + ": more bandwidth is slower");
          if (d.nsPerGbpsDown && *d.nsPerGbpsDown > tol) RC_FAIL(d.name + ": less is faster");
          if (d.nsPerGbpsDown && *d.nsPerGbpsDown > *d.nsPerGbps + tol) {
            RC_FAIL(d.name + ": down " + test::exactNumber(*d.nsPerGbpsDown) + " above up " +
                    test::exactNumber(*d.nsPerGbps));
          }
        }
      },
      /*shrink=*/false);
}

TEST(SensitivityProperties, PerformanceRatesMatchColdSolvesNative) {
  performanceProperty(Backend::Native, 40);
}

TEST(SensitivityProperties, PerformanceRatesMatchColdSolvesIpopt) {
  performanceProperty(Backend::Ipopt, 8);
}

// Both backends' sensitivities of their own optima agree: the same directions
// have rates, equal within the noise of two solves each.
TEST(SensitivityProperties, BothBackendsAgree) {
  test::checkProperty(
      10,
      [] {
        const Problem p = drawProblem(20);
        const Solution native = solve(p, Objective::Performance);
        const Solution ipopt = solve(p, Objective::Performance, withBackend(Backend::Ipopt));
        if (!native.ok() || !ipopt.ok()) RC_FAIL("not solved: " + native.message + ipopt.message);
        const Sensitivity a = sensitivityAt(p, native);
        const Sensitivity b = sensitivityAt(p, ipopt, withBackend(Backend::Ipopt));
        RC_ASSERT(a.computed && b.computed);
        const double v = valueOf(native);
        auto same = [&](const std::string& what, double step, const std::optional<double>& x,
                        const std::optional<double>& y) {
          if (x.has_value() != y.has_value()) RC_FAIL(what + ": a rate on one backend only");
          if (!x) return;
          const double tol = 8 * kNoise * std::abs(v) / step + 1e-6 * std::abs(*x);
          if (std::abs(*x - *y) > tol) {
            RC_FAIL(what + ": native " + test::exactNumber(*x) + ", IPOPT " +
                    test::exactNumber(*y));
          }
        };
        for (std::size_t i = 0; i < a.constraints.size(); ++i) {
          const ConstraintSensitivity &x = a.constraints[i], &y = b.constraints[i];
          const double step = std::max(x.step, y.step);
          same(x.constraint + " up", step, x.nsPerUnit, y.nsPerUnit);
          same(x.constraint + " down", step, x.nsPerUnitDown, y.nsPerUnitDown);
        }
      },
      /*shrink=*/false);
}

// --- the analysis carries it -----------------------------------------------------

TEST(Sensitivity, TheAnalysisCarriesItForOptimaOnly) {
  Project project = test::makeProject(twoDimNetwork(), costModel(), {oneAllReduce()},
                                      TrainingLoop::NoOverlap, {"total == 500", "bw[outer] <= 50"});
  const Analysis a = analyze(project);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a.sensitivity.computed) << a.sensitivity.note;
  ASSERT_EQ(a.sensitivity.constraints.size(), 2u);
  EXPECT_EQ(a.sensitivity.constraints[1].constraint, "bw[outer] <= 50");
  EXPECT_EQ(a.sensitivity.bottlenecks(), std::vector<std::string>{"outer"});
  const std::string json = analysisJson(a);
  for (const char* key : {"\"sensitivity\"", "\"ns_per_unit\"", "\"ns_per_unit_down\"",
                          "\"ns_per_gbps_down\"", "\"step\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }

  AnalysisOptions evaluate;
  evaluate.design = std::vector<double>{450, 50};
  const Analysis e = analyze(project, evaluate);
  EXPECT_FALSE(e.sensitivity.computed);
  EXPECT_FALSE(e.sensitivity.note.empty());
  EXPECT_EQ(analysisJson(e).find("\"sensitivity\""), std::string::npos);
}

// A perf-per-cost optimum always has its sensitivity: the rates come from
// re-solves, so there is no "not an optimum" to report about the optimum.
TEST(Sensitivity, EveryPerfPerCostOptimumHasIt) {
  test::checkProperty(
      10,
      [] {
        const Problem p = drawProblem(20);
        const Solution s = solve(p, Objective::PerfPerCost);
        if (s.status == SolveStatus::Unbounded) {
          RC_TAG("no perf-per-cost optimum");
          return;
        }
        if (!s.ok()) RC_FAIL("not solved: " + s.message);
        const Sensitivity sens = sensitivityAt(p, s);
        if (!sens.computed) RC_FAIL("not computed: " + sens.note);
        if (!sens.note.empty()) RC_FAIL("note: " + sens.note);
        for (const DimensionSensitivity& d : sens.dims) RC_ASSERT(d.nsPerGbps.has_value());
      },
      /*shrink=*/false);
}

}  // namespace
}  // namespace libra
