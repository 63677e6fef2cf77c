// Project edits (libra/edits.hpp): examples for each edit, the budget lines, and
// a property: through random sequences of edits every surviving constraint keeps
// its meaning, and only the constraints that refer to a removed dimension are
// removed.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine_test_support.hpp"
#include "libra/edits.hpp"
#include "libra/presets.hpp"
#include "rc_support.hpp"

namespace libra {
namespace {

using test::contains;

Project projectWith(const std::vector<std::string>& names, std::vector<std::string> constraints) {
  Project p;
  p.name = "edits";
  for (const std::string& n : names) {
    p.network.dims.push_back(test::makeDim(n, BuildingBlock::Ring, 4, "L"));
  }
  p.constraints = std::move(constraints);
  return p;
}

// ---------------------------------------------------------------------------
// Dimension edits
// ---------------------------------------------------------------------------

TEST(DimensionEdits, MovingADimensionKeepsAnOrderingConstraintsMeaning) {
  // The regression: after "Move in" bw[0] >= bw[1] used to mean the opposite.
  Project p = projectWith({"chiplet", "package", "pod"}, {"total == 500", "bw[0] >= bw[1]"});
  const EditReport r = moveDimension(p, 0, 1);
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(p.network.names(), (std::vector<std::string>{"package", "chiplet", "pod"}));
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"total == 500", "bw[1] >= bw[0]"}));
  // Moving across several positions: old 0 -> 2, 1 -> 0, 2 -> 1.
  Project q = projectWith({"a", "b", "c"}, {"bw[0] + 2*bw[1] - bw[2] <= bw[c]"});
  moveDimension(q, 0, 2);
  EXPECT_EQ(q.constraints, std::vector<std::string>{"bw[2] + 2*bw[0] - bw[1] <= bw[c]"});
}

TEST(DimensionEdits, RenamingFollowsIntoTheConstraints) {
  Project p = projectWith({"pkg", "node", "pod"}, {"bw[pod] <= 50", "bw[ pod ]>=bw[node]"});
  EXPECT_TRUE(renameDimension(p, 2, "scaleout").empty());
  EXPECT_EQ(p.network.dims[2].name, "scaleout");
  EXPECT_EQ(p.constraints,
            (std::vector<std::string>{"bw[scaleout] <= 50", "bw[ scaleout ]>=bw[node]"}));
  // A name that cannot be written in bw[...] turns the references into indexes.
  renameDimension(p, 2, "scale out");
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"bw[2] <= 50", "bw[ 2 ]>=bw[node]"}));
}

TEST(DimensionEdits, InsertingShiftsIndexesAndKeepsNames) {
  Project p = projectWith({"a", "b", "c"}, {"bw[0] + bw[2] <= 5", "bw[c] >= 1", "total == 9"});
  EXPECT_TRUE(insertDimension(p, 1).empty());
  ASSERT_EQ(p.network.size(), 4);
  EXPECT_EQ(p.network.dims[1].name, "dim3");
  EXPECT_EQ(p.network.dims[1].npus, 2);
  EXPECT_EQ(p.network.dims[1].costLevel, "L");
  EXPECT_EQ(p.constraints,
            (std::vector<std::string>{"bw[0] + bw[3] <= 5", "bw[c] >= 1", "total == 9"}));
  // Out of range indexes are clamped: at the end.
  insertDimension(p, 99);
  EXPECT_EQ(p.network.dims.back().name, "dim4");
}

TEST(DimensionEdits, RemovingDropsAndReportsTheConstraintsThatReferToIt) {
  Project p = projectWith({"pkg", "node", "pod", "dc"},
                          {"total == 500", "bw[2] <= 50", "bw[3] >= bw[1]", "bw[pod] + bw[0] >= 1",
                           "cost <= 1e6", "bw[dc] <= 7"});
  const EditReport r = removeDimension(p, 2);
  EXPECT_EQ(p.network.names(), (std::vector<std::string>{"pkg", "node", "dc"}));
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"total == 500", "bw[2] >= bw[1]",
                                                     "cost <= 1e6", "bw[dc] <= 7"}));
  EXPECT_EQ(r.removedConstraints,
            (std::vector<std::string>{"bw[2] <= 50", "bw[pod] + bw[0] >= 1"}));
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0],
            "removed constraint 'bw[2] <= 50': it referred to dimension 'pod', which was removed");
  EXPECT_TRUE(contains(r.notes[1], "'bw[pod] + bw[0] >= 1'")) << r.notes[1];
  // Out of range: nothing happens.
  const Project before = p;
  EXPECT_TRUE(removeDimension(p, 3).empty());
  EXPECT_EQ(p, before);
}

