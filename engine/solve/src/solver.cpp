#include "libra/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "libra/solver_detail.hpp"
#include "standard_form.hpp"
#include "text.hpp"

namespace libra {

std::string_view toString(SolveStatus status) {
  switch (status) {
    case SolveStatus::Optimal:
      return "optimal";
    case SolveStatus::Infeasible:
      return "infeasible";
    case SolveStatus::Unbounded:
      return "unbounded";
    case SolveStatus::Cancelled:
      return "cancelled";
    case SolveStatus::Error:
      return "error";
  }
  return "error";
}

std::string_view toString(Backend backend) {
  return backend == Backend::Native ? "native" : "ipopt";
}

std::optional<Backend> parseBackend(std::string_view textIn) {
  const std::string t = text::lower(text::trim(textIn));
  if (t == "native") return Backend::Native;
  if (t == "ipopt") return Backend::Ipopt;
  return std::nullopt;
}

namespace {

using detail::BackendResult;
using detail::Presolved;

// IPOPT's iterations for polishing a native answer that stalled at the floor
// (minimizeFixedTime). Ten times the most seen.
constexpr int kPolishIterations = 300;

bool cancelled(const SolveOptions& options) {
  return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

Solution failure(SolveStatus status, std::string message, Objective objective) {
  Solution s;
  s.status = status;
  s.message = std::move(message);
  s.objective = objective;
  return s;
}

Solution fromBandwidth(const Problem& problem, std::vector<double> bw, int iterations) {
  // Rounding leaves a dimension the constraints hold at 0 with 1e-14 GB/s or so:
  // report it as the 0 it is.
  const double top = bw.empty() ? 0.0 : *std::max_element(bw.begin(), bw.end());
  for (double& b : bw) b = b < 1e-12 * top ? 0.0 : b;
  Solution s;
  s.status = SolveStatus::Optimal;
  s.objective = Objective::Performance;
  s.eval = problem.evaluate(bw);
  s.bandwidth = std::move(bw);
  s.iterations = iterations;
  // Where every solver result is produced: none may carry an infinite or NaN
  // cost or time (constraints as large as 1e300 can force one).
  if (!std::isfinite(s.eval.costUsd) || !std::isfinite(s.eval.iterationNs)) {
    Solution f =
        failure(SolveStatus::Error,
                "the optimum's " +
                    std::string(std::isfinite(s.eval.costUsd) ? "iteration time" : "network cost") +
                    " is not a finite number (an overflow): the constraints or sizes "
                    "are too large",
                Objective::Performance);
    f.iterations = iterations;
    return f;
  }
  return s;
}

// What the other backend does with a problem on which `options.backend` hit
// its limit, so that the message says what to do next (appended to it).
std::string otherBackendNote(const detail::StandardForm& form, const SolveOptions& options) {
  char buffer[120];
  if (options.backend == Backend::Ipopt) {
    // The native solver is fast where IPOPT is slow; it gets its own default
    // limits (the user limited IPOPT, not it).
    const BackendResult native = detail::solveNative(form, options.cancel, SolveLimits{});
    if (native.status == SolveStatus::Optimal) {
      std::snprintf(buffer, sizeof buffer, "; the native solver answers this in %.2g s",
                    native.seconds);
    } else {
      std::snprintf(buffer, sizeof buffer, "; the native solver fails too");
    }
  } else {
    // IPOPT within the same time limit (how long the user chose to wait) and
    // its own iteration count.
    SolveLimits same;
    same.seconds = options.limits.seconds;
    const BackendResult ipopt = detail::solveIpopt(form, options.cancel, same);
    if (ipopt.status == SolveStatus::Optimal) {
      std::snprintf(buffer, sizeof buffer, "; IPOPT answers this in %.2g s (--solver ipopt)",
                    ipopt.seconds);
    } else if (ipopt.limitHit) {
      std::snprintf(buffer, sizeof buffer, "; IPOPT does not answer it within %.3g s either",
                    same.seconds);
    } else {
      std::snprintf(buffer, sizeof buffer, "; IPOPT fails too");
    }
  }
  return buffer;
}

// A backend's optimum of `pre`'s standard form as a design of `problem`: in
// GB/s, moved onto the constraints, and with its idle dimensions polished.
Solution answerOf(const Problem& problem, const Presolved& pre, const BackendResult& result) {
  std::vector<double> bw = pre.form.bandwidth(result.x);
  bw = detail::projectOntoConstraints(problem, pre.rows, std::move(bw));
  bw = detail::polishIdleDimensions(problem, pre.rows, std::move(bw));
  return fromBandwidth(problem, std::move(bw), result.iterations);
}

// The native iterates stalled within 100x of the tolerances, at the floor of
// double precision: such an answer can be 1e-8 of the time above the optimum
// (17.7 ns of 1.43 s on a random problem, along a direction worth 0.26 ns per
// GB/s beside rates of 9e7), and a sensitivity's differences see that. IPOPT
// polishes it where it answers within kPolishIterations; the faster answer is
// kept. The limit counts iterations, so that the answer does not depend on how
// busy the machine is (a limit of 0.5 s ran out under AddressSanitizer on a
// loaded CI machine, and that problem failed there only). Polishes take 8 to
// 27 iterations and at most 0.04 s on the CI-seeded suites; the time limit,
// 10 s or 20 times the native solve, is only for a large problem whose IPOPT
// iterations are slow.
Solution polishedByIpopt(const Problem& problem, const SolveOptions& options, const Presolved& pre,
                         const BackendResult& native, Solution out) {
  SolveLimits polish;
  polish.seconds = std::min(options.limits.seconds, std::max(10.0, 20 * native.seconds));
  polish.iterations = kPolishIterations;
  const BackendResult ipopt = detail::solveIpopt(pre.form, options.cancel, polish);
  if (ipopt.status == SolveStatus::Optimal) {
    Solution other = answerOf(problem, pre, ipopt);
    if (other.eval.iterationNs < out.eval.iterationNs) {
      other.iterations = native.iterations;
      out = std::move(other);
    }
  }
  return out;
}

// Least time subject to the constraints and an optional cost budget, for a
// problem whose terms are fixed.
Solution minimizeFixedTime(const Problem& problem, std::optional<double> budget,
                           const SolveOptions& options,
                           const std::vector<double>* warmStart = nullptr) {
  if (cancelled(options))
    return failure(SolveStatus::Cancelled, "cancelled", Objective::Performance);
  // The run's time limit counts the presolve's LPs too; the backend gets what is left.
  const auto started = std::chrono::steady_clock::now();
  Presolved pre = detail::presolve(problem, budget, warmStart,
                                   detail::Deadline::in(options.limits.seconds, options.cancel));
  if (pre.status != SolveStatus::Optimal) {
    return failure(pre.status, pre.message, Objective::Performance);
  }
  if (pre.trivialSolution) {
    const Eigen::VectorXd& x = *pre.trivialSolution;
    return fromBandwidth(problem, std::vector<double>(x.data(), x.data() + x.size()), 0);
  }
  SolveLimits limits = options.limits;
  limits.seconds -=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  limits.seconds = std::max(limits.seconds, 1e-3);
  BackendResult r = options.backend == Backend::Native
                        ? detail::solveNative(pre.form, options.cancel, limits)
                        : detail::solveIpopt(pre.form, options.cancel, limits);
  if (r.limitHit) r.message += otherBackendNote(pre.form, options);
  if (r.status != SolveStatus::Optimal) {
    Solution s = failure(r.status, r.message, Objective::Performance);
    s.iterations = r.iterations;
    return s;
  }
  Solution out = answerOf(problem, pre, r);
  if (options.backend == Backend::Native && r.atFloor) {
    out = polishedByIpopt(problem, options, pre, r, std::move(out));
  }
  return out;
}

// The settling rounds of minimizeTime from the counts of `start` (see there).
Solution settleCounts(const Problem& problem, TimeModel start, std::optional<double> budget,
                      const SolveOptions& options, const std::vector<double>* warmStart) {
  Problem fixed = problem;
  fixed.time = std::move(start);
  Solution best;
  int iterations = 0;
  for (int round = 0; round < 6; ++round) {
    Solution s =
        minimizeFixedTime(fixed, budget, options, round == 0 ? warmStart : &best.bandwidth);
    iterations += s.iterations;
    if (!s.ok()) {
      if (round == 0) return s;
      break;
    }
    // The counts best at the answer; `problem`'s evaluation there is the fixed
    // model's at those counts (what TimeModel::evaluate does for "auto").
    s.solvedModel = std::make_shared<const TimeModel>(fixed.time);
    TimeModel next = problem.time.fixedAt(s.bandwidth);
    s.eval = next.evaluate(s.bandwidth);
    problem.price(s.eval, s.bandwidth);
    // Settled when the counts repeat, or when a round no longer improves the
    // time (counts can alternate between two of equal time).
    const bool repeated = next.terms == fixed.time.terms;
    const bool improved = !best.ok() || s.eval.iterationNs < best.eval.iterationNs * (1 - 1e-9);
    if (!best.ok() || s.eval.iterationNs < best.eval.iterationNs) best = std::move(s);
    if (repeated || !improved) break;
    fixed.time = std::move(next);
  }
  best.iterations = iterations;
  return best;
}

// `model` with every "auto" collective cut into `chunks` chunks.
TimeModel withUniformCounts(const TimeModel& model, int chunks) {
  TimeModel out = model;
  for (TimeTerm& term : out.terms) {
    if (!term.automatic()) continue;
    Schedule schedule = *term.schedule;
    schedule.automatic = false;
    term = chunkedTerm(schedule, chunks);
  }
  return out;
}

// Least time; "auto" chunk counts (TimeModel::isAdaptive) depend on the design,
// so the counts are fixed at a point, the problem solved, and the counts fixed
// again at the answer until they settle: they repeat, or a round no longer
// improves the exact time (at most 6 rounds; the best design by its exact time
// is kept). Every time reported is `problem`'s, at the counts best for the
// design. This is a local search (the problem is not convex in bandwidth and
// counts jointly): from the start of 16 chunks it settled 10 % slower than the
// optimum with one chunk per collective on a random problem (a 3 MB
// ReduceScatter beside 1 us of latency; a case in
// tests/data/regressions/seeds.tsv). A cold solve therefore also settles
// from one chunk per collective and keeps the faster answer (one more solve of
// 60-130 us on the examples); a warm start (a neighbouring answer on a Pareto
// scan) starts at the counts best there.
Solution minimizeTime(const Problem& problem, std::optional<double> budget,
                      const SolveOptions& options, const std::vector<double>* warmStart = nullptr) {
  if (!problem.time.isAdaptive()) return minimizeFixedTime(problem, budget, options, warmStart);
  if (warmStart && warmStart->size() == problem.dimNames.size()) {
    return settleCounts(problem, problem.time.fixedAt(*warmStart), budget, options, warmStart);
  }
  Solution best = settleCounts(problem, problem.time, budget, options, nullptr);
  if (!best.ok() || cancelled(options)) return best;
  Solution one =
      settleCounts(problem, withUniformCounts(problem.time, 1), budget, options, nullptr);
  const int iterations = best.iterations + one.iterations;
  if (one.ok() && one.eval.iterationNs < best.eval.iterationNs * (1 - 1e-9)) best = std::move(one);
  best.iterations = iterations;
  return best;
}

// The least time at no more cost than that time needs. Where a dimension's
// extra bandwidth no longer shortens the iteration (its collectives hidden
// behind compute, or under another dimension's maximum) and no constraint
// holds it, every split beyond that point is as fast, and a solver answers any
// of them: on a random problem, a design of $63.63 M where one of $63.50 M
// has the same time, so the optimum's cost was arbitrary and the upper part of
// the Pareto front (which ends at the optimum) was designs that a cheaper
// point of the same front dominates. So each dimension, the
// dearest first, is cut back for as long as the time stays exactly the same
// (a flat time does not change at all: the maximum it is under is another
// part's) and the constraints that held still hold. One evaluation per
// dimension when nothing is flat. Only for LIBRA's ideal model: a chunked
// model's reported time is its exact schedule's, not the surrogate the solver
// minimized, and cutting by the one would leave the other's optimum.
Solution cutFlatDimensions(const Problem& problem, Solution best) {
  if (!best.ok()) return best;
  for (const TimeTerm& term : problem.time.terms) {
    if (term.schedule) return best;
  }
  std::vector<double> bw = best.bandwidth;
  const double time = problem.evaluate(bw).iterationNs;
  std::vector<int> order;
  for (int d = 0; d < problem.dims(); ++d) {
    if (problem.costPerBandwidth[d] > 0 && bw[d] > 0) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return problem.costPerBandwidth[a] > problem.costPerBandwidth[b];
  });
  // Cutting one dimension can free another (`bw[2] >= bw[1]`: bw[2] can only
  // go as low as bw[1] is): passes until one cuts nothing.
  bool cut = false;
  for (int pass = 0; pass <= problem.dims(); ++pass) {
    bool cutThisPass = false;
    for (const int d : order) {
      if (!(bw[d] > 0)) continue;
      std::vector<double> trial = bw;
      auto asFast = [&](double x) {
        trial[d] = x;
        if (!(problem.evaluate(trial).iterationNs <= time)) return false;
        for (const LinearConstraint& c : problem.constraints) {
          if (c.isSatisfied(bw, 1e-9) && !c.isSatisfied(trial, 1e-9)) return false;
        }
        return true;
      };
      double hi = bw[d] * (1 - 1e-3);
      if (!asFast(hi)) continue;
      double lo = 0;
      for (int i = 0; i < 60 && hi - lo > 1e-12 * bw[d]; ++i) {
        const double mid = 0.5 * (lo + hi);
        (asFast(mid) ? hi : lo) = mid;
      }
      bw[d] = hi;
      cutThisPass = true;
    }
    if (!cutThisPass) break;
    cut = true;
  }
  if (!cut) return best;
  return fromBandwidth(problem, std::move(bw), best.iterations);
}

// The least time (minimizeTime without a budget), as cutFlatDimensions leaves it.
Solution fastest(const Problem& problem, const SolveOptions& options) {
  return cutFlatDimensions(problem, minimizeTime(problem, std::nullopt, options));
}

double timeCost(const Solution& s) {
  return s.eval.iterationNs * s.eval.costUsd;
}

// Brent's method (golden section with parabolic steps; Brent, "Algorithms for
// Minimization without Derivatives", 1973, ch. 5) for the minimum of a unimodal
// f on [a, b], starting from the known point (x, fx). Stops when the bracket is
// narrower than about `tolerance` (absolute) or `stop` returns true. A known
// point at an end of [a, b] is first tested one step of 2 `tolerance` inside:
// when f is not lower there, the minimum lies within that step of the end and
// the search stops. Brent's method would otherwise close in on the end by
// golden sections, about log(range / tolerance) / log(1.618) evaluations (44
// solves, each of a whole problem, for a front whose perf-per-cost optimum is
// its fastest design).
template <class F, class Stop>
void minimizeScalar(F&& f, double a, double b, double fx, double x, double tolerance, Stop&& stop) {
  const double golden = 0.5 * (3.0 - std::sqrt(5.0));
  if ((x == a || x == b) && b - a > 4 * tolerance) {
    const double u = x == a ? a + 2 * tolerance : b - 2 * tolerance;
    const double fu = f(u);
    if (!(fu < fx)) return;
    x = u, fx = fu;
  }
  if (!(x > a && x < b)) x = a + golden * (b - a), fx = f(x);
  double w = x, v = x, fw = fx, fv = fx;
  double d = 0, e = 0;
  for (int iteration = 0; iteration < 100 && !stop(); ++iteration) {
    const double mid = 0.5 * (a + b);
    const double tol = std::max(tolerance, 1e-15 * std::abs(x)) + 1e-300;
    if (std::abs(x - mid) <= 2 * tol - 0.5 * (b - a)) return;
    bool parabolic = false;
    if (std::abs(e) > tol) {
      double r = (x - w) * (fx - fv);
      double q = (x - v) * (fx - fw);
      double p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      q = std::abs(q);
      if (std::abs(p) < std::abs(0.5 * q * e) && p > q * (a - x) && p < q * (b - x)) {
        e = d;
        d = p / q;
        const double u = x + d;
        if (u - a < 2 * tol || b - u < 2 * tol) d = x < mid ? tol : -tol;
        parabolic = true;
      }
    }
    if (!parabolic) {
      e = (x < mid ? b : a) - x;
      d = golden * e;
    }
    const double u = std::abs(d) >= tol ? x + d : x + (d > 0 ? tol : -tol);
    const double fu = f(u);
    // Ties move to u, except infinite ones (infeasible budgets on both sides of
    // the bracket's feasible part): those keep x and shrink the bracket past u.
    if (fu < fx || (fu == fx && std::isfinite(fu))) {
      (u < x ? b : a) = x;
      v = w, fv = fw, w = x, fw = fx, x = u, fx = fu;
    } else {
      (u < x ? a : b) = u;
      if (fu <= fw || w == x) {
        v = w, fv = fw, w = u, fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u, fv = fu;
      }
    }
  }
}

}  // namespace

Solution solveWithCostBudget(const Problem& problem, double costBudgetUsd,
                             const SolveOptions& options) {
  if (!std::isfinite(costBudgetUsd) || costBudgetUsd < 0) {
    return failure(SolveStatus::Error, "the cost budget must be a finite number >= 0",
                   Objective::Performance);
  }
  return minimizeTime(problem, costBudgetUsd, options);
}

// A cost range narrower than this (relative) is one cost (see paretoFront).
constexpr double kOneCost = 1e-6;

namespace {

// Where the least cost leaves a dimension that carries traffic without
// bandwidth, the time grows without bound toward it, but time x cost may
// still fall (with no fixed cost and compute c: (c + V/s) p s = c p s + V p
// falls to V p as s -> 0). When the cheapest scanned point `first` is the best
// and a budget a thousand times closer to the least cost is better still,
// perf per cost has no optimum.
bool fallsTowardNoBandwidth(const Problem& problem, const SolveOptions& options, double cMin,
                            const Solution& first) {
  const double closer = cMin + 1e-3 * (first.eval.costUsd - cMin);
  if (!(closer > cMin) || closer >= first.eval.costUsd) return false;
  const Solution s = minimizeTime(problem, closer, options, &first.bandwidth);
  return s.ok() && timeCost(s) < timeCost(first);
}

// The point count whose first step above an unreachable cheapest cost every
// front starts at (the default of paretoFront).
constexpr int kFrontReachPoints = 50;

// A front's cost range and what its solves share.
struct FrontScan {
  const Problem& problem;
  const SolveOptions& options;
  double cMin = 0;
  double cMax = 0;  // the least-time design's cost
  double span = 0;  // cMax - cMin
  // The cheapest cost leaves a dimension that carries traffic without
  // bandwidth (infinite time).
  bool divergesAtMin = false;
  bool includeMin = false;  // the scan's first point is the cheapest design
  int iterations = 0;       // of every solve so far
};

// The front of a problem whose least-time solve failed: its verdict.
ParetoFront unsolvedFront(const Solution& best) {
  ParetoFront front;
  front.status = best.status;
  front.message = best.message;
  if (best.status == SolveStatus::Unbounded) {
    front.message += " (the Pareto front needs a bounded cost range)";
  }
  return front;
}

// The front of a cost range that is one cost: the single point `best`, and
// the perf-per-cost optimum the better of it and the cheapest design.
void oneCostFront(FrontScan& scan, const Solution& best, ParetoFront& front) {
  front.points.push_back(best);
  front.perfPerCostOptimum = best;
  if (scan.span > 0) {
    Solution cheapest =
        minimizeTime(scan.problem, scan.cMin * (1 + 1e-12) + 1e-9, scan.options, &best.bandwidth);
    scan.iterations += cheapest.iterations;
    if (cheapest.ok() && timeCost(cheapest) < timeCost(best)) {
      front.perfPerCostOptimum = std::move(cheapest);
    }
  }
  front.perfPerCostOptimum.objective = Objective::PerfPerCost;
  front.perfPerCostOptimum.iterations = scan.iterations;
  front.status = SolveStatus::Optimal;
}

// The cost budgets of the scan's `points` points, evenly spaced up to cMax.
// Without the cheapest design the scan starts one step of a 50-point front
// above it, whatever the point count: a coarse front (a drag's 16 points)
// reaches as far into the steep end as the finer one that follows, so the
// chart does not jump when it arrives.
std::vector<double> scanBudgets(const FrontScan& scan, int points) {
  const double first = scan.includeMin ? 0.0 : 1.0 / std::max(points, kFrontReachPoints);
  std::vector<double> budgets(points);
  for (int i = 0; i < points; ++i) {
    const double f = first + (1 - first) * static_cast<double>(i) / (points - 1);
    budgets[i] = scan.cMin + f * scan.span;
  }
  return budgets;
}

// The least time at each budget, each solve warm-started from the point
// before it, into front.points (a budget that has no solution has no point);
// the last point is `best`, the first `cheapest` when the scan includes it.
// False when cancelled (the front says so).
bool scanPoints(FrontScan& scan, const std::vector<double>& budgets, const Solution& best,
                const Solution& cheapest, ParetoFront& front) {
  const SolveOptions& options = scan.options;
  const auto points = static_cast<int>(budgets.size());
  const std::vector<double>* warm = nullptr;
  for (int i = 0; i < points; ++i) {
    if (cancelled(options)) {
      front.status = SolveStatus::Cancelled;
      front.message = "cancelled";
      return false;
    }
    Solution s = i == points - 1 ? best
                 : (i == 0 && scan.includeMin)
                     ? cheapest
                     : minimizeTime(scan.problem, budgets[i], options, warm);
    // The native solver can stall on a budget just above the cheapest cost
    // when the cost row is nearly parallel to an equality (`total == B` with
    // prices equal to 1e-6): the feasible set is a sliver. IPOPT answers
    // those; the front would otherwise lose its point (9 points of 10, the
    // first budget stalled after 150 iterations: a case in
    // tests/data/regressions/seeds.tsv).
    if (!s.ok() && s.status != SolveStatus::Cancelled && options.backend == Backend::Native &&
        !cancelled(options)) {
      scan.iterations += s.iterations;
      SolveOptions ipopt = options;
      ipopt.backend = Backend::Ipopt;
      s = minimizeTime(scan.problem, budgets[i], ipopt, warm);
    }
    scan.iterations += s.iterations;
    if (s.ok()) {
      front.points.push_back(std::move(s));
      warm = &front.points.back().bandwidth;
    }
  }
  return true;
}

// The perf-per-cost optimum of a scanned front, searched to ppcTolerance of its
// cost range: it lies on the front, so the best scanned point's cost budget is
// refined between its neighbours by Brent's method. Sets the front's status.
void searchPerfPerCost(FrontScan& scan, double ppcTolerance, ParetoFront& front) {
  const Problem& problem = scan.problem;
  const SolveOptions& options = scan.options;
  std::size_t bestIndex = 0;
  for (std::size_t i = 1; i < front.points.size(); ++i) {
    if (timeCost(front.points[i]) < timeCost(front.points[bestIndex])) bestIndex = i;
  }
  Solution ppc = front.points[bestIndex];
  if (bestIndex == 0 && scan.divergesAtMin &&
      fallsTowardNoBandwidth(problem, options, scan.cMin, ppc)) {
    front.perfPerCostOptimum =
        failure(SolveStatus::Unbounded,
                "perf per cost has no optimum: time x cost keeps falling as the bandwidth "
                "falls toward zero, where the iteration time grows without bound (nothing "
                "bounds the bandwidth from below); add a lower bound such as 'total >= 100', "
                "or minimize the time under a cost budget",
                Objective::PerfPerCost);
    front.perfPerCostOptimum.iterations = scan.iterations;
    front.status = SolveStatus::Optimal;
    return;
  }
  double lo = bestIndex > 0 ? front.points[bestIndex - 1].eval.costUsd
                            : (scan.includeMin ? scan.cMin : scan.cMin + 1e-9 * scan.span);
  double hi =
      bestIndex + 1 < front.points.size() ? front.points[bestIndex + 1].eval.costUsd : scan.cMax;
  auto evaluateAt = [&](double budget) {
    Solution s = minimizeTime(problem, budget, options, &ppc.bandwidth);
    scan.iterations += s.iterations;
    if (s.ok() && timeCost(s) < timeCost(ppc)) ppc = s;
    return s.ok() ? timeCost(s) : std::numeric_limits<double>::infinity();
  };
  // To ppcTolerance of the cost range (1e-6 for the front's marker, 1e-8 for
  // the answer of solve and analyze: pareto_answer.hpp), not of the cost. At
  // 1e-6 of the cost: where a fixed part dominates
  // the cost (a dimension held by an equality) the front spans 1e-4 of it, and 1e-6
  // of the cost was a fifth of the bracket, 7e-9 worse in time x cost than a
  // scanned point (a case in tests/data/regressions/seeds.tsv, frozen as
  // narrow-front.json). At a kink of the front time x cost grows linearly away
  // from the optimum, and 1e-6 of the range leaves it up to 6e-9 worse than a
  // scanned point (a case in tests/data/regressions/seeds.tsv): below the
  // solves' own accuracy, so the property allows 1e-8. 1e-8 of the range would
  // take about 10 more solves per front, half again the time of a small front
  // (the GUI's live fronts; 13 ms instead of 8 under AddressSanitizer).
  minimizeScalar(evaluateAt, lo, hi, timeCost(ppc), ppc.eval.costUsd, ppcTolerance * scan.span,
                 [&] { return cancelled(options); });
  if (cancelled(options)) {
    front.status = SolveStatus::Cancelled;
    front.message = "cancelled";
    return;
  }
  ppc.objective = Objective::PerfPerCost;
  ppc.iterations = scan.iterations;
  front.perfPerCostOptimum = std::move(ppc);
  front.status = SolveStatus::Optimal;
}

// The front, its perf-per-cost optimum searched to ppcTolerance of its cost range.
ParetoFront frontOf(const Problem& problem, int points, const SolveOptions& options,
                    const Solution& best, double ppcTolerance) {
  points = std::max(points, 2);
  if (!best.ok()) return unsolvedFront(best);
  ParetoFront front;
  const detail::CostRange range = detail::costRange(problem);
  FrontScan scan{problem, options};
  scan.cMax = best.eval.costUsd;
  scan.cMin = std::min(range.min, scan.cMax);
  front.minCostUsd = scan.cMin;
  front.maxCostUsd = scan.cMax;
  scan.iterations = best.iterations;
  scan.span = scan.cMax - scan.cMin;
  // The cost of a least-time design is only as exact as the solver along the
  // directions where the time is flat: 1e-7 of the cost with two dimensions
  // that trade against each other behind a capped one, where the scan of a
  // range of 7.6e-8 gave points of equal cost (a case in
  // tests/data/regressions/seeds.tsv, frozen as front-within-solver-noise.json).
  // A range below 1e-6 of the cost is one cost: a single point, and the
  // perf-per-cost optimum is the better of it and the cheapest design.
  if (scan.span <= kOneCost * std::max(1.0, std::abs(scan.cMax))) {
    oneCostFront(scan, best, front);
    return front;
  }
  // The cheapest cost may leave a dimension that carries traffic without
  // bandwidth (infinite time); then the scan starts one step above it.
  scan.divergesAtMin = detail::presolve(problem, scan.cMin).status == SolveStatus::Infeasible;
  Solution cheapest;
  if (!scan.divergesAtMin) {
    cheapest = minimizeTime(problem, scan.cMin * (1 + 1e-12) + 1e-9, options);
  }
  scan.includeMin = cheapest.ok();
  if (!scanPoints(scan, scanBudgets(scan, points), best, cheapest, front)) return front;
  if (front.points.empty()) {
    front.status = SolveStatus::Error;
    front.message = "no point of the Pareto front could be solved";
    return front;
  }
  searchPerfPerCost(scan, ppcTolerance, front);
  return front;
}

}  // namespace

ParetoFront paretoFront(const Problem& problem, int points, const SolveOptions& options) {
  return paretoFront(problem, points, options, fastest(problem, options));
}

ParetoFront paretoFront(const Problem& problem, int points, const SolveOptions& options,
                        const Solution& best) {
  return frontOf(problem, points, options, best, detail::kPerfPerCostMarkerTolerance);
}

ParetoFront detail::paretoFrontForAnswer(const Problem& problem, int points,
                                         const SolveOptions& options) {
  return frontOf(problem, points, options, fastest(problem, options),
                 detail::kPerfPerCostAnswerTolerance);
}

Solution detail::resolveNear(const Problem& problem, Objective objective, const Solution& near,
                             const SolveOptions& options) {
  const std::vector<double> warm =
      detail::projectOntoConstraints(problem, std::nullopt, near.bandwidth);
  if (objective == Objective::Performance) {
    return minimizeTime(problem, std::nullopt, options, &warm);
  }
  // The budgets near the answer's cost that the changed problem can reach.
  const detail::CostRange range = detail::costRange(problem);
  if (range.status != SolveStatus::Optimal) return failure(range.status, range.message, objective);
  const double cost = near.eval.costUsd;
  const double lo = std::max(cost * (1 - kResolveCostBracket), range.min * (1 + 1e-12) + 1e-9);
  const double hi = std::min(cost * (1 + kResolveCostBracket), range.max);
  Solution best;
  auto evaluateAt = [&](double budget) {
    Solution s = minimizeTime(problem, budget, options, best.ok() ? &best.bandwidth : &warm);
    const double value = s.ok() ? timeCost(s) : std::numeric_limits<double>::infinity();
    if (s.ok() && (!best.ok() || value < timeCost(best))) best = std::move(s);
    return value;
  };
  if (lo < hi) {
    const double start = std::clamp(cost, lo, hi);
    minimizeScalar(evaluateAt, lo, hi, evaluateAt(start), start, kPerfPerCostAnswerTolerance * cost,
                   [&] { return cancelled(options); });
  } else {
    evaluateAt(std::clamp(cost, range.min * (1 + 1e-12) + 1e-9, std::max(range.max, range.min)));
  }
  if (cancelled(options)) return failure(SolveStatus::Cancelled, "cancelled", objective);
  if (!best.ok()) {
    // No budget near the answer's cost is feasible: the verdict of the problem itself.
    Solution s = minimizeTime(problem, std::nullopt, options, &warm);
    if (s.ok()) s = failure(SolveStatus::Error, "no design near the optimum's cost", objective);
    s.objective = objective;
    return s;
  }
  best.objective = objective;
  return best;
}

Solution solve(const Problem& problem, Objective objective, const SolveOptions& options) {
  if (objective == Objective::Performance) return fastest(problem, options);
  ParetoFront front = detail::paretoFrontForAnswer(problem, 32, options);
  if (front.status != SolveStatus::Optimal) {
    return failure(front.status, front.message, Objective::PerfPerCost);
  }
  return front.perfPerCostOptimum;
}

}  // namespace libra
