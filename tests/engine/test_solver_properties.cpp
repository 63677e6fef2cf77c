// RapidCheck properties of the solvers on random problems (generators.hpp).
//
// Case counts are set per property (rc_support.hpp): cheap native-only
// properties run 100 cases, those that call IPOPT (a few ms per solve, calls
// serialized) or scan Pareto fronts 30. RC_PARAMS="max_success=N" overrides.
// The IPOPT and Pareto properties do not shrink their counterexamples (each step
// would cost IPOPT solves or two front scans); the others do, which keeps their
// reports small.
//
// Tolerances:
//  - backends agree on the objective within 1e-6 relative (both stop at a
//    duality gap ~1e-11 of the scaled objective; 1e-6 leaves room for the
//    scaling by the start point's communication time);
//  - constraints hold within 1e-9 relative (LinearConstraint::isSatisfied);
//  - monotonicity and optimality comparisons between solves: 1e-9 relative;
//  - a loose extra bound: what each backend's convergence test allows
//    (stoppingSlackNs), plus 1e-9 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <string>

#include "engine_test_support.hpp"
#include "generators.hpp"
#include "libra/project_io.hpp"
#include "optimality_check.hpp"
#include "rc_support.hpp"
#include "standard_form.hpp"

namespace libra {

// RapidCheck shows a drawn backend by its name (found by argument-dependent lookup).
std::ostream& operator<<(std::ostream& os, Backend backend) {
  return os << toString(backend);
}

namespace {

using test::checkProperty;
using test::exactNumber;
using test::genProblem;
using test::genUniform;
using test::ProblemOptions;
using test::RandomProblem;
using test::withBackend;

using test::relDiff;

std::string describe(const Solution& s) {
  return std::string(toString(s.status)) + " " + s.message + " bw " +
         test::formatVector(s.bandwidth) + " T " + exactNumber(s.eval.iterationNs) + " cost " +
         exactNumber(s.eval.costUsd);
}

// A problem built to be feasible must be solved; anything else is a failure
// with the solver's message.
void assertSolved(const RandomProblem& r, const Solution& s) {
  if (r.knownFeasible) {
    RC_ASSERT(s.status != SolveStatus::Infeasible);
  }
  if (!s.ok()) RC_FAIL("not solved: " + describe(s));
  RC_ASSERT(s.eval.finite);
}

void assertConstraintsHold(const Problem& p, const Solution& s) {
  for (const auto& c : p.constraints) {
    if (!c.isSatisfied(s.bandwidth)) {
      RC_FAIL("constraint '" + c.text + "' violated by " + exactNumber(c.violation(s.bandwidth)) +
              " at " + test::formatVector(s.bandwidth));
    }
  }
  for (double b : s.bandwidth) RC_ASSERT(b >= 0);
}

// --- the two backends agree -------------------------------------------------

TEST(SolverProperties, BackendsAgreeAndSatisfyTheConstraints) {
  checkProperty(
      30,
      [] {
        ProblemOptions opt;
        opt.arbitraryPercent = 25;
        const RandomProblem r = *genProblem(opt);
        const Problem p = r.problem();
        const Solution native = solve(p, Objective::Performance, withBackend(Backend::Native));
        // A native failure is reported before IPOPT runs.
        if (r.knownFeasible || native.status != SolveStatus::Infeasible) assertSolved(r, native);
        const Solution ipopt = solve(p, Objective::Performance, withBackend(Backend::Ipopt));
        if (!r.knownFeasible && native.status == SolveStatus::Infeasible) {
          // The shared presolve decides infeasibility for both.
          RC_TAG("infeasible draw");
          RC_ASSERT(ipopt.status == SolveStatus::Infeasible);
          RC_ASSERT(!native.message.empty());
          return;
        }
        RC_TAG(p.time.isSeparable() ? "separable" : "overlap pieces");
        assertSolved(r, ipopt);
        assertConstraintsHold(p, native);
        assertConstraintsHold(p, ipopt);
        if (relDiff(native.eval.iterationNs, ipopt.eval.iterationNs) > 1e-6) {
          RC_FAIL("backends disagree: native " + describe(native) + " / ipopt " + describe(ipopt));
        }
      },
      /*shrink=*/false);  // every shrink step would cost an IPOPT solve; the seed reproduces
}

// --- more budget is never slower --------------------------------------------

// `total <= B` vs `total <= B (1 + r)`: the feasible set only grows, whatever
// the other constraints.
TEST(SolverProperties, LargerBudgetCapIsNeverSlower) {
  checkProperty(100, [] {
    ProblemOptions opt;
    opt.totalKind = 1;
    const RandomProblem r = *genProblem(opt);
    const double factor = 1 + *genUniform(0.001, 3);
    const Problem small = r.problem();
    const Problem large = r.withTotal("total <= " + exactNumber(r.budget * factor));
    const Solution a = solve(small, Objective::Performance);
    const Solution b = solve(large, Objective::Performance);
    assertSolved(r, a);
    assertSolved(r, b);
    if (b.eval.iterationNs > a.eval.iterationNs * (1 + 1e-9)) {
      RC_FAIL("budget x" + exactNumber(factor) + " is slower: " + describe(a) + " -> " +
              describe(b));
    }
  });
}

// `total == B` vs `total == B (1 + r)` with extra constraints that survive
// scaling a point up (lower bounds, orderings, lower bounds on partial sums):
// (1 + r) bw*(B) is feasible for the larger budget and no slower, since the time
// falls in every bandwidth.
TEST(SolverProperties, LargerExactBudgetIsNeverSlower) {
  checkProperty(100, [] {
    ProblemOptions opt;
    opt.totalKind = 0;
    opt.extraKinds = test::kScaleUpExtraKinds;
    const RandomProblem r = *genProblem(opt);
    const double factor = 1 + *genUniform(0.001, 3);
    const Problem small = r.problem();
    const Problem large = r.withTotal("total == " + exactNumber(r.budget * factor));
    const Solution a = solve(small, Objective::Performance);
    const Solution b = solve(large, Objective::Performance);
    assertSolved(r, a);
    assertSolved(r, b);
    if (b.eval.iterationNs > a.eval.iterationNs * (1 + 1e-9)) {
      RC_FAIL("budget x" + exactNumber(factor) + " is slower: " + describe(a) + " -> " +
              describe(b));
    }
    // With the total as the only constraint and a separable loop, T - compute is
    // homogeneous of degree -1 in bw, so the split scales exactly (model.md 7).
    if (r.project.constraints.size() == 1 && small.time.isSeparable()) {
      const double expected =
          small.evaluate(a.bandwidth).computeNs + a.eval.communicationNs / factor;
      RC_ASSERT(relDiff(b.eval.iterationNs, expected) <= 1e-7);
    }
  });
}

// --- perf-per-cost against the Pareto front ---------------------------------

// The perf-per-cost optimum satisfies the constraints and no point of the
// front beats it.
void perfPerCostIsNoWorseThanTheFront() {
  ProblemOptions opt;
  opt.maxCollectives = 60;
  const RandomProblem r = *genProblem(opt);
  const Problem p = r.problem();
  const Solution ppc = solve(p, Objective::PerfPerCost);
  const ParetoFront front = paretoFront(p, 10);
  if (ppc.status == SolveStatus::Unbounded) {
    // No optimum: time x cost falls toward the cheapest cost, where the time
    // grows without bound. The front's cheapest point is then its best.
    RC_TAG("no perf-per-cost optimum");
    RC_ASSERT(front.status == SolveStatus::Optimal && !front.points.empty());
    RC_ASSERT(front.perfPerCostOptimum.status == SolveStatus::Unbounded);
    const Solution& first = front.points.front();
    for (const Solution& s : front.points) {
      RC_ASSERT(first.eval.iterationNs * first.eval.costUsd <=
                s.eval.iterationNs * s.eval.costUsd * (1 + 1e-8));
    }
    return;
  }
  assertSolved(r, ppc);
  RC_ASSERT(ppc.objective == Objective::PerfPerCost);
  assertConstraintsHold(p, ppc);
  RC_ASSERT(front.status == SolveStatus::Optimal);
  // Every budget of the scan lies above the cheapest cost, where every
  // dimension with traffic can have bandwidth: no point may go missing.
  // (A range below 1e-6 of the cost is one cost: paretoFront's kOneCost.)
  if (front.maxCostUsd - front.minCostUsd > 1e-6 * front.maxCostUsd) {
    RC_ASSERT(front.points.size() == 10u);
  } else {
    RC_ASSERT(front.points.size() == 1u);  // one cost only: a single point
  }
  const double best = ppc.eval.iterationNs * ppc.eval.costUsd;
  for (std::size_t i = 0; i < front.points.size(); ++i) {
    const Solution& s = front.points[i];
    RC_ASSERT(s.ok());
    if (i > 0) {
      RC_ASSERT(s.eval.costUsd > front.points[i - 1].eval.costUsd);
      RC_ASSERT(s.eval.iterationNs <= front.points[i - 1].eval.iterationNs * (1 + 1e-9));
    }
    const double tc = s.eval.iterationNs * s.eval.costUsd;
    // 1e-8: the scalar search stops at 1e-6 of the cost range; at a kink of the
    // front that leaves the optimum up to 6e-9 above a scanned point (paretoFront).
    if (best > tc * (1 + 1e-8)) {
      RC_FAIL("front point " + std::to_string(i) +
              " beats the perf-per-cost optimum: " + describe(s) + " vs " + describe(ppc));
    }
  }
}

TEST(SolverProperties, PerfPerCostIsNoWorseThanAnyPointOfTheFront) {
  // No shrinking: each shrink step scans two fronts; the seed reproduces.
  checkProperty(30, perfPerCostIsNoWorseThanTheFront, /*shrink=*/false);
}

// Seed 9582124544385346874 (found by a random run, 7th case): perf per cost
// that runs to zero cost (compute not overlapped, no lower bound) ended at
// 1e-14 GB/s, where polishing the idle dimension with the LP's absolute
// tolerance broke `bw[1] >= bw[2]` by 3.8e-15, its own size. Such a problem
// has no perf-per-cost optimum (it is now reported so); its front still
// reaches down to the cheapest cost.
TEST(SolverRegressions, PolishingAnAnswerNearZeroKeepsItsConstraints) {
  checkProperty(30, perfPerCostIsNoWorseThanTheFront, /*shrink=*/false,
                std::uint64_t{9582124544385346874ULL});
}

// Seeds that failed the property in the seed hunt of issue 12 (packaging/seed-hunt.sh,
// 261 seeds), replayed in CI; the problems they drew are concrete cases below.
//  - 310489798061799776: a front point slower than its cheaper neighbour by 1.1e-6
//    (projectOntoConstraints spent the slack of an inactive cost row);
//  - 14637929538265183775: a front of ten points of one cost (an idle dimension
//    left with 3.7e-9 GB/s by the interior point made the range solver noise);
//  - 12358978092701369665 and 3748054821309351757: a scanned point 7e-9 and 2e-9
//    better in time x cost than the perf-per-cost optimum (the scalar search
//    stopped at 1e-6 of the cost, a fifth of the bracket where the front spans
//    1e-4 of the cost).
//  - 236213444020164306 (a second hunt): two front points of equal cost, in a
//    range of 7.6e-8 of the cost that only the solver's noise made (a front
//    narrower than 1e-6 of the cost is now one point);
//  - 16147857825712677218 (a second hunt): a scanned point 6e-9 better in time x
//    cost than the perf-per-cost optimum at a kink of the front (the scalar
//    search now stops at 1e-8 of the cost range, was 1e-6).
//  - 12382494346769499872 (2026-12-04): a front of 9 points of 10. The native
//    solver stalled on the first budget, 1.3e-7 of the cost above the cheapest
//    (a cost row nearly parallel to `total ==`); such a point is now solved by
//    IPOPT.
TEST(SolverRegressions, PerfPerCostOfTheSeedsThatFailedIsNoWorseThanTheFront) {
  for (const std::uint64_t seed :
       {310489798061799776ULL, 14637929538265183775ULL, 12358978092701369665ULL,
        3748054821309351757ULL, 236213444020164306ULL, 16147857825712677218ULL,
        12382494346769499872ULL}) {
    SCOPED_TRACE(seed);
    checkProperty(30, perfPerCostIsNoWorseThanTheFront, /*shrink=*/false, seed);
  }
}

// Seed 310489798061799776's problem: beyond $3.2e9 the time hardly depends on
// the cost (bw[3] and bw[4] trade against each other at 1e-6 of the time). At a
// budget of $4326348941.21 the interior point stops with the cost row 3.2e-8
// below its budget; moving the answer onto that row in the least Euclidean norm
// took 3.5e-6 GB/s from the 1.4 GB/s of d5 and made the answer 2.5e-6 slower
// than IPOPT's (18594378880 against 18594333018 ns).
const char* const kFlatFrontOfSeed310489798061799776 =
    R"({"format":"libra-project","schema_version":1,"name":"random","network":{"dimensions":[
{"name":"d0","block":"Switch","npus":13,"cost_level":"L0"},
{"name":"d1","block":"FullyConnected","npus":16,"cost_level":"L1"},
{"name":"d2","block":"FullyConnected","npus":14,"cost_level":"L2"},
{"name":"d3","block":"Switch","npus":7,"cost_level":"L3"},
{"name":"d4","block":"Ring","npus":7,"cost_level":"L4"},
{"name":"d5","block":"Ring","npus":12,"cost_level":"L5"}]},
"cost_model":{"L0":{"Link":0.19943385144020834,"Switch":2.197770291971269,"Nic":0.13834937252246476},
"L1":{"Link":23.98717699216669,"Switch":41.948048232764236,"Nic":0.597845118998939},
"L2":{"Link":12.303903718052164,"Switch":26.767424195528243,"Nic":1.185723419273795},
"L3":{"Link":0.7588358376092034,"Switch":0.2126183033960543,"Nic":9.891113625958155},
"L4":{"Link":3.043722872845416,"Switch":32.6226568632131,"Nic":40.33298450923309},
"L5":{"Link":0.10347615148047186,"Switch":0.10358485674338708,"Nic":0.9397666992558659}},
"workloads":[{"name":"w0","weight":1.0,"communicator":{"forward":[1,1,1,1,1,1],"input_grad":[1,1,1,1,1,1],"weight_grad":[1,1,1,1,1,1]},"layers":[
{"name":"l0",
"forward":{"compute_ns":0.0,"collective":"AllReduce","size_bytes":78163.77713887779,"groups":[1,5,1,1,4,10]},
"input_grad":{"compute_ns":622819.5518303305,"collective":"AllGather","size_bytes":585553.1158255065,"groups":[1,1,13,1,2,1]},
"weight_grad":{"compute_ns":27328.148491892513,"collective":"None","size_bytes":0},"update_ns":0},
{"name":"l1",
"forward":{"compute_ns":0.0,"collective":"AllReduce","size_bytes":70546.95747484459,"groups":[5,1,6,3,6,1]},
"input_grad":{"compute_ns":0.0,"collective":"AllToAll","size_bytes":125353620.88479641,"groups":[4,7,10,1,3,12]},
"weight_grad":{"compute_ns":109.93826565795194,"collective":"AllReduce","size_bytes":253586.4050905902,"groups":[8,13,1,1,5,4]},"update_ns":0},
{"name":"l2",
"forward":{"compute_ns":4727.746289890318,"collective":"AllGather","size_bytes":698977.1080849075,"groups":[11,1,7,1,1,1]},
"input_grad":{"compute_ns":0.0,"collective":"AllReduce","size_bytes":1070599468.0640575,"groups":[2,2,12,3,1,1]},
"weight_grad":{"compute_ns":2192.853741757014,"collective":"ReduceScatter","size_bytes":1914038550.1433434,"groups":[1,15,4,3,1,4]},"update_ns":0},
{"name":"l3",
"forward":{"compute_ns":14825.23378803852,"collective":"AllToAll","size_bytes":3170277.8619506937,"groups":[1,1,1,3,1,1]},
"input_grad":{"compute_ns":7341.367162460129,"collective":"AllReduce","size_bytes":826858.2393749666,"groups":[11,13,14,3,1,1]},
"weight_grad":{"compute_ns":0.0,"collective":"AllGather","size_bytes":5189831651.864727,"groups":[13,4,1,1,4,6]},"update_ns":0},
{"name":"l4",
"forward":{"compute_ns":25656.34858390398,"collective":"AllToAll","size_bytes":6358906.13593831,"groups":[1,1,14,1,1,1]},
"input_grad":{"compute_ns":0.0,"collective":"AllToAll","size_bytes":211299.91772135138,"groups":[11,1,12,1,1,1]},
"weight_grad":{"compute_ns":124245.6455866302,"collective":"None","size_bytes":0},"update_ns":0}]}],
"training_loop":"overlap","constraints":["total == 466.74157059583786","cost <= 5337470866.2558403","bw[d1] == 27.648602024775105","bw[2] + bw[3] <= 261.54986150644561","bw[4] + bw[3] >= 113.44141911928425"],
"objective":"performance"})";