TEST(DimensionEdits, SettingTheCountRemovesOuterDimensionsWithTheirConstraints) {
  Project p = projectWith({"a", "b", "c", "d"}, {"bw[3] + bw[2] <= 1", "bw[b] <= 2", "total == 3"});
  const EditReport r = setDimensionCount(p, 2);
  EXPECT_EQ(p.network.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"bw[b] <= 2", "total == 3"}));
  ASSERT_EQ(r.notes.size(), 1u);
  // Removed at the first step (dimension 'd' goes first, and it names both).
  EXPECT_EQ(r.notes[0],
            "removed constraint 'bw[3] + bw[2] <= 1': it referred to dimension 'd', which was "
            "removed");
  EXPECT_TRUE(setDimensionCount(p, 4).empty());
  EXPECT_EQ(p.network.names(), (std::vector<std::string>{"a", "b", "dim2", "dim3"}));
}

TEST(DimensionEdits, CommunicatorsFollowTheDimensions) {
  Project p = projectWith({"a", "b", "c"}, {});
  Workload w;
  w.name = "w";
  w.communicator = test::makeCommunicator({4, 2, 1}, {4, 2, 1}, {1, 2, 4});
  w.layers.push_back(test::makeLayer("l",
                                     test::makePhase(1, CollectiveType::AllReduce, 8, {4, 4, 1}),
                                     test::makePhase(1), test::makePhase(1)));
  p.workloads.push_back(w);
  insertDimension(p, 1);
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::WeightGrad), (std::vector<int>{1, 1, 2, 4}));
  EXPECT_EQ(p.workloads[0].layers[0].phases[0].groups, (std::vector<int>{4, 1, 4, 1}));
  EXPECT_TRUE(p.workloads[0].layers[0].phases[1].groups.empty());
  moveDimension(p, 3, 0);
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::WeightGrad), (std::vector<int>{4, 1, 1, 2}));
  removeDimension(p, 2);
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::WeightGrad), (std::vector<int>{4, 1, 2}));
  EXPECT_EQ(p.workloads[0].layers[0].phases[0].groups, (std::vector<int>{1, 4, 4}));
  // n_d: a group spanning the whole dimension keeps spanning it, others are kept
  // (clamped to the new size). Dimensions are c, a, b now, 4 NPUs each.
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::Forward), (std::vector<int>{1, 4, 2}));
  const std::vector<std::string> constraints{"bw[0] <= 1"};
  p.constraints = constraints;
  EXPECT_TRUE(setDimensionNpus(p, 0, 8).empty());
  EXPECT_EQ(p.network.dims[0].npus, 8);
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::WeightGrad)[0], 8);
  setDimensionNpus(p, 1, 3);
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::Forward)[1], 3);
  setDimensionNpus(p, 2, 8);
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::Forward)[2], 2);
  EXPECT_EQ(p.workloads[0].layers[0].phases[0].groups, (std::vector<int>{1, 3, 8}));
  EXPECT_EQ(p.constraints, constraints);
}

