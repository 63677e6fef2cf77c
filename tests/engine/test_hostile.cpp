// Hostile projects: the random problems of generators.hpp pushed to the
// extremes that attacks on the tool used (issue 29): thousands of redundant
// bounds, thousands of layers of distinct collectives, sizes from a byte to
// 1e60 bytes, prices from 1e-6 to 1e60 $ per GB/s, compute from nothing to
// 1e12 ns. Whatever the mix, the engine answers within its time limit with a
// clear status, and an answer keeps the consistency the ordinary properties
// check: it satisfies the constraints, it is the evaluation of its split, the
// backends agree, more budget is never slower, and a front is non-dominated.
//
// CI runs it with one fixed seed (RC_PARAMS in .ci/run); packaging/seed-hunt.sh
// -t test_hostile runs it with many.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "engine_test_support.hpp"
#include "generators.hpp"
#include "rc_support.hpp"

namespace libra {
namespace {

using test::checkProperty;
using test::exactNumber;
using test::genIndex;
using test::genLogUniform;
using test::genProblem;
using test::ProblemOptions;
using test::RandomProblem;
using test::relDiff;
using test::withBackend;

// What a hostile draw changed, for the failure report.
struct Extremes {
  double sizeScale = 1, priceScale = 1, computeScale = 1;
  int redundantBounds = 0;
  int layers = 0;  // layers of distinct collectives added
  std::string describe() const {
    std::ostringstream s;
    s << "sizes x" << sizeScale << ", prices x" << priceScale << ", compute x" << computeScale
      << ", " << redundantBounds << " redundant bounds, " << layers << " added layers";
    return s.str();
  }
};

// A random problem of generators.hpp with some of the extremes, each drawn
// independently (most draws keep one or two).
RandomProblem drawHostile(Extremes& x) {
  ProblemOptions opt;
  opt.maxCollectives = 40;
  RandomProblem r = *genProblem(opt);
  Project& p = r.project;
  auto sometimes = [] { return *genIndex(0, 3) == 0; };
  if (sometimes()) x.sizeScale = *genLogUniform(1e-9, 1e50);
  if (sometimes()) x.priceScale = *genLogUniform(1e-6, 1e60);
  if (sometimes()) x.computeScale = *rc::gen::element(0.0, 1e-6, 1e5);
  if (sometimes()) x.redundantBounds = *rc::gen::element(300, 3000);
  if (sometimes()) x.layers = *rc::gen::element(300, 1000);
  for (auto& [name, level] : p.costModel.levels) {
    for (auto* price : {&level.link, &level.switchPrice, &level.nic}) {
      if (*price) **price *= x.priceScale;
    }
  }
  // The generator's cost caps hold at its known point at its prices: scaled too.
  const std::string cap = "cost <= ";
  for (std::string& c : p.constraints) {
    if (c.rfind(cap, 0) == 0) c = cap + exactNumber(std::stod(c.substr(cap.size())) * x.priceScale);
  }
  for (Workload& w : p.workloads) {
    std::vector<Layer>& layers = w.layers.mutate();
    const std::size_t original = layers.size();
    for (int i = 0; i < x.layers && original > 0; ++i) {
      Layer l = layers[static_cast<std::size_t>(i) % original];
      l.name = "extra" + std::to_string(i);
      for (Phase& ph : l.phases) ph.sizeBytes *= 1 + 1e-3 * (i + 1);  // each its own collective
      layers.push_back(std::move(l));
    }
    for (Layer& l : layers) {
      for (Phase& ph : l.phases) {
        ph.sizeBytes *= x.sizeScale;
        ph.computeNs *= x.computeScale;
      }
    }
  }
  // Bounds the total implies: bw[d] <= B (1 + i).
  for (int i = 0; i < x.redundantBounds; ++i) {
    const int d = i % p.network.size();
    p.constraints.push_back("bw[" + std::to_string(d) + "] <= " + exactNumber(r.budget * (2 + i)));
  }
  return r;
}

constexpr double kTimeLimit = 30;

SolveOptions limited(Backend backend) {
  SolveOptions o = withBackend(backend);
  o.limits.seconds = kTimeLimit;
  return o;
}

// A status other than optimal must say why in words; infeasible only for a
// problem that may be (the generator's known point proves the others).
void checkVerdict(const RandomProblem& r, const Solution& s, const std::string& what) {
  if (s.ok()) return;
  RC_TAG(what + " " + std::string(toString(s.status)));
  if (s.message.empty())
    RC_FAIL(what + ": status " + std::string(toString(s.status)) + " without a message");
  if (s.status == SolveStatus::Infeasible && r.knownFeasible) {
    RC_FAIL(what + ": a feasible problem was called infeasible: " + s.message);
  }
}

void checkAnswer(const Problem& p, const Solution& s, const std::string& what) {
  for (const LinearConstraint& c : p.constraints) {
    if (!c.isSatisfied(s.bandwidth, 1e-7)) {
      RC_FAIL(what + ": '" + c.text + "' violated by " + exactNumber(c.violation(s.bandwidth)));
    }
  }
  const Evaluation e = p.evaluate(s.bandwidth);
  if (!(e.iterationNs == s.eval.iterationNs && e.costUsd == s.eval.costUsd)) {
    RC_FAIL(what + ": reported " + exactNumber(s.eval.iterationNs) + " ns, evaluated " +
            exactNumber(e.iterationNs));
  }
  if (!std::isfinite(s.eval.iterationNs) || !std::isfinite(s.eval.costUsd)) {
    RC_FAIL(what + ": an answer with a time or cost that is not finite");
  }
}

TEST(HostileProperties, AnswersAreConsistentOrRefusedWithAReason) {
  checkProperty(
      25,
      [] {
        Extremes x;
        const RandomProblem r = drawHostile(x);
        RC_LOG() << x.describe() << "\n";
        const Problem p = r.problem();
        const Solution s = solve(p, Objective::Performance, limited(Backend::Native));
        checkVerdict(r, s, "native");
        if (!s.ok()) return;
        checkAnswer(p, s, "native");

        // More of the total budget is never slower (`total <= 1.5 B` relaxes
        // both `total == B` and `total <= B`).
        Problem more = p;
        more.constraints[0].rhs *= 1.5;
        more.constraints[0].relation = Relation::LessEqual;
        const Solution wider = solve(more, Objective::Performance, limited(Backend::Native));
        checkVerdict(r, wider, "wider budget");
        if (wider.ok() && wider.eval.iterationNs > s.eval.iterationNs * (1 + 1e-7)) {
          RC_FAIL("1.5x the budget is slower: " + exactNumber(wider.eval.iterationNs) + " ns vs " +
                  exactNumber(s.eval.iterationNs));
        }

        // A front: increasing cost, never slower with more of it.
        const ParetoFront front = paretoFront(p, 5, limited(Backend::Native), s);
        if (front.status == SolveStatus::Optimal) {
          for (std::size_t i = 1; i < front.points.size(); ++i) {
            const Solution &a = front.points[i - 1], &b = front.points[i];
            if (!(b.eval.costUsd > a.eval.costUsd) ||
                b.eval.iterationNs > a.eval.iterationNs * (1 + 1e-7)) {
              RC_FAIL("front point " + std::to_string(i) + " is dominated");
            }
          }
        } else if (front.message.empty()) {
          RC_FAIL("a front without points and without a message");
        }

        // IPOPT agrees where it is affordable (not on the thousands of layers).
        if (x.layers == 0) {
          const Solution ipopt = solve(p, Objective::Performance, limited(Backend::Ipopt));
          checkVerdict(r, ipopt, "ipopt");
          if (ipopt.ok()) {
            checkAnswer(p, ipopt, "ipopt");
            if (relDiff(ipopt.eval.iterationNs, s.eval.iterationNs) > 1e-6) {
              RC_FAIL("backends disagree: native " + exactNumber(s.eval.iterationNs) +
                      " ns, IPOPT " + exactNumber(ipopt.eval.iterationNs));
            }
          }
        }
      },
      /*shrink=*/false);
}

}  // namespace
}  // namespace libra