TEST(SolverRegressions, AnInactiveCostRowIsNotSpentOnTheWrongDimension) {
  const Problem p =
      buildProblem(projectFromJson(kFlatFrontOfSeed310489798061799776, "regression.json"));
  const Solution native = solveWithCostBudget(p, 4326348941.21199, withBackend(Backend::Native));
  const Solution ipopt = solveWithCostBudget(p, 4326348941.21199, withBackend(Backend::Ipopt));
  ASSERT_TRUE(native.ok()) << describe(native);
  ASSERT_TRUE(ipopt.ok()) << describe(ipopt);
  EXPECT_LE(relDiff(native.eval.iterationNs, ipopt.eval.iterationNs), 1e-9)
      << describe(native) << " / " << describe(ipopt);
  const ParetoFront front = paretoFront(p, 10);
  ASSERT_EQ(front.status, SolveStatus::Optimal) << front.message;
  ASSERT_EQ(front.points.size(), 10u);
  for (std::size_t i = 1; i < front.points.size(); ++i) {
    EXPECT_LE(front.points[i].eval.iterationNs, front.points[i - 1].eval.iterationNs * (1 + 1e-9))
        << "point " << i << ": " << describe(front.points[i]) << " after "
        << describe(front.points[i - 1]);
  }
}

// Seed 14637929538265183775's problem: every collective runs over d0, and
// `total == B` leaves d1 (a switch, 36 times d0's price per GB/s) idle. The
// interior point left d1 3.7e-9 GB/s, which d0 could take at no cost in time:
// the optimum's cost was 3.4e-9 above the least, and the Pareto front scanned
// ten budgets inside that gap.
const char* const kIdleSwitchOfSeed14637929538265183775 =
    R"({"format":"libra-project","schema_version":1,"name":"random","network":{"dimensions":[
{"name":"d0","block":"Ring","npus":2,"cost_level":"L0"},
{"name":"d1","block":"Switch","npus":5,"cost_level":"L1"}]},
"cost_model":{"L0":{"Link":0.8705571997873504,"Switch":19.961355473846247,"Nic":5.734772548429137},
"L1":{"Link":12.536322386041459,"Switch":0.24198595802124334,"Nic":19.904434701458037}},
"workloads":[{"name":"w0","weight":1.0,"communicator":{"forward":[1,1],"input_grad":[1,1],"weight_grad":[1,1]},"layers":[
{"name":"l0",
"forward":{"compute_ns":17231.573990377503,"collective":"ReduceScatter","size_bytes":6587.964770473593,"groups":[2,1]},
"input_grad":{"compute_ns":1306.7721652142889,"collective":"AllGather","size_bytes":1646804.1375878411,"groups":[2,1]},
"weight_grad":{"compute_ns":7480903.186799776,"collective":"AllGather","size_bytes":5068.27680452626,"groups":[2,1]},"update_ns":0}]}],
"training_loop":"overlap","constraints":["total == 40.017949601960609","cost <= 4196.7501346849012"],
"objective":"performance"})";