TEST(DimensionEdits, PresetWorkloadsAreGeneratedAgainForTheNewNetwork) {
  Network net;
  for (const char* n : {"a", "b", "c"}) {
    net.dims.push_back(test::makeDim(n, BuildingBlock::Ring, 4, "Package"));
  }
  const Preset& preset = findPreset("resnet50");
  Parallelism par = preset.defaults;
  par.dp = 0;
  ProjectOptions options;
  Project p = makeProject(preset, par, findDevice("h100"), net, options);
  p.workloads[0].weight = 2.5;
  const auto before = presetChoiceOf(p.workloads[0]);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->preset, "resnet50");
  EXPECT_EQ(before->parallelism.dp, 64);
  insertDimension(p, 3);
  const auto after = presetChoiceOf(p.workloads[0]);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->parallelism.dp, 128);  // the data-parallel degree follows N
  EXPECT_EQ(p.workloads[0].communicator.of(PhaseKind::WeightGrad).size(), 4u);
  EXPECT_EQ(p.workloads[0].weight, 2.5);
  validateProject(p);
  // A workload without an origin is not regenerated.
  Workload plain = p.workloads[0];
  plain.origin.reset();
  Workload copy = plain;
  EXPECT_FALSE(regenerateForNetwork(copy, net));
  EXPECT_EQ(copy, plain);
  // One that does not fit is left as it was, with the reason.
  Workload tooWide = p.workloads[0];
  tooWide.origin->parameters["tp"] = 3;
  copy = tooWide;
  std::string error;
  EXPECT_FALSE(regenerateForNetwork(copy, p.network, &error));
  EXPECT_EQ(copy, tooWide);
  EXPECT_FALSE(error.empty());
}

TEST(ProjectNames, DescribeTheContentAndFollowItUntilChosen) {
  Network net;
  net.dims.push_back(test::makeDim("a", BuildingBlock::Ring, 4, "Package"));
  net.dims.push_back(test::makeDim("b", BuildingBlock::FullyConnected, 8, "Node"));
  net.dims.push_back(test::makeDim("c", BuildingBlock::Switch, 2, "Pod"));
  const Preset& preset = findPreset("resnet50");
  Parallelism par = preset.defaults;
  par.dp = 0;
  const Project p = makeProject(preset, par, findDevice("h100"), net);
  EXPECT_EQ(p.name, "ResNet-50 on a 3D network (Ring 4 x FC 8 x Switch 2)");
  EXPECT_EQ(describedName(p), p.name);
  // A second workload of another model joins the name; one of the same model does not.
  Project two = p;
  two.workloads.push_back(p.workloads[0]);
  EXPECT_EQ(describedName(two), p.name);
  two.workloads.back().origin.reset();
  two.workloads.back().name = "custom";
  EXPECT_EQ(describedName(two), "ResNet-50 + custom on a 3D network (Ring 4 x FC 8 x Switch 2)");

  Project after = p;
  insertDimension(after, 3);
  followDescribedName(p, after);
  EXPECT_EQ(after.name, describedName(after));
  EXPECT_NE(after.name, p.name);
  // A name somebody chose is kept, and so is the one an edit sets.
  Project chosen = p;
  chosen.name = "Study A";
  Project edited = chosen;
  insertDimension(edited, 3);
  followDescribedName(chosen, edited);
  EXPECT_EQ(edited.name, "Study A");
  Project renamed = p;
  renamed.name = "Study B";
  followDescribedName(p, renamed);
  EXPECT_EQ(renamed.name, "Study B");
  // No name at all is a described one.
  Project unnamed = p;
  unnamed.name.clear();
  Project next = unnamed;
  followDescribedName(unnamed, next);
  EXPECT_EQ(next.name, p.name);
}

TEST(DimensionEdits, FreshNamesAreUnused) {
  Network net;
  for (const char* n : {"dim3", "x", "dim4"}) {
    net.dims.push_back(test::makeDim(n, BuildingBlock::Ring, 2, "L"));
  }
  EXPECT_EQ(freshDimensionName(net), "dim5");
}

// ---------------------------------------------------------------------------
// Budgets
// ---------------------------------------------------------------------------

TEST(Budgets, AreFoundByParsingHoweverWritten) {
  for (const std::string text : {"total == 500", " total==500 ", "500 == total", "2*total == 1000",
                                 "total - 500 == 0", "-total == -500", "total*1 == 5e2"}) {
    EXPECT_EQ(totalBudgetOf(text), std::optional<double>(500)) << text;
  }
  for (const std::string text : {"total <= 500", "total + bw[0] == 500", "total + cost == 5",
                                 "total = 500", "cost <= 500", "bw[0] == 500"}) {
    EXPECT_EQ(totalBudgetOf(text), std::nullopt) << text;
  }
  for (const std::string text :
       {"cost <= 4.5e7", "4.5e7 >= cost", "-cost >= -4.5e7", "2*cost <= 9e7", " cost<=45000000"}) {
    EXPECT_EQ(costBudgetOf(text), std::optional<double>(4.5e7)) << text;
  }
  for (const std::string text :
       {"cost >= 4.5e7", "cost == 5", "cost + total <= 5", "cost + bw[1] <= 5", "cost < 5"}) {
    EXPECT_EQ(costBudgetOf(text), std::nullopt) << text;
  }
  EXPECT_EQ(totalBudgetOf("0 == total"), std::optional<double>(0));
  EXPECT_FALSE(std::signbit(*totalBudgetOf("0 == total")));
}

