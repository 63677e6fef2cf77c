#include "libra/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "libra/solver.hpp"

namespace libra {

namespace {

template <class F>
double medianNs(int repetitions, F&& run) {
  std::vector<double> times;
  times.reserve(repetitions);
  for (int i = 0; i < std::max(1, repetitions); ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::nano>(stop - start).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

void require(const Solution& s, const char* what) {
  if (!s.ok()) {
    throw std::runtime_error(std::string(what) + ": " + std::string(toString(s.status)) +
                             (s.message.empty() ? "" : ": " + s.message));
  }
}

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-300);
}

}  // namespace

BenchReport runBench(const Problem& problem, const BenchOptions& options,
                     const std::function<void(const std::string&)>& progress) {
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  BenchReport report;
  report.distinctCollectives = problem.time.collectiveCount();
  const SolveOptions native{Backend::Native, nullptr, SolveLimits{}};
  const SolveOptions ipopt{Backend::Ipopt, nullptr, SolveLimits{}};

  say("native solves");
  Solution n = solve(problem, Objective::Performance, native);
  require(n, "native solver");
  report.nativeIterations = n.iterations;
  report.nativeSolveNs = medianNs(options.solveRepetitions,
                                  [&] { n = solve(problem, Objective::Performance, native); });

  say("IPOPT solves");
  Solution i = solve(problem, Objective::Performance, ipopt);
  require(i, "IPOPT");
  report.ipoptIterations = i.iterations;
  report.ipoptSolveNs = medianNs(options.ipoptRepetitions,
                                 [&] { i = solve(problem, Objective::Performance, ipopt); });
  report.performanceDisagreement = relative(n.eval.iterationNs, i.eval.iterationNs);

  say("Pareto fronts");
  report.pareto100Ns = medianNs(options.paretoRepetitions, [&] {
    ParetoFront f = paretoFront(problem, options.paretoPoints, native);
    if (f.status != SolveStatus::Optimal) throw std::runtime_error("Pareto front: " + f.message);
  });

  if (options.comparePerfPerCost) {
    say("perf-per-cost with both backends");
    const Solution a = solve(problem, Objective::PerfPerCost, native);
    require(a, "native solver (perf-per-cost)");
    const Solution b = solve(problem, Objective::PerfPerCost, ipopt);
    require(b, "IPOPT (perf-per-cost)");
    report.perfPerCostDisagreement =
        relative(a.eval.iterationNs * a.eval.costUsd, b.eval.iterationNs * b.eval.costUsd);
  }
  report.maxRelativeDisagreement =
      std::max(report.performanceDisagreement, report.perfPerCostDisagreement);
  return report;
}

}  // namespace libra