TEST(SolverRegressions, AnIdleDimensionGivesItsBandwidthToAUsedOne) {
  const Problem p =
      buildProblem(projectFromJson(kIdleSwitchOfSeed14637929538265183775, "regression.json"));
  for (Backend backend : {Backend::Native, Backend::Ipopt}) {
    SCOPED_TRACE(std::string(toString(backend)));
    const Solution s = solve(p, Objective::Performance, withBackend(backend));
    ASSERT_TRUE(s.ok()) << describe(s);
    EXPECT_EQ(s.bandwidth[1], 0.0) << describe(s);
    const ParetoFront front = paretoFront(p, 10, withBackend(backend));
    ASSERT_EQ(front.status, SolveStatus::Optimal) << front.message;
    // One cost: a single point.
    EXPECT_EQ(front.points.size(), 1u) << front.minCostUsd << " .. " << front.maxCostUsd;
  }
}

// Seed 12358978092701369665's problem: `bw[d0] == 145` holds most of the cost, so
// the front spans $681971 .. $682069 (1.4e-4 of the cost) and time x cost has a
// sharp minimum near $682058. The scalar search stopped at 1e-6 of the cost
// ($0.68, a fifth of its bracket), 7e-9 worse than the 10-point scan's point 8.
const char* const kNarrowFrontOfSeed12358978092701369665 =
    R"({"format":"libra-project","schema_version":1,"name":"random","network":{"dimensions":[
{"name":"d0","block":"FullyConnected","npus":5,"cost_level":"L0"},
{"name":"d1","block":"Switch","npus":4,"cost_level":"L1"},
{"name":"d2","block":"FullyConnected","npus":7,"cost_level":"L2"}]},
"cost_model":{"L0":{"Link":32.16540777360112,"Switch":0.5369416043549611,"Nic":0.37931102838255154},
"L1":{"Link":18.260379125908486,"Switch":26.751558885170095,"Nic":3.841421122443031},
"L2":{"Link":7.209112354401601,"Switch":0.9496033931956073,"Nic":0.9744743630276326}},
"workloads":[{"name":"w0","weight":1.0,"communicator":{"forward":[1,1,1],"input_grad":[1,1,1],"weight_grad":[1,1,1]},"layers":[
{"name":"l0",
"forward":{"compute_ns":1247.981417797752,"collective":"AllReduce","size_bytes":80513351.8673654,"groups":[1,1,3]},
"input_grad":{"compute_ns":1614993.5254337662,"collective":"AllReduce","size_bytes":521563.5786576562,"groups":[4,2,1]},
"weight_grad":{"compute_ns":123915.16127740958,"collective":"AllReduce","size_bytes":2797.255038008031,"groups":[1,4,1]},"update_ns":0},
{"name":"l1",
"forward":{"compute_ns":892045.8441266685,"collective":"AllGather","size_bytes":7815.8631259735275,"groups":[5,1,1]},
"input_grad":{"compute_ns":814560.6618326047,"collective":"AllToAll","size_bytes":6946347071.715106,"groups":[1,1,2]},
"weight_grad":{"compute_ns":0.0,"collective":"AllGather","size_bytes":1483029650.5342252,"groups":[1,1,5]},"update_ns":0}]}],
"training_loop":"overlap","constraints":["total == 173.17262337391725","bw[d0] == 145.16272705637161"],
"objective":"performance"})";