TEST(Budgets, SplitTakesTheFirstOfEachAndKeepsTheRestInOrder) {
  const BudgetConstraints b =
      splitConstraints({"bw[0] >= bw[1]", " total==500 ", "4.5e7 >= cost", "total == 7"});
  EXPECT_EQ(b.totalBandwidth, std::optional<double>(500));
  EXPECT_EQ(b.costBudget, std::optional<double>(4.5e7));
  EXPECT_EQ(b.extra, (std::vector<std::string>{"bw[0] >= bw[1]", "total == 7"}));
  EXPECT_EQ(splitConstraints({"bw[0 <= 5"}).extra, std::vector<std::string>{"bw[0 <= 5"});
}

TEST(Budgets, SettingReplacesInPlaceOrAddsFirst) {
  Project p = projectWith({"a", "b"}, {"bw[0] >= bw[1]", "500 == total", "bw[1] >= 1"});
  setTotalBandwidth(p, 640);
  EXPECT_EQ(p.constraints,
            (std::vector<std::string>{"bw[0] >= bw[1]", "total == 640", "bw[1] >= 1"}));
  // The same value leaves the user's text.
  p.constraints[1] = "2*total == 1280";
  setTotalBandwidth(p, 640);
  EXPECT_EQ(p.constraints[1], "2*total == 1280");
  // A cost budget goes after the total.
  setCostBudget(p, 4.5e7);
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"bw[0] >= bw[1]", "2*total == 1280",
                                                     "cost <= 4.5e+07", "bw[1] >= 1"}));
  setCostBudget(p, 0.1 + 0.2);
  EXPECT_EQ(p.constraints[2], "cost <= 0.30000000000000004");
  EXPECT_EQ(splitConstraints(p.constraints).costBudget, std::optional<double>(0.1 + 0.2));
  setTotalBandwidth(p, std::nullopt);
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"bw[0] >= bw[1]",
                                                     "cost <= 0.30000000000000004", "bw[1] >= 1"}));
  setTotalBandwidth(p, 12.5);
  EXPECT_EQ(p.constraints.front(), "total == 12.5");
  setCostBudget(p, std::nullopt);
  setCostBudget(p, 1e6);
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"total == 12.5", "cost <= 1e+06",
                                                     "bw[0] >= bw[1]", "bw[1] >= 1"}));
  EXPECT_THROW(setTotalBandwidth(p, std::nan("")), InputError);
  EXPECT_THROW(setCostBudget(p, HUGE_VAL), InputError);
  EXPECT_EQ(p.constraints.size(), 4u);
}

TEST(Budgets, ExtraConstraintsFollowTheBudgetLines) {
  Project p = projectWith({"a", "b"}, {"bw[0] >= 1", "cost <= 5", "bw[1] >= 1", "total==9"});
  setExtraConstraints(p, {"bw[a] <= 3", "bw[b] <= 4"});
  EXPECT_EQ(p.constraints,
            (std::vector<std::string>{"cost <= 5", "total==9", "bw[a] <= 3", "bw[b] <= 4"}));
  EXPECT_EQ(constraintsWithoutCostBudget(p.constraints),
            (std::vector<std::string>{"total==9", "bw[a] <= 3", "bw[b] <= 4"}));
  EXPECT_EQ(constraintsWithoutCostBudget({"total == 1", "cost >= 5"}),
            (std::vector<std::string>{"total == 1", "cost >= 5"}));
}

// ---------------------------------------------------------------------------
// Property: random projects and random edit sequences
// ---------------------------------------------------------------------------

// Names a dimension may get: valid keys, and a few that cannot be written in
// bw[...] (spaces, digits only, empty) or are taken by another dimension.
const std::vector<std::string> kNamePool{"pkg", "node", "pod",  "dc",  "a-b",       "x.y",
                                         "_z",  "n2",   "dim7", "row", "two words", "42"};

