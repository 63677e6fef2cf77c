// The co-design (codesign.hpp): pruning by dominance returns the best design
// and the Pareto front that exhaustive enumeration returns, for both
// objectives; every design listed keeps the constraints; shapes that differ
// only in blocks with the same time and cost are listed once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "libra/codesign.hpp"
#include "libra/constraints.hpp"
#include "libra/cost.hpp"
#include "libra/error.hpp"
#include "libra/project.hpp"
#include "libra/solver.hpp"
#include "preset_test_support.hpp"
#include "rc_support.hpp"

using namespace libra;
using namespace libra::testing;

namespace {

// A 4-block transformer of 8 heads, global batch 16: small enough to search
// exhaustively on 16 NPUs.
Preset smallTransformer() {
  Preset p = tinyTransformer();
  auto& t = std::get<TransformerConfig>(p.model);
  t.layers = 4;
  t.heads = 8;
  p.globalBatch = 16;
  p.microBatch = 1;
  return p;
}

CodesignOptions optionsFor(const Preset& preset, Objective objective) {
  CodesignOptions o;
  o.shapes.preset = preset;
  o.shapes.device = teraflopDevice();
  o.shapes.device.memoryBytes = 0;  // no memory check
  o.shapes.minDims = 2;
  o.shapes.maxDims = 2;
  o.shapes.constraints = {"total == 100"};
  o.shapes.jobs = 2;
  o.npus = {16};
  o.choices.base = preset.defaults;
  o.choices.searchPlacements = true;
  o.objective = objective;
  o.top = 5;
  return o;
}

std::vector<std::pair<double, double>> frontOf(const CodesignResult& r) {
  std::vector<std::pair<double, double>> out;
  for (int k : r.pareto) {
    out.emplace_back(r.designs[k].solution.eval.iterationNs, r.designs[k].costUsd);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// Pruning (a lower bound on a design's key against the best found) keeps the
// best --top designs exact, and the front where it is faster than the last of
// them; --exhaustive (prune off) gives the whole front. With ample bandwidth
// the compute bounds tell executions apart and most designs are pruned.
TEST(Codesign, PruningKeepsTheBestDesignsAndTheFastFront) {
  const Preset p = smallTransformer();
  for (const auto& [objective, budget] : {std::pair{Objective::Performance, "total == 100"},
                                          std::pair{Objective::Performance, "total == 1e6"},
                                          std::pair{Objective::PerfPerCost, "total == 1e6"}}) {
    SCOPED_TRACE(std::string(objective == Objective::Performance ? "time, " : "perf per cost, ") +
                 budget);
    CodesignOptions o = optionsFor(p, objective);
    o.shapes.constraints = {budget};
    // LIBRA's ideal collectives (no latency): with ample bandwidth, time is compute.
    if (std::string(budget) == "total == 1e6") o.shapes.collectives.chunks = ChunkSetting::ideal();
    o.prune = false;
    const CodesignResult all = runCodesign(o);
    o.prune = true;
    const CodesignResult pruned = runCodesign(o);
    ASSERT_GE(all.designs.size(), static_cast<std::size_t>(o.top));
    ASSERT_GE(pruned.designs.size(), static_cast<std::size_t>(o.top));
    EXPECT_EQ(all.pruned, 0);
    EXPECT_EQ(all.evaluated, pruned.evaluated + pruned.pruned);
    if (std::string(budget) == "total == 1e6") {
      EXPECT_GT(pruned.pruned, all.evaluated / 2);
    }
    const Objective by = objective;  // a lambda cannot capture a structured binding (clang)
    const auto key = [by](const CodesignDesign& d) {
      return by == Objective::Performance ? d.solution.eval.iterationNs
                                          : d.solution.eval.iterationNs * d.costUsd;
    };
    for (int k = 0; k < o.top; ++k) {
      EXPECT_NEAR(key(all.designs[k]), key(pruned.designs[k]), 1e-9 * key(all.designs[k])) << k;
    }
    // Faster than the last of the best: no pruned design can be (time objective).
    if (objective != Objective::Performance) continue;
    const double last = pruned.designs[o.top - 1].solution.eval.iterationNs;
    const auto fb = frontOf(pruned);
    for (const auto& point : frontOf(all)) {
      const double time = point.first, cost = point.second;
      if (time >= last) continue;
      const bool kept = std::any_of(fb.begin(), fb.end(), [&](const auto& f) {
        return std::abs(f.first - time) <= 1e-9 * time && std::abs(f.second - cost) <= 1e-9 * cost;
      });
      EXPECT_TRUE(kept) << time << " ns, $" << cost;
    }
  }
}

// The bounds that prune (compute; each dimension at its most bandwidth; the
// bytes each dimension moves against the most it and all can get) are lower
// bounds under any constraints and collective model: the best designs are
// exhaustive enumeration's, on 8 NPUs in 2 or 3 dimensions.
TEST(Codesign, PruningUnderRandomConstraintsKeepsTheBestDesigns) {
  test::checkProperty(8, [] {
    const Preset p = smallTransformer();
    const Objective objective = *rc::gen::element(Objective::Performance, Objective::PerfPerCost);
    CodesignOptions o = optionsFor(p, objective);
    o.npus = {8};
    o.shapes.minDims = 2;
    o.shapes.maxDims = *rc::gen::element(2, 3);
    o.shapes.constraints = {"total == " + std::to_string(*rc::gen::inRange(20, 400))};
    const int extra = *rc::gen::inRange(0, 3);
    if (extra == 1)
      o.shapes.constraints.push_back("bw[0] <= " + std::to_string(*rc::gen::inRange(5, 60)));
    if (extra == 2)
      o.shapes.constraints.push_back("bw[1] >= " + std::to_string(*rc::gen::inRange(5, 60)));
    o.shapes.collectives.chunks =
        *rc::gen::element(ChunkSetting::automatic(), ChunkSetting::ideal(), ChunkSetting::fixed(4));
    // Two blocks of the three keep the exhaustive runs short.
    o.shapes.blocks = {*rc::gen::element(BuildingBlock::Ring, BuildingBlock::FullyConnected),
                       BuildingBlock::Switch};
    o.top = 3;
    o.prune = false;
    const CodesignResult all = runCodesign(o);
    o.prune = true;
    const CodesignResult pruned = runCodesign(o);
    RC_ASSERT(all.designs.size() == pruned.designs.size() ||
              pruned.designs.size() >= static_cast<std::size_t>(o.top));
    const auto key = [&](const CodesignDesign& d) {
      return objective == Objective::Performance ? d.solution.eval.iterationNs
                                                 : d.solution.eval.iterationNs * d.costUsd;
    };
    const std::size_t n =
        std::min<std::size_t>(static_cast<std::size_t>(o.top), all.designs.size());
    for (std::size_t k = 0; k < n; ++k) {
      RC_ASSERT(std::abs(key(all.designs[k]) - key(pruned.designs[k])) <=
                1e-9 * key(all.designs[k]));
    }
  });
}

// Every design: the constraints hold, the front is non-dominated and cheapest
// first, the list is best first by the objective.
TEST(Codesign, DesignsKeepTheConstraintsAndTheFrontIsNonDominated) {
  const Preset p = smallTransformer();
  const CodesignResult r = runCodesign(optionsFor(p, Objective::Performance));
  ASSERT_FALSE(r.designs.empty());
  for (std::size_t k = 0; k < r.designs.size(); ++k) {
    const CodesignDesign& d = r.designs[k];
    double total = 0;
    for (double b : d.solution.bandwidth) total += b;
    EXPECT_NEAR(total, 100, 1e-6);
    EXPECT_EQ(d.network.npuCount(), 16);
    const Parallelism& q = d.execution.parallelism;
    EXPECT_EQ(std::int64_t{q.tp} * q.pp * q.ep * q.dp, 16);
    if (k > 0) {
      EXPECT_LE(r.designs[k - 1].solution.eval.iterationNs,
                d.solution.eval.iterationNs * (1 + 1e-12));
    }
  }
  for (std::size_t i = 0; i < r.pareto.size(); ++i) {
    const CodesignDesign& d = r.designs[r.pareto[i]];
    if (i > 0) {
      EXPECT_LT(r.designs[r.pareto[i - 1]].costUsd, d.costUsd);
    }
    for (const CodesignDesign& e : r.designs) {
      const bool dominates =
          e.solution.eval.iterationNs <= d.solution.eval.iterationNs && e.costUsd <= d.costUsd &&
          (e.solution.eval.iterationNs < d.solution.eval.iterationNs || e.costUsd < d.costUsd);
      EXPECT_FALSE(dominates);
    }
  }
}

// A 2-NPU Ring and a 2-NPU FullyConnected (one link each way) cost and carry
// the same: their designs are listed once, the other named.
TEST(Codesign, EquivalentShapesAreListedOnce) {
  const Preset p = smallTransformer();
  CodesignOptions o = optionsFor(p, Objective::Performance);
  o.shapes.blocks = {BuildingBlock::Ring, BuildingBlock::FullyConnected};
  o.top = 50;
  const CodesignResult r = runCodesign(o);
  ASSERT_FALSE(r.designs.empty());
  bool named = false;
  for (const CodesignDesign& d : r.designs) {
    for (const std::string& e : d.equivalentShapes) {
      named = true;
      EXPECT_NE(e, d.label);
    }
    for (const CodesignDesign& other : r.designs) {
      if (&other == &d) continue;
      const bool same = other.npus == d.npus && other.execution == d.execution &&
                        std::abs(other.solution.eval.iterationNs - d.solution.eval.iterationNs) <=
                            1e-9 * d.solution.eval.iterationNs &&
                        std::abs(other.costUsd - d.costUsd) <= 1e-9 * d.costUsd;
      EXPECT_FALSE(same) << d.label << " and " << other.label;
    }
  }
  EXPECT_TRUE(named);
}

namespace libra::testing {
namespace {

// The small transformer's search without pruning, every design solved kept.
CodesignOptions everyDesignKept() {
  CodesignOptions o = optionsFor(smallTransformer(), Objective::Performance);
  o.prune = false;
  o.keepPoints = 1000000;
  o.choices.searchPlacements = false;
  return o;
}

// The design-space plot's points: without pruning every design solved is a
// point; each listed design is one of them; a point opened as a project
// (designProject, what the GUI opens and --save-scenarios writes) solves to
// the point's own iteration time and cost; and the cap counts what it leaves out.
TEST(Codesign, PointsAreTheSolvedDesignsAndOpenAsTheirProjects) {
  CodesignOptions o = everyDesignKept();
  const CodesignResult r = runCodesign(o);
  ASSERT_FALSE(r.designs.empty());
  EXPECT_EQ(static_cast<std::int64_t>(r.points.size()), r.evaluated);
  EXPECT_EQ(r.pointsLeftOut, 0);
  for (const CodesignDesign& d : r.designs) {
    const bool found = std::any_of(r.points.begin(), r.points.end(), [&](const CodesignPoint& q) {
      return q.execution == d.execution && q.label == d.label &&
             std::abs(q.iterationNs - d.solution.eval.iterationNs) <=
                 1e-12 * d.solution.eval.iterationNs &&
             q.costUsd == d.costUsd;
    });
    EXPECT_TRUE(found) << d.label << ", " << d.execution.label();
  }
  for (std::size_t k = 0; k < r.points.size(); k += r.points.size() / 7 + 1) {
    const CodesignPoint& q = r.points[k];
    SCOPED_TRACE(q.label + ", " + q.execution.label());
    EXPECT_TRUE(std::isnan(q.timeToTrainS) || q.timeToTrainS > 0);
    const Project project = designProject(o, q.network, q.execution);
    const Solution s = solve(buildProblem(project), o.objective);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_NEAR(s.eval.iterationNs, q.iterationNs, 1e-6 * q.iterationNs);
    EXPECT_NEAR(s.eval.networkCostUsd, q.networkCostUsd, 1e-6 * q.networkCostUsd);
  }
  o.keepPoints = 5;
  const CodesignResult capped = runCodesign(o);
  EXPECT_EQ(capped.points.size(), 5u);
  EXPECT_EQ(capped.pointsLeftOut + 5, capped.evaluated);
}

// CSV rows as fields: quoted fields may hold commas and doubled quotes.
std::vector<std::vector<std::string>> csvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(std::move(field));
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

std::size_t columnOf(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << name;
  return static_cast<std::size_t>(it - header.begin());
}

// The Design Space tab's CSV has a row per design solved, as solved (the
// numbers read back exactly), and marks as on the front only designs that no
// other solved design beats in both cost and time; `libra codesign --csv` has a
// row per design listed, ranked, with the front's marked.
TEST(Codesign, CsvWritersListTheDesignsAsSolved) {
  CodesignOptions o = everyDesignKept();
  const CodesignResult r = runCodesign(o);
  ASSERT_FALSE(r.points.empty());

  const auto space = csvRows(designSpaceCsv(r));
  ASSERT_EQ(space.size(), r.points.size() + 1);
  const std::vector<std::string>& header = space.front();
  const std::size_t front = columnOf(header, "pareto"), shape = columnOf(header, "shape"),
                    tp = columnOf(header, "tp"), time = columnOf(header, "iteration_time_ns"),
                    cost = columnOf(header, "cost_usd"), bw = columnOf(header, "bandwidth_gbps");
  std::size_t marked = 0;
  for (std::size_t k = 0; k < r.points.size(); ++k) {
    const CodesignPoint& q = r.points[k];
    const std::vector<std::string>& row = space[k + 1];
    ASSERT_EQ(row.size(), header.size()) << k;
    EXPECT_EQ(row[shape], q.label);
    EXPECT_EQ(std::stoi(row[tp]), q.execution.parallelism.tp);
    EXPECT_EQ(std::stod(row[time]), q.iterationNs);
    EXPECT_EQ(std::stod(row[cost]), q.costUsd);
    EXPECT_EQ(std::stod(row[bw].substr(0, row[bw].find(';'))), q.bandwidth.front());
    if (row[front] != "1") continue;
    ++marked;
    for (const CodesignPoint& other : r.points) {
      EXPECT_FALSE(other.costUsd < q.costUsd && other.iterationNs < q.iterationNs)
          << q.label << " is marked on the front but " << other.label << " beats it";
    }
  }
  EXPECT_GE(marked, r.pareto.size());

  const auto listed = csvRows(codesignCsv(r));
  ASSERT_EQ(listed.size(), r.designs.size() + 1);
  const std::size_t rank = columnOf(listed.front(), "rank"),
                    onFront = columnOf(listed.front(), "pareto");
  for (std::size_t k = 0; k < r.designs.size(); ++k) {
    EXPECT_EQ(listed[k + 1][rank], std::to_string(k + 1));
    const bool isFront =
        std::find(r.pareto.begin(), r.pareto.end(), static_cast<int>(k)) != r.pareto.end();
    EXPECT_EQ(listed[k + 1][onFront], isFront ? "1" : "0");
  }
}

// Where each axis's groups lie, by dimension name; parts of a dimension say so.
TEST(Codesign, PlacementTextNamesTheDimensionsOfEachAxis) {
  Network n;
  n.dims.resize(2);
  n.dims[0].name = "node";
  n.dims[0].npus = 8;
  n.dims[1].name = "pod";
  n.dims[1].npus = 16;
  Parallelism par;
  par.tp = 8;
  par.dp = 16;
  par.pp = 1;
  par.tpGroups = {8, 1};
  par.dpGroups = {1, 16};
  EXPECT_EQ(placementText(n, par), "TP on node (8); DP on pod (16)");
  par.tp = 4;
  par.dp = 32;
  par.tpGroups = {4, 1};
  par.dpGroups = {2, 16};
  EXPECT_EQ(placementText(n, par), "TP on node (4 of 8); DP on node (2 of 8) x pod (16)");
  EXPECT_EQ(placementText(n, Parallelism{}), "one NPU");
}

}  // namespace
}  // namespace libra::testing

namespace libra::testing {
namespace {

// The GUI's co-design poses the project's own question: its model, device, NPU
// count, budget on the total and run settings; a workload without a model is
// refused with the reason.
TEST(Codesign, OptionsOfAProjectAreItsOwn) {
  const Preset p = smallTransformer();
  ProjectOptions po;
  po.constraints = {"total <= 700", "bw[a] >= bw[b]"};
  po.objective = Objective::PerfPerCost;
  Parallelism par = p.defaults;
  par.precision = Precision::Bf16;
  Network net;
  net.dims = {dimension("a", BuildingBlock::Ring, 4, "InterNode"),
              dimension("b", BuildingBlock::Switch, 4, "InterPod")};
  const Project project = makeProject(p, par, findDevice("h100"), net, po);
  const CodesignOptions o = codesignOptionsOf(project);
  EXPECT_EQ(o.npus, (std::vector<std::int64_t>{16}));
  EXPECT_EQ(o.shapes.constraints, (std::vector<std::string>{"total <= 700"}));
  EXPECT_EQ(o.objective, Objective::PerfPerCost);
  EXPECT_EQ(o.shapes.preset.parameterCount(), p.parameterCount());
  EXPECT_EQ(o.shapes.maxDims, 2);
  Project trace = project;
  trace.workloads.front().origin.reset();
  EXPECT_THROW(codesignOptionsOf(trace), InputError);
}

}  // namespace
}  // namespace libra::testing
namespace {

// What `libra codesign` prints of a result, bar the counts of work done.
std::vector<std::string> listing(const CodesignResult& r) {
  std::vector<std::string> out;
  for (const CodesignDesign& d : r.designs) {
    std::string line = d.label + " | " + d.execution.label() + " | " +
                       std::to_string(d.solution.eval.iterationNs) + " ns | $" +
                       std::to_string(d.costUsd) + " |";
    for (double b : d.solution.bandwidth) line += " " + std::to_string(b);
    for (const std::string& e : d.equivalentShapes) line += " = " + e;
    out.push_back(line);
  }
  std::string front = "front:";
  for (int k : r.pareto) front += " " + std::to_string(k);
  out.push_back(front);
  out.push_back("shapes " + std::to_string(r.shapes) + ", searched " +
                std::to_string(r.shapesSearched) + ", over memory " + std::to_string(r.overMemory));
  return out;
}

}  // namespace

// The units of a distributed run (libra codesign under MPI), merged in any
// order into another run's collector, give the designs and the front of
// runCodesign on one thread, whether a unit is a factorization or one shape;
// so does runCodesign on 2 threads. (Each unit is searched with the bound of
// those merged before it, as rank 0 hands them out; test_cli runs mpirun.)
TEST(Codesign, UnitsMergedInAnyOrderGiveTheSameDesigns) {
  const Preset p = smallTransformer();
  for (const Objective objective : {Objective::Performance, Objective::PerfPerCost}) {
    SCOPED_TRACE(objective == Objective::Performance ? "time" : "perf per cost");
    CodesignOptions o = optionsFor(p, objective);
    o.shapes.maxDims = 3;
    o.shapes.blocks = {BuildingBlock::Ring, BuildingBlock::FullyConnected};
    o.top = 3;
    o.shapes.jobs = 1;
    const std::vector<std::string> reference = listing(runCodesign(o));
    ASSERT_GT(reference.size(), 3u);
    o.shapes.jobs = 2;
    EXPECT_EQ(listing(runCodesign(o)), reference) << "2 threads";

    // Units of a factorization each, and of one shape each (minUnits).
    for (const std::size_t minUnits : {std::size_t{0}, std::size_t{100000}}) {
      CodesignWork searched(o, nullptr, minUnits);
      ASSERT_GT(searched.units(), 3u);
      if (minUnits > 0) {
        EXPECT_EQ(searched.units(), static_cast<std::size_t>(searched.shapes()));
      }
      std::vector<CodesignUnitResult> units;
      for (std::size_t u = 0; u < searched.units(); ++u) {
        units.push_back(searched.run(u));
        searched.merge(units.back());
      }
      EXPECT_EQ(listing(searched.finish(false)), reference) << "units " << units.size();
      std::mt19937 random(7);
      for (int shuffle = 0; shuffle < 3; ++shuffle) {
        std::vector<CodesignUnitResult> order = units;
        if (shuffle == 1) std::reverse(order.begin(), order.end());
        if (shuffle > 1) std::shuffle(order.begin(), order.end(), random);
        CodesignWork merged(o);
        for (CodesignUnitResult& r : order) merged.merge(std::move(r));
        EXPECT_EQ(listing(merged.finish(false)), reference)
            << "order " << shuffle << ", units " << units.size();
      }
    }
  }
}