TEST(SolverRegressions, PerfPerCostIsRefinedToTheFrontsCostRange) {
  const Problem p =
      buildProblem(projectFromJson(kNarrowFrontOfSeed12358978092701369665, "regression.json"));
  const Solution ppc = solve(p, Objective::PerfPerCost);
  ASSERT_TRUE(ppc.ok()) << describe(ppc);
  const ParetoFront front = paretoFront(p, 10);
  ASSERT_EQ(front.status, SolveStatus::Optimal) << front.message;
  ASSERT_EQ(front.points.size(), 10u);
  const double best = ppc.eval.iterationNs * ppc.eval.costUsd;
  for (const Solution& s : front.points) {
    EXPECT_LE(best, s.eval.iterationNs * s.eval.costUsd * (1 + 1e-9))
        << describe(s) << " vs " << describe(ppc);
  }
}

// Seed 236213444020164306's problem: `bw[1] <= 2.4` caps the dimension that
// sets the time; d0 and d2 trade against each other at 1e-11 of the time, so the
// least-time design's cost is known to about 1e-7 and the whole front spanned
// 7.6e-8 of the cost: ten budgets inside the solver's noise, two of one cost.
const char* const kFlatFrontOfSeed236213444020164306 =
    R"({"format":"libra-project","schema_version":1,"name":"random","network":{"dimensions":[
{"name":"d0","block":"FullyConnected","npus":16,"cost_level":"L0"},
{"name":"d1","block":"Ring","npus":13,"cost_level":"L1"},
{"name":"d2","block":"FullyConnected","npus":5,"cost_level":"L2"}]},
"cost_model":{"L0":{"Link":0.347205869605146,"Switch":17.6798429366826,"Nic":0.14110371794957124},
"L1":{"Link":0.24928983891944945,"Switch":1.9076440979055436,"Nic":0.4219092426591104},
"L2":{"Link":0.24860231698266558,"Switch":35.09324370489007,"Nic":0.6981368244076173}},
"workloads":[{"name":"w0","weight":1.0,"communicator":{"forward":[1,1,1],"input_grad":[1,1,1],"weight_grad":[1,1,1]},"layers":[
]},
{"name":"w1","weight":1.2891544627025724,"communicator":{"forward":[1,1,1],"input_grad":[1,1,1],"weight_grad":[1,1,1]},"layers":[
{"name":"l0",
"forward":{"compute_ns":0.0,"collective":"None","size_bytes":0},
"input_grad":{"compute_ns":248.87488291751546,"collective":"AllGather","size_bytes":6587677.944915556,"groups":[1,6,5]},
"weight_grad":{"compute_ns":399664.0028191368,"collective":"AllToAll","size_bytes":749757.6401423715,"groups":[6,5,1]},"update_ns":0},
{"name":"l1",
"forward":{"compute_ns":0.0,"collective":"AllToAll","size_bytes":75053.21750600048,"groups":[1,1,5]},
"input_grad":{"compute_ns":22181.015515125604,"collective":"AllToAll","size_bytes":28381.368815128157,"groups":[3,1,1]},
"weight_grad":{"compute_ns":0.0,"collective":"None","size_bytes":0},"update_ns":0}]}],
"training_loop":"no-overlap","constraints":["total == 426.32566296038868","bw[d0] + bw[d2] <= 740.63069145423356","bw[0] >= bw[2]","bw[1] <= 2.4020728806003575"],
"objective":"performance"})";

TEST(SolverRegressions, AFrontNarrowerThanTheSolversPrecisionIsOnePoint) {
  const Problem p =
      buildProblem(projectFromJson(kFlatFrontOfSeed236213444020164306, "regression.json"));
  const ParetoFront front = paretoFront(p, 10);
  ASSERT_EQ(front.status, SolveStatus::Optimal) << front.message;
  ASSERT_LE(front.maxCostUsd - front.minCostUsd, 1e-6 * front.maxCostUsd);
  EXPECT_EQ(front.points.size(), 1u);
  const Solution ppc = solve(p, Objective::PerfPerCost);
  ASSERT_TRUE(ppc.ok()) << describe(ppc);
  for (const Solution& s : front.points) {
    EXPECT_LE(ppc.eval.iterationNs * ppc.eval.costUsd,
              s.eval.iterationNs * s.eval.costUsd * (1 + 1e-9))
        << describe(s) << " vs " << describe(ppc);
  }
}