std::string spaces() {
  return std::string(*rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {1, 2}}), ' ');
}

// A random linear expression over dimensions with unique names that can be
// written in bw[...], in varied formatting.
std::string genConstraint(const std::vector<std::string>& names) {
  const int dims = static_cast<int>(names.size());
  std::string text = spaces();
  for (int side = 0; side < 2; ++side) {
    const int terms = *rc::gen::inRange(1, 4);
    for (int t = 0; t < terms; ++t) {
      if (t > 0 || *rc::gen::weightedElement<int>({{4, 0}, {1, 1}})) {
        text += spaces() + (*rc::gen::arbitrary<bool>() ? "+" : "-") + spaces();
      }
      const int kind = *rc::gen::weightedElement<int>({{2, 0}, {4, 1}, {3, 2}, {1, 3}, {1, 4}});
      const int d = *rc::gen::inRange(0, dims);
      std::string variable;
      if (kind == 1) {
        variable = "bw" + spaces() + "[" + spaces() + std::to_string(d) + spaces() + "]";
      } else if (kind == 2) {
        variable = "bw[" + names[d] + "]";
      } else if (kind == 3) {
        variable = "total";
      } else if (kind == 4) {
        variable = "cost";
      }
      const std::string number = test::exactNumber(*rc::gen::inRange(1, 100000) / 64.0);
      if (variable.empty()) {
        text += number;
      } else {
        const int coef = *rc::gen::inRange(0, 3);
        text += coef == 0   ? variable
                : coef == 1 ? number + spaces() + "*" + spaces() + variable
                            : variable + "*" + number;
      }
    }
    if (side == 0) {
      text += spaces() + *rc::gen::element<std::string>("==", "<=", ">=") + spaces();
    }
  }
  return text + spaces();
}

// The value of  lhs - rhs  of an expression (cost an independent variable).
double evaluate(const ConstraintStructure& s, const std::vector<double>& bw, double cost,
                double* scale) {
  double total = 0;
  for (double b : bw) total += b;
  double value = s.totalCoefficient * total + s.costCoefficient * cost - s.rhs;
  *scale =
      std::abs(s.totalCoefficient * total) + std::abs(s.costCoefficient * cost) + std::abs(s.rhs);
  for (const DimensionReference& r : s.references) {
    value += r.coefficient * bw[r.dimension];
    *scale += std::abs(r.coefficient * bw[r.dimension]);
  }
  return value;
}

// The text with every reference key blanked out: what a rewrite must not change.
std::string skeleton(const std::string& text) {
  const ConstraintStructure s = analyzeConstraint(text);
  std::string out;
  std::size_t at = 0;
  for (const DimensionReference& r : s.references) {
    out += text.substr(at, r.keyOffset - at) + "#";
    at = r.keyOffset + r.keyLength;
  }
  return out + text.substr(at);
}