// --- the report is the evaluation of the answer -----------------------------

// The overlap loop's pieces reach the native solver as whole sums when their
// block is small (the dense path) and as chains of partial sums otherwise
// (StandardForm::rows, sparse). Both forms of the same random overlap problem
// give the same optimal time: the chained form is forced here by dropping the
// whole sums, so it is tested on the problems the dense path normally takes.
TEST(SolverProperties, ChainedPiecesGiveTheSameOptimumAsWholeSums) {
  checkProperty(
      40,
      [] {
        ProblemOptions opt;
        opt.maxCollectives = 60;
        const RandomProblem r = *genProblem(opt);
        RC_PRE(r.project.model.trainingLoop == TrainingLoop::Overlap);
        const Problem p = r.problem();
        const detail::Presolved pre = detail::presolve(p, std::nullopt);
        RC_PRE(pre.status == SolveStatus::Optimal && !pre.trivialSolution);
        RC_PRE(!pre.form.wholeRows.empty());
        detail::StandardForm chained = pre.form;
        chained.wholeRows.clear();
        const detail::BackendResult dense = detail::solveNative(pre.form, nullptr);
        const detail::BackendResult sparse = detail::solveNative(chained, nullptr);
        RC_ASSERT(dense.status == SolveStatus::Optimal);
        if (sparse.status != SolveStatus::Optimal) RC_FAIL("chained: " + sparse.message);
        const double a = p.evaluate(pre.form.bandwidth(dense.x)).surrogateIterationNs;
        const double b = p.evaluate(chained.bandwidth(sparse.x)).surrogateIterationNs;
        if (relDiff(a, b) > 1e-7) {
          RC_FAIL("whole sums " + exactNumber(a) + " ns, chained " + exactNumber(b) + " ns");
        }
      },
      /*shrink=*/false);
}

TEST(SolverProperties, ReportedTimeAndCostAreTheEvaluationOfTheAnswer) {
  checkProperty(100, [] {
    const RandomProblem r = *genProblem();
    const Problem p = r.problem();
    const Solution s = solve(p, Objective::Performance);
    assertSolved(r, s);
    const Evaluation e = p.evaluate(s.bandwidth);
    // Same function on the same vector: equal to the last bit.
    RC_ASSERT(e.iterationNs == s.eval.iterationNs);
    RC_ASSERT(e.costUsd == s.eval.costUsd);
    RC_ASSERT(e.computeNs == s.eval.computeNs);
    RC_ASSERT(e.busyNs == s.eval.busyNs);
    assertConstraintsHold(p, s);
  });
}

// --- optimality: no better feasible neighbour --------------------------------

TEST(SolverProperties, NoFeasiblePerturbationIsFaster) {
  checkProperty(100, [] {
    const RandomProblem r = *genProblem();
    const Problem p = r.problem();
    const Solution s = solve(p, Objective::Performance);
    assertSolved(r, s);
    const auto report = test::perturbationCheck(p, s.bandwidth, 1e-9, 12345, 100);
    if (report.improved > 0) {
      RC_FAIL("a feasible point is faster by " + exactNumber(report.worstRelativeImprovement) +
              " relative: " + test::formatVector(report.worstPoint) + " vs " + describe(s));
    }
  });
}

// No bandwidth is bought that the time does not need: cutting any priced
// dimension of the optimum by 0.1 % either slows the iteration or breaks a
// constraint that held. Where the time is flat in a dimension, the solvers
// answer any point of the flat part; the engine cuts back to where it starts
// (solver.cpp, cutFlatDimensions). Before that, seed 17476096653975282598 of
// the sensitivity properties had an optimum of $63.63 M as fast as one of
// $63.50 M. Each case tagged "flat" had such a dimension.
void cheapestOfTheFastestProperty(std::optional<std::uint64_t> seed = std::nullopt) {
  checkProperty(
      100,
      [] {
        const RandomProblem r = *genProblem();
        const Problem p = r.problem();
        const Solution s = solve(p, Objective::Performance);
        assertSolved(r, s);
        for (int d = 0; d < p.dims(); ++d) {
          if (!(p.costPerBandwidth[d] > 0) || !(s.bandwidth[d] > 0)) continue;
          std::vector<double> cut = s.bandwidth;
          cut[d] *= 1 - 1e-3;
          bool allowed = true;
          for (const LinearConstraint& c : p.constraints) {
            if (c.isSatisfied(s.bandwidth, 1e-9) && !c.isSatisfied(cut, 1e-9)) allowed = false;
          }
          if (!allowed) continue;
          if (p.evaluate(cut).iterationNs <= s.eval.iterationNs) {
            RC_FAIL("dimension " + std::to_string(d) + " can lose 0.1 % of its " +
                    exactNumber(s.bandwidth[d]) + " GB/s at the same time: " + describe(s));
          }
        }
      },
      true, seed);
}

TEST(SolverProperties, NoDimensionCanBeCutWithoutSlowingTheOptimum) {
  cheapestOfTheFastestProperty();
}

// 12613403800986096496: one of the four in five random seeds that failed
// before the cut. 2548666594055419708: a cut of bw[1] freed bw[2] (held by
// `bw[2] >= bw[1]`), cut before it; the cut now repeats until nothing moves.
TEST(SolverRegressions, NoDimensionOfTheSeedsThatFailedCanBeCut) {
  for (const std::uint64_t seed : {12613403800986096496ULL, 2548666594055419708ULL}) {
    SCOPED_TRACE(seed);
    cheapestOfTheFastestProperty(seed);
  }
}

// --- independent reference: golden-section search in 1 or 2 free variables ---

// Minimizes a convex function of one variable on [a, b] by golden-section search.
double goldenMin(const std::function<double(double)>& f, double a, double b, double& argmin) {
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - ratio * (b - a), x2 = a + ratio * (b - a);
  double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 120 && b - a > 1e-15 * std::max(1.0, std::abs(b)); ++i) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - ratio * (b - a);
      f1 = f(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + ratio * (b - a);
      f2 = f(x2);
    }
  }
  argmin = f1 <= f2 ? x1 : x2;
  return std::min(f1, f2);
}

// Problems with 2 or 3 dimensions, `total == B` and per-dimension bounds: the
// feasible set is a segment or a polygon parametrized by (x, y) with
// z = B - x - y, and T is convex on it, so nested golden-section search finds
// the optimum independently of both solvers.
TEST(SolverProperties, MatchesNestedGoldenSectionSearch) {
  checkProperty(100, [] {
    ProblemOptions opt;
    opt.minDims = 2;
    opt.maxDims = 3;
    opt.maxCollectives = 40;
    opt.totalKind = 0;
    opt.extraKinds = {test::ExtraKind::LowerBound, test::ExtraKind::UpperBound};
    opt.maxExtras = 3;
    const RandomProblem r = *genProblem(opt);
    const Problem p = r.problem();
    const int n = p.dims();
    const double B = r.budget;
    std::vector<double> lo(n, 0.0), hi(n, B);
    for (std::size_t c = 1; c < p.constraints.size(); ++c) {
      const auto& lc = p.constraints[c];
      for (int d = 0; d < n; ++d) {
        if (lc.coefficients[d] == 0) continue;
        if (lc.relation == Relation::GreaterEqual) lo[d] = std::max(lo[d], lc.rhs);
        if (lc.relation == Relation::LessEqual) hi[d] = std::min(hi[d], lc.rhs);
      }
    }
    auto timeAt = [&](const std::vector<double>& bw) { return p.evaluate(bw).iterationNs; };
    double ref = 0;
    std::vector<double> refBw(n);
    if (n == 2) {
      double x;
      ref = goldenMin(
          [&](double v) {
            return timeAt({v, B - v});
          },
          std::max(lo[0], B - hi[1]), std::min(hi[0], B - lo[1]), x);
      refBw = {x, B - x};
    } else {
      auto inner = [&](double x, double& yArg) {
        return goldenMin(
            [&](double y) {
              return timeAt({x, y, B - x - y});
            },
            std::max(lo[1], B - x - hi[2]), std::min(hi[1], B - x - lo[2]), yArg);
      };
      double x, y;
      ref = goldenMin(
          [&](double v) {
            double yy;
            return inner(v, yy);
          },
          std::max(lo[0], B - hi[1] - hi[2]), std::min(hi[0], B - lo[1] - lo[2]), x);
      inner(x, y);
      refBw = {x, y, B - x - y};
    }
    for (Backend b : {Backend::Native}) {
      const Solution s = solve(p, Objective::Performance, withBackend(b));
      assertSolved(r, s);
      // The solver may not be worse than a feasible point found by search...
      if (s.eval.iterationNs > ref * (1 + 1e-9)) {
        RC_FAIL("search found a faster point " + test::formatVector(refBw) + " T " +
                exactNumber(ref) + " than " + describe(s));
      }
      // ... and the search, accurate to ~1e-12 in each coordinate on a
      // Lipschitz objective, must come close to the solver's optimum.
      if (relDiff(s.eval.iterationNs, ref) > 1e-7) {
        RC_FAIL("search ends at " + test::formatVector(refBw) + " T " + exactNumber(ref) +
                ", solver at " + describe(s));
      }
    }
  });
}

// A constructed-feasible problem is never reported infeasible or unbounded,
// with either objective (cheap presolve-only check on many cases).
void constructedFeasibleProblemIsSolved() {
  ProblemOptions opt;
  opt.maxCollectives = 20;
  const RandomProblem r = *genProblem(opt);
  const Problem p = r.problem();
  const Solution s = solve(p, Objective::Performance);
  assertSolved(r, s);
  // x0 is feasible (up to the rounding of printed constraints), so the
  // optimum is at least as fast as x0.
  RC_ASSERT(s.eval.iterationNs <= p.evaluate(r.point).iterationNs * (1 + 1e-9));
}

TEST(SolverProperties, ConstructedFeasibleProblemsAreSolved) {
  checkProperty(100, [] { constructedFeasibleProblemIsSolved(); });
}

// Seeds that once failed this property (issue 12), replayed in CI whatever
// RC_PARAMS says. The generator has changed since, so they now draw other
// problems; the problems they drew then are kept below as concrete cases.
TEST(SolverProperties, ConstructedFeasibleProblemsOfSeedsThatFailedAreSolved) {
  for (const std::uint64_t seed : {10251738317576059447ULL, 2235934012667247672ULL}) {
    SCOPED_TRACE(seed);
    checkProperty(
        100, [] { constructedFeasibleProblemIsSolved(); }, true, seed);
  }
}

// The shrunk counterexamples of those two seeds (drawn at commit 00cf043):
// `total == B` and an equality that holds one dimension alone (`bw[d0] == 1`).
// The native solver then "did not converge in 150 iterations" (twice, with the
// conservative retry) where IPOPT solved: the fixed dimension stayed a variable,
// the Schur complement of the ill-conditioned Newton matrix placed it only to
// ~1.4e-6 relative, and the primal residual stalled there (at 1.373e-06 from
// iteration ~40 to 150, the gap at 1e-26) above the 1e-9 tolerance. The staged
// presolve (585f566) now makes a dimension an equality holds alone a constant.
const char* const kStalledOnSeed10251738317576059447 = R"({"format":"libra-project",
"schema_version":1,"name":"random","network":{"dimensions":[
{"name":"d0","block":"Ring","npus":2,"cost_level":"L0"},
{"name":"d1","block":"FullyConnected","npus":2,"cost_level":"L1"},
{"name":"d2","block":"Switch","npus":2,"cost_level":"L2"},
{"name":"d3","block":"Ring","npus":2,"cost_level":"L3"}]},
"cost_model":{"L0":{"Link":0.1,"Switch":0.1,"Nic":0.1},"L1":{"Link":0.1,"Switch":0.1,"Nic":0.1},
"L2":{"Link":0.1,"Switch":0.1,"Nic":0.1},"L3":{"Link":0.1,"Switch":0.1,"Nic":0.1}},
"workloads":[{"name":"w0","weight":1,"communicator":{"forward":[1,1,1,1],
"input_grad":[1,1,1,1],"weight_grad":[1,1,1,1]},"layers":[{"name":"l0",
"forward":{"compute_ns":100,"collective":"AllGather","size_bytes":1000,"groups":[2,2,2,2]},
"input_grad":{"compute_ns":0,"collective":"None","size_bytes":0},
"weight_grad":{"compute_ns":0,"collective":"None","size_bytes":0},"update_ns":0}]}],
"training_loop":"no-overlap","constraints":["total == 250.33209191829081","bw[d0] == 1"],
"objective":"performance"})";

const char* const kStalledOnSeed2235934012667247672 = R"({"format":"libra-project",
"schema_version":1,"name":"random","network":{"dimensions":[
{"name":"d0","block":"FullyConnected","npus":2,"cost_level":"L0"},
{"name":"d1","block":"FullyConnected","npus":2,"cost_level":"L1"},
{"name":"d2","block":"Switch","npus":2,"cost_level":"L2"}]},
"cost_model":{"L0":{"Link":0.1,"Switch":0.1,"Nic":0.1},"L1":{"Link":0.1,"Switch":0.1,"Nic":0.1},
"L2":{"Link":0.1,"Switch":0.1,"Nic":0.1}},
"workloads":[{"name":"w0","weight":1,"communicator":{"forward":[1,1,1],
"input_grad":[1,1,1],"weight_grad":[1,1,1]},"layers":[{"name":"l0",
"forward":{"compute_ns":100,"collective":"ReduceScatter","size_bytes":1000,"groups":[1,2,2]},
"input_grad":{"compute_ns":0,"collective":"None","size_bytes":0},
"weight_grad":{"compute_ns":0,"collective":"None","size_bytes":0},"update_ns":0},
{"name":"l1","forward":{"compute_ns":0,"collective":"None","size_bytes":0},
"input_grad":{"compute_ns":100,"collective":"AllToAll","size_bytes":1000,"groups":[2,1,2]},
"weight_grad":{"compute_ns":100,"collective":"None","size_bytes":0},"update_ns":0}]}],
"training_loop":"overlap","constraints":["total == 265.56464094065353","bw[d2] == 1"],
"objective":"performance"})";