TEST(EditProperties, EverySurvivingConstraintKeepsItsMeaning) {
  test::checkProperty(1000, [] {
    const int dims0 = *rc::gen::inRange(1, 7);
    Project p;
    for (int d = 0; d < dims0; ++d) {
      // Unique names at the start, as a valid project has.
      std::string name = "d" + std::to_string(d) + *rc::gen::elementOf(kNamePool);
      if (name.find(' ') != std::string::npos) name = "s" + std::to_string(d);
      p.network.dims.push_back(test::makeDim(name, BuildingBlock::Ring, 2, "L"));
    }
    const std::vector<std::string> names0 = p.network.names();
    const int count = *rc::gen::inRange(1, 8);
    for (int i = 0; i < count; ++i) p.constraints.push_back(genConstraint(names0));
    if (*rc::gen::weightedElement<int>({{5, 0}, {1, 1}})) p.constraints.push_back("bw[0] <= 5x");
    const std::vector<std::string> originals = p.constraints;
    std::vector<int> ids(originals.size());
    for (int i = 0; i < static_cast<int>(ids.size()); ++i) ids[i] = i;
    // origin[k]: the original dimension now at k, -1 for an inserted one.
    std::vector<int> origin(dims0);
    for (int d = 0; d < dims0; ++d) origin[d] = d;
    std::vector<bool> removedOriginal(dims0, false);
    bool removedAny = false;

    const int steps = *rc::gen::inRange(1, 12);
    for (int step = 0; step < steps; ++step) {
      const int size = p.network.size();
      const std::vector<std::string> namesBefore = p.network.names();
      const std::vector<std::string> before = p.constraints;
      int op = *rc::gen::inRange(0, 8);
      if ((op == 1 || op == 2) && size <= 1) op = 0;
      // Dimension edits: which old dimensions go, and the expected order.
      std::vector<int> newOrigin = origin;
      std::vector<int> goneNow;  // indexes (before the edit) of removed dimensions
      EditReport report;
      bool budgetEdit = false;
      if (op == 0) {
        const int at = *rc::gen::inRange(0, size + 1);
        report = insertDimension(p, at);
        newOrigin.insert(newOrigin.begin() + at, -1);
      } else if (op == 1) {
        const int at = *rc::gen::inRange(0, size);
        report = removeDimension(p, at);
        goneNow.push_back(at);
        newOrigin.erase(newOrigin.begin() + at);
      } else if (op == 2) {
        const int from = *rc::gen::inRange(0, size);
        const int to = *rc::gen::inRange(0, size);
        report = moveDimension(p, from, to);
        const int item = newOrigin[from];
        newOrigin.erase(newOrigin.begin() + from);
        newOrigin.insert(newOrigin.begin() + to, item);
      } else if (op == 3) {
        const int at = *rc::gen::inRange(0, size);
        std::string name = *rc::gen::elementOf(kNamePool);
        if (*rc::gen::weightedElement<int>({{4, 0}, {1, 1}})) name = "";
        if (*rc::gen::weightedElement<int>({{3, 0}, {1, 1}})) {
          name = namesBefore[*rc::gen::inRange(0, size)];  // taken by another, or itself
        }
        report = renameDimension(p, at, name);
        RC_ASSERT(p.network.dims[at].name == name);
      } else if (op == 4) {
        const int target = *rc::gen::inRange(1, 7);
        report = setDimensionCount(p, target);
        for (int k = target; k < size; ++k) goneNow.push_back(k);
        newOrigin.resize(target, -1);
        RC_ASSERT(p.network.size() == target);
      } else if (op == 5) {
        const int at = *rc::gen::inRange(0, size);
        report = setDimensionNpus(p, at, *rc::gen::inRange(2, 17));
        RC_ASSERT(p.constraints == before);
      } else {
        budgetEdit = true;
        const std::optional<double> value =
            *rc::gen::weightedElement<int>({{4, 0}, {1, 1}})
                ? std::nullopt
                : std::optional<double>(*rc::gen::inRange(1, 1000000) / 64.0 *
                                        std::pow(10.0, *rc::gen::inRange(-3, 8)));
        const BudgetConstraints split = splitConstraints(before);
        if (op == 6) {
          setTotalBandwidth(p, value);
          const BudgetConstraints now = splitConstraints(p.constraints);
          if (value) {
            RC_ASSERT(now.totalBandwidth == value);
            RC_ASSERT(now.extra == split.extra);
          }
          RC_ASSERT(now.costBudget == split.costBudget);
        } else {
          setCostBudget(p, value);
          const BudgetConstraints now = splitConstraints(p.constraints);
          if (value) {
            RC_ASSERT(now.costBudget == value);
            RC_ASSERT(now.extra == split.extra);
          }
          RC_ASSERT(now.totalBandwidth == split.totalBandwidth);
        }
      }

      if (budgetEdit) {
        // At most one line changes: a common prefix and suffix around it.
        const std::vector<std::string>& after = p.constraints;
        std::size_t prefix = 0;
        while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix]) {
          ++prefix;
        }
        std::size_t suffix = 0;
        while (suffix + prefix < before.size() && suffix + prefix < after.size() &&
               before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
          ++suffix;
        }
        RC_ASSERT(before.size() - prefix - suffix <= 1u);
        RC_ASSERT(after.size() - prefix - suffix <= 1u);
        std::vector<int> newIds(ids.begin(), ids.begin() + static_cast<long>(prefix));
        for (std::size_t i = prefix; i + suffix < after.size(); ++i) newIds.push_back(-1);
        newIds.insert(newIds.end(), ids.end() - static_cast<long>(suffix), ids.end());
        ids = std::move(newIds);
        continue;
      }

      // Which constraints had to go: those that refer to a removed dimension.
      std::vector<std::string> expectedRemoved;
      std::vector<int> keptIds;
      std::vector<std::string> kept;
      for (std::size_t i = 0; i < before.size(); ++i) {
        bool refersToGone = false;
        try {
          const ConstraintStructure s = analyzeConstraint(before[i], namesBefore);
          for (const DimensionReference& r : s.references) {
            refersToGone = refersToGone ||
                           std::find(goneNow.begin(), goneNow.end(), r.dimension) != goneNow.end();
          }
        } catch (const ConstraintError&) {
        }
        if (refersToGone) {
          expectedRemoved.push_back(before[i]);
        } else {
          keptIds.push_back(ids[i]);
          kept.push_back(before[i]);
        }
      }
      // setDimensionCount removes one dimension at a time: its report lists them
      // by step, not by position.
      std::vector<std::string> reported = report.removedConstraints;
      std::sort(reported.begin(), reported.end());
      std::sort(expectedRemoved.begin(), expectedRemoved.end());
      RC_ASSERT(reported == expectedRemoved);
      removedAny = removedAny || !reported.empty();
      RC_ASSERT(report.notes.size() == expectedRemoved.size());
      RC_ASSERT(p.constraints.size() == kept.size());
      for (std::size_t i = 0; i < kept.size(); ++i) {
        try {
          RC_ASSERT(skeleton(p.constraints[i]) == skeleton(kept[i]));
        } catch (const ConstraintError&) {
          RC_ASSERT(p.constraints[i] == kept[i]);  // not an expression: untouched
        }
      }
      for (int k : goneNow) {
        if (origin[k] >= 0) removedOriginal[origin[k]] = true;
      }
      ids = std::move(keptIds);
      origin = std::move(newOrigin);
      RC_ASSERT(static_cast<int>(origin.size()) == p.network.size());
    }

    // Meaning: on random bandwidths of the original dimensions (0 on those that
    // were removed), mapped to the new ones (0 on inserted ones), every surviving
    // original constraint has the same lhs - rhs and relation as it was written.
    const std::vector<std::string> names = p.network.names();
    int compared = 0;
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<double> bw0(dims0);
      for (int d = 0; d < dims0; ++d) {
        bw0[d] = removedOriginal[d] ? 0.0 : *rc::gen::inRange(0, 1000000) / 128.0;
      }
      std::vector<double> bw(origin.size());
      for (std::size_t k = 0; k < origin.size(); ++k) bw[k] = origin[k] >= 0 ? bw0[origin[k]] : 0;
      const double cost = *rc::gen::inRange(0, 1000000) * 10.0;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0) continue;
        const std::string& was = originals[ids[i]];
        const std::string& now = p.constraints[i];
        ConstraintStructure s0;
        try {
          s0 = analyzeConstraint(was, names0);
        } catch (const ConstraintError&) {
          RC_ASSERT(now == was);
          continue;
        }
        ConstraintStructure s1;
        try {
          s1 = analyzeConstraint(now, names);
        } catch (const ConstraintError& e) {
          RC_FAIL("'" + was + "' became '" + now + "', which does not parse: " + e.what());
        }
        for (const DimensionReference& r : s0.references) RC_ASSERT(!removedOriginal[r.dimension]);
        RC_ASSERT(s1.relation == s0.relation);
        double scale0 = 0, scale1 = 0;
        const double v0 = evaluate(s0, bw0, cost, &scale0);
        const double v1 = evaluate(s1, bw, cost, &scale1);
        compared += s0.references.empty() ? 0 : 1;
        if (std::abs(v0 - v1) > 1e-9 * std::max({scale0, scale1, 1e-300})) {
          RC_FAIL("'" + was + "' became '" + now + "': " + test::exactNumber(v0) + " vs " +
                  test::exactNumber(v1));
        }
      }
    }
    RC_CLASSIFY(compared > 0, "compared constraints with bw[...] terms");
    RC_CLASSIFY(removedAny, "removed constraints");
  });
}

}  // namespace
}  // namespace libra