TEST(SolverRegressions, TheStallsOfTheTwoFailedSeedsAreSolved) {
  for (const char* text : {kStalledOnSeed10251738317576059447, kStalledOnSeed2235934012667247672}) {
    const Problem p = buildProblem(projectFromJson(text, "regression.json"));
    const Solution native = solve(p, Objective::Performance, withBackend(Backend::Native));
    const Solution ipopt = solve(p, Objective::Performance, withBackend(Backend::Ipopt));
    ASSERT_TRUE(native.ok()) << describe(native);
    ASSERT_TRUE(ipopt.ok()) << describe(ipopt);
    // In one attempt, well under the limit of 150 (it took 40-45 when fixed).
    EXPECT_LT(native.iterations, 100);
    EXPECT_LE(relDiff(native.eval.iterationNs, ipopt.eval.iterationNs), 1e-6)
        << describe(native) << " / " << describe(ipopt);
    for (const auto& c : p.constraints) {
      EXPECT_TRUE(c.isSatisfied(native.bandwidth)) << c.text << " at " << describe(native);
    }
  }
}

// How far above its optimum a backend may stop on `p`, in ns of iteration time,
// by its own convergence test. Both solve the scaled problem of
// standard_form.hpp, whose objective f is T / (W T0) (W the sum of the workload
// weights, T0 the communication time at the presolve's start point, which moves
// when a row is added), and for a convex problem f(x) - f* is at most the
// duality gap sum_i lambda_i u_i at the point where a backend stops:
//  - native: gap <= 1e-11 max(1, |f|) (kGapTolerance in native_ipm.cpp; not the
//    100 times that it accepts from its best iterate after a stall, so that the
//    property also catches such runs);
//  - IPOPT: tol = 1e-11 bounds each complementarity product lambda_i u_i, not
//    their sum (its max-norm, divided by max(1, mean multiplier / 100): 1 here,
//    where the objective's weights sum to 1), so the gap is at most m 1e-11 for
//    m inequality rows and bounds (branch rows, rows over (t, y, s), linear rows, x >= 0,
//    t >= 0).
// That is absolute in units of T0, which can be far above the optimum (35 times
// on seed 14153911229405092243's problem below).
double stoppingSlackNs(const Problem& p, Backend backend, double timeNs) {
  const detail::Presolved pre = detail::presolve(p, std::nullopt);
  if (pre.status != SolveStatus::Optimal || pre.trivialSolution) return 0;
  const detail::StandardForm& f = pre.form;
  double weights = 0;
  for (const auto& g : p.time.groups) weights += g.weight;
  const double unit = weights * f.timeScale;  // ns per unit of f
  if (backend == Backend::Ipopt) {
    const auto m = static_cast<double>(f.edges.size() + f.rows.size() +
                                       static_cast<std::size_t>(f.Ain.rows()) +
                                       static_cast<std::size_t>(f.n + f.K));
    return m * 1e-11 * unit;
  }
  return 1e-11 * std::max(1.0, timeNs / unit) * unit;
}

// A constraint that the optimum satisfies with room to spare, however loose (up to
// 1e300), changes neither the status nor the optimal time: the presolve drops
// what the other rows imply and scales by the rows that matter. (Found by
// fuzzing: `total <= 1e12` beside `total == 500` was reported infeasible.)
// The two solves are of different problems (one more row, another start point
// and time scale), so each may stop anywhere within its backend's convergence
// test: the times may differ by the two stopping slacks above, plus 1e-9
// relative for the projection onto the active rows (each row holds to 1e-9 of
// its size when a backend stops; T is homogeneous of degree -1 in bw, so moving
// bw by 1e-9 relative moves T by at most as much).
// What adding `extra` to `project` changes with `backend` beyond that, in words;
// empty when nothing does.
std::string whatALooseExtraBoundChanges(const Project& project, const std::string& extra,
                                        Backend backend, const Solution& base) {
  Project looserProject = project;
  looserProject.constraints.push_back(extra);
  const Problem looser = buildProblem(looserProject);
  const Solution again = solve(looser, Objective::Performance, withBackend(backend));
  const std::string both =
      "with '" + extra + "': " + describe(again) + "; without it: " + describe(base);
  if (again.status != base.status) return both;
  const double slack = 1e-9 * std::max(base.eval.iterationNs, again.eval.iterationNs) +
                       stoppingSlackNs(buildProblem(project), backend, base.eval.iterationNs) +
                       stoppingSlackNs(looser, backend, again.eval.iterationNs);
  if (std::abs(again.eval.iterationNs - base.eval.iterationNs) > slack) {
    return both + " (the times differ by more than " + exactNumber(slack) + " ns)";
  }
  return {};
}

void aLooseExtraBoundChangesNothing() {
  ProblemOptions opt;
  opt.maxCollectives = 20;
  const RandomProblem r = *genProblem(opt);
  const Problem p = r.problem();
  const Backend backend =
      *rc::gen::weightedElement<Backend>({{4, Backend::Native}, {1, Backend::Ipopt}});
  RC_TAG(toString(backend));
  const Solution base = solve(p, Objective::Performance, withBackend(backend));
  assertSolved(r, base);
  const Network& net = r.project.network;
  const int n = net.size();
  const int d = *test::genIndex(0, n);
  const std::string ref = test::bwRef(net, d, *rc::gen::arbitrary<bool>());
  double total = 0;
  for (double b : base.bandwidth) total += b;
  // How much looser than the optimum: from a hair to 1e300 in absolute terms.
  auto looser = [](double atOptimum) {
    return *test::genLogUniform(std::max(atOptimum, 1e-300) * (1 + 1e-6), 1e300);
  };
  std::string extra;
  switch (*test::genIndex(0, 5)) {
    case 0:
      extra = ref + " <= " + exactNumber(looser(base.bandwidth[d]));
      break;
    case 1:
      extra = "total <= " + exactNumber(looser(total));
      break;
    case 2:
      extra = "cost <= " + exactNumber(looser(base.eval.costUsd));
      break;
    case 3:
      extra = ref + " >= " + exactNumber(base.bandwidth[d] / *test::genLogUniform(1 + 1e-6, 1e300));
      break;
    default: {
      const int e = (d + 1) % n;
      extra = ref + " + " + test::bwRef(net, e, false) +
              " <= " + exactNumber(looser(base.bandwidth[d] + base.bandwidth[e]));
    }
  }
  RC_TAG(extra.substr(0, extra.find_first_of("<>")));
  const std::string changed = whatALooseExtraBoundChanges(r.project, extra, backend, base);
  if (!changed.empty()) RC_FAIL(changed);
}

TEST(SolverProperties, ALooseExtraBoundChangesNothing) {
  checkProperty(100, aLooseExtraBoundChangesNothing);
}

// Seed 14153911229405092243 (a random run, 81st case) failed the property when
// it compared the times to 1e-9 relative: with IPOPT, `bw[0] >= 0.2232...` (21.4
// at the optimum) moved the time from 121121677.092 to 121121677.213 ns (1.0e-9
// relative; the native solver gives 121121677.087 and .088). Not a defect: both
// IPOPT answers lie within its tolerance (final complementarity 5.1e-12 on each
// of 70 rows and bounds, in units of T0 = 35 times the optimum: up to 3 ns), the
// property now allows what the backends' stopping tests allow. Replayed in CI,
// and its shrunk problem is kept as a concrete case below. Seed
// 17747270458856454631 (the seed hunt) then failed it by 2e-11 of the time with
// the native solver: projectOntoConstraints moved the answer onto a row that
// held with room (fixed there, see AnInactiveCostRowIsNotSpentOnTheWrongDimension).
TEST(SolverRegressions, ALooseExtraBoundOfTheSeedsThatFailedChangesNothing) {
  for (const std::uint64_t seed : {14153911229405092243ULL, 17747270458856454631ULL}) {
    SCOPED_TRACE(seed);
    checkProperty(100, aLooseExtraBoundChangesNothing, true, seed);
  }
}

// The shrunk counterexample of that seed: one 4.2 MB AllGather beside eleven 1 kB
// collectives, so that five of the seven dimensions end below 1 GB/s and the
// time is flat in them.
const char* const kLooseBoundOnSeed14153911229405092243 = R"({"format":"libra-project",
"schema_version":1,"name":"random","network":{"dimensions":[
{"name":"d0","block":"Ring","npus":15,"cost_level":"L0"},
{"name":"d1","block":"Switch","npus":2,"cost_level":"L1"},
{"name":"d2","block":"Ring","npus":9,"cost_level":"L2"},
{"name":"d3","block":"FullyConnected","npus":16,"cost_level":"L3"},
{"name":"d4","block":"Switch","npus":2,"cost_level":"L4"},
{"name":"d5","block":"FullyConnected","npus":2,"cost_level":"L5"},
{"name":"d6","block":"FullyConnected","npus":2,"cost_level":"L6"}]},
"cost_model":{"L0":{"Link":0.1,"Switch":0.1,"Nic":0.1},"L1":{"Link":0.1,"Switch":0.1,"Nic":0.1},
"L2":{"Link":0.1,"Switch":0.1,"Nic":0.1},"L3":{"Link":0.1,"Switch":0.1,"Nic":0.1},
"L4":{"Link":0.1,"Switch":0.1,"Nic":0.1},"L5":{"Link":0.1,"Switch":0.1,"Nic":0.1},
"L6":{"Link":0.1,"Switch":0.1,"Nic":0.1}},
"workloads":[{"name":"w0","weight":1,"communicator":{"forward":[1,1,1,1,1,1,1],
"input_grad":[1,1,1,1,1,1,1],"weight_grad":[1,1,1,1,1,1,1]},"layers":[
{"name":"l0","forward":{"compute_ns":0,"collective":"ReduceScatter","size_bytes":1000,"groups":[1,2,2,2,2,1,1]},
"input_grad":{"compute_ns":0,"collective":"AllGather","size_bytes":4191723.1314163525,"groups":[15,2,1,11,2,1,1]},
"weight_grad":{"compute_ns":0,"collective":"None","size_bytes":0},"update_ns":0},
{"name":"l1","forward":{"compute_ns":0,"collective":"AllGather","size_bytes":1000,"groups":[1,2,1,1,2,1,2]},
"input_grad":{"compute_ns":0,"collective":"AllToAll","size_bytes":1000,"groups":[2,2,2,2,1,2,2]},
"weight_grad":{"compute_ns":100,"collective":"AllReduce","size_bytes":1000,"groups":[1,2,2,2,1,1,2]},"update_ns":0},
{"name":"l2","forward":{"compute_ns":0,"collective":"None","size_bytes":0},
"input_grad":{"compute_ns":100,"collective":"AllGather","size_bytes":1000,"groups":[1,1,2,2,2,2,1]},
"weight_grad":{"compute_ns":0,"collective":"None","size_bytes":0},"update_ns":0},
{"name":"l3","forward":{"compute_ns":0,"collective":"AllToAll","size_bytes":1000,"groups":[2,1,1,2,2,2,1]},
"input_grad":{"compute_ns":0,"collective":"AllGather","size_bytes":1000,"groups":[2,1,2,1,2,2,2]},
"weight_grad":{"compute_ns":100,"collective":"AllGather","size_bytes":1000,"groups":[15,1,1,1,1,1,1]},"update_ns":0},
{"name":"l4","forward":{"compute_ns":100,"collective":"AllReduce","size_bytes":1000,"groups":[2,2,2,2,1,2,1]},
"input_grad":{"compute_ns":100,"collective":"None","size_bytes":0},
"weight_grad":{"compute_ns":100,"collective":"ReduceScatter","size_bytes":1000,"groups":[1,2,1,2,2,1,1]},"update_ns":0},
{"name":"l5","forward":{"compute_ns":0,"collective":"AllGather","size_bytes":1000,"groups":[2,2,1,1,2,1,2]},
"input_grad":{"compute_ns":100,"collective":"None","size_bytes":0},
"weight_grad":{"compute_ns":0,"collective":"None","size_bytes":0},"update_ns":0}]}],
"training_loop":"no-overlap","constraints":["total == 22.987336960054879","bw[4] >= bw[5]",
"cost <= 93268.236533949661","bw[1] <= 1"],"objective":"performance"})";

TEST(SolverRegressions, ALooseLowerBoundOnTheFastestDimensionChangesNothing) {
  const Project project = projectFromJson(kLooseBoundOnSeed14153911229405092243, "regression.json");
  const Problem p = buildProblem(project);
  for (Backend backend : {Backend::Native, Backend::Ipopt}) {
    SCOPED_TRACE(std::string(toString(backend)));
    const Solution base = solve(p, Objective::Performance, withBackend(backend));
    ASSERT_TRUE(base.ok()) << describe(base);
    // bw[0] is 21.4 at the optimum: the bound of the failed case, and looser ones.
    ASSERT_GT(base.bandwidth[0], 21);
    for (const char* extra : {"bw[0] >= 0.22323228237235551", "bw[d0] >= 1e-300", "bw[0] <= 1e300",
                              "total <= 23", "cost <= 1e300"}) {
      EXPECT_EQ(whatALooseExtraBoundChanges(project, extra, backend, base), "");
    }
  }
}

}  // namespace
}  // namespace libra
