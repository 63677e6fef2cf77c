// The constraint expression parser (spec/cli.md "Constraint expressions"):
// coefficient vector, relation and right-hand side of every documented form,
// the errors with their 1-based columns, and a round-trip property; the symbolic
// structure of an expression and the rewriting of its dimension references.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "engine_test_support.hpp"

namespace libra {
namespace {

using test::contains;

// Four dimensions with names; cost per GB/s of each: 10, 20, 30, 40 $.
const std::vector<std::string> kNames{"pkg", "node", "pod", "dc"};
const std::vector<double> kCosts{10, 20, 30, 40};

LinearConstraint parse(const std::string& text) {
  return parseConstraint(text, kNames, kCosts);
}

void expectConstraint(const std::string& text, std::vector<double> coefficients, Relation relation,
                      double rhs) {
  SCOPED_TRACE(text);
  LinearConstraint c;
  ASSERT_NO_THROW(c = parse(text));
  // Every value below is a small integer or a short decimal computed with one
  // or two operations; the parser performs the same few operations, so they
  // must agree to the last couple of ulps.
  ASSERT_EQ(c.coefficients.size(), coefficients.size());
  for (std::size_t d = 0; d < coefficients.size(); ++d) {
    EXPECT_DOUBLE_EQ(c.coefficients[d], coefficients[d]) << "coefficient " << d;
  }
  EXPECT_EQ(c.relation, relation);
  EXPECT_DOUBLE_EQ(c.rhs, rhs);
}

// ---------------------------------------------------------------------------
// Every form listed in cli.md
// ---------------------------------------------------------------------------

TEST(ConstraintParser, Total) {
  expectConstraint("total == 500", {1, 1, 1, 1}, Relation::Equal, 500);
}

TEST(ConstraintParser, ByIndex) {
  expectConstraint("bw[0] == 500", {1, 0, 0, 0}, Relation::Equal, 500);
  expectConstraint("bw[3] <= 7", {0, 0, 0, 1}, Relation::LessEqual, 7);
  expectConstraint("bw[ 1 ] >= 2", {0, 1, 0, 0}, Relation::GreaterEqual, 2);
}

TEST(ConstraintParser, ByName) {
  expectConstraint("bw[pod] <= 50", {0, 0, 1, 0}, Relation::LessEqual, 50);
  expectConstraint("bw[dc]>=1", {0, 0, 0, 1}, Relation::GreaterEqual, 1);
}

TEST(ConstraintParser, Ordering) {
  // bw0 >= bw1  <=>  bw0 - bw1 >= 0
  expectConstraint("bw[0] >= bw[1]", {1, -1, 0, 0}, Relation::GreaterEqual, 0);
}

TEST(ConstraintParser, PartialSum) {
  expectConstraint("bw[2] + bw[3] == 200", {0, 0, 1, 1}, Relation::Equal, 200);
}

TEST(ConstraintParser, ScaledDifference) {
  expectConstraint("2*bw[1] - bw[2] >= 0", {0, 2, -1, 0}, Relation::GreaterEqual, 0);
}

TEST(ConstraintParser, Cost) {
  // cost = sum_d costPerBandwidth[d] bw_d.
  expectConstraint("cost <= 4.5e7", {10, 20, 30, 40}, Relation::LessEqual, 4.5e7);
  expectConstraint("0.5 * cost <= 100", {5, 10, 15, 20}, Relation::LessEqual, 100);
}

TEST(ConstraintParser, NumbersWithExponents) {
  expectConstraint("bw[0] <= 1.5E+3", {1, 0, 0, 0}, Relation::LessEqual, 1500);
  expectConstraint("bw[0] >= 2e-3", {1, 0, 0, 0}, Relation::GreaterEqual, 0.002);
  expectConstraint("1e1*bw[1] <= 5E0", {0, 10, 0, 0}, Relation::LessEqual, 5);
  expectConstraint(".5*bw[1] <= 3.", {0, 0.5, 0, 0}, Relation::LessEqual, 3);
}

TEST(ConstraintParser, UnaryMinus) {
  expectConstraint("-bw[0] <= -5", {-1, 0, 0, 0}, Relation::LessEqual, -5);
  expectConstraint("- 2*bw[1] + bw[2] >= -1e2", {0, -2, 1, 0}, Relation::GreaterEqual, -100);
  expectConstraint("+bw[3] == 4", {0, 0, 0, 1}, Relation::Equal, 4);
}

TEST(ConstraintParser, ScaledTotal) {
  expectConstraint("0.5*total == 250", {0.5, 0.5, 0.5, 0.5}, Relation::Equal, 250);
  expectConstraint("bw[0] >= 0.5*total", {0.5, -0.5, -0.5, -0.5}, Relation::GreaterEqual, 0);
}

TEST(ConstraintParser, TermsOnBothSidesAndConstantsOnTheLeft) {
  // bw0 + 100 == bw1 + bw2 + 300  ->  bw0 - bw1 - bw2 == 200
  expectConstraint("bw[0] + 100 == bw[1] + bw[2] + 300", {1, -1, -1, 0}, Relation::Equal, 200);
  // 500 >= total  ->  -total >= -500
  expectConstraint("500 >= total", {-1, -1, -1, -1}, Relation::GreaterEqual, -500);
  // Products of numbers and a number after the variable: 3*2*bw[0]*0.5 = 3 bw0
  expectConstraint("3*2*bw[0]*0.5 <= 9", {3, 0, 0, 0}, Relation::LessEqual, 9);
  // Repeated dimension terms add up.
  expectConstraint("bw[1] + bw[node] + total <= 10", {1, 3, 1, 1}, Relation::LessEqual, 10);
}

TEST(ConstraintParser, KeepsTheTextAndSatisfiesItsOwnPoint) {
  const LinearConstraint c = parse("  bw[2] + bw[3] == 200  ");
  EXPECT_EQ(c.text, "bw[2] + bw[3] == 200");
  // isSatisfied / violation: 150 + 50 == 200 holds; 150 + 60 violates by 10.
  EXPECT_TRUE(c.isSatisfied(std::vector<double>{0, 0, 150, 50}));
  EXPECT_FALSE(c.isSatisfied(std::vector<double>{0, 0, 150, 60}));
  EXPECT_DOUBLE_EQ(c.violation(std::vector<double>{0, 0, 150, 60}), 10);
  const LinearConstraint le = parse("bw[0] <= 5");
  EXPECT_DOUBLE_EQ(le.violation(std::vector<double>{3, 0, 0, 0}), -2);
  EXPECT_TRUE(le.isSatisfied(std::vector<double>{5 * (1 + 1e-12), 0, 0, 0}));
  EXPECT_FALSE(le.isSatisfied(std::vector<double>{5 * (1 + 1e-6), 0, 0, 0}));
}

// ---------------------------------------------------------------------------
// Errors: 1-based column of the offending text and a message naming it
// ---------------------------------------------------------------------------

struct ErrorCase {
  std::string text;
  int column;
  std::vector<std::string> mentions;  // substrings of ConstraintError::problem()
};

void expectError(const ErrorCase& ec) {
  try {
    parse(ec.text);
  } catch (const ConstraintError& e) {
    EXPECT_EQ(e.column(), ec.column) << "'" << ec.text << "': " << e.what();
    for (const auto& m : ec.mentions) {
      EXPECT_TRUE(contains(e.problem(), m))
          << "'" << ec.text << "': '" << e.problem() << "' does not mention '" << m << "'";
    }
    // The full message names the expression and the column.
    EXPECT_TRUE(contains(e.what(), ec.text)) << e.what();
    EXPECT_TRUE(contains(e.what(), "column " + std::to_string(ec.column))) << e.what();
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "'" << ec.text << "' threw a non-ConstraintError: " << e.what();
    return;
  }
  ADD_FAILURE() << "'" << ec.text << "' parsed without error";
}

TEST(ConstraintErrors, UnknownDimensionNameListsKnownNames) {
  // "bw[foo] <= 5": 'f' is column 4.
  expectError({"bw[foo] <= 5", 4, {"'foo'", "pkg", "node", "pod", "dc"}});
}

TEST(ConstraintErrors, IndexOutOfRange) {
  // 4 dimensions: 0..3. "bw[4]": '4' at column 4. "bw[0] + bw[17]": '1' at column 12.
  expectError({"bw[4] <= 5", 4, {"4", "0..3"}});
  expectError({"bw[0] + bw[17] <= 5", 12, {"17"}});
  expectError({"bw[99999999999999999999] <= 5", 4, {"99999999999999999999"}});
}

TEST(ConstraintErrors, MissingClosingBracket) {
  // "bw[0 <= 5": the dimension starts at column 4.
  expectError({"bw[0 <= 5", 4, {"]"}});
  // "bw <= 5": '[' expected at column 4 (after "bw ").
  expectError({"bw <= 5", 4, {"["}});
}

TEST(ConstraintErrors, ProductOfTwoBandwidthsIsNotLinear) {
  // "bw[0] * bw[1] <= 5": the second factor starts at column 9.
  expectError({"bw[0] * bw[1] <= 5", 9, {"linear"}});
  expectError({"total*cost <= 5", 7, {"linear"}});
}

TEST(ConstraintErrors, SingleEqualsIsNotAComparison) {
  // "bw[0] = 5": '=' at column 7.
  expectError({"bw[0] = 5", 7, {"'='", "=="}});
}

TEST(ConstraintErrors, StrictLessIsNotAComparison) {
  expectError({"bw[0] < 5", 7, {"'<'"}});
  expectError({"bw[0] > 5", 7, {"'>'"}});
}

TEST(ConstraintErrors, TrailingGarbage) {
  // "bw[0] <= 5 foo": 'f' at column 12.
  expectError({"bw[0] <= 5 foo", 12, {"foo"}});
  // "bw[0] <= 5)": ')' at column 11.
  expectError({"bw[0] <= 5)", 11, {")"}});
  // A second comparison is trailing text: '=' of "== 6" at column 12.
  expectError({"bw[0] <= 5 == 6", 12, {"== 6"}});
}

TEST(ConstraintErrors, EmptyExpression) {
  expectError({"", 1, {"empty"}});
  expectError({"   ", 1, {"empty"}});
}

TEST(ConstraintErrors, NoBandwidthTerm) {
  expectError({"5 <= 6", 1, {"bw"}});
  // Terms that cancel out leave no bandwidth either.
  expectError({"bw[0] - bw[pkg] <= 5", 1, {"bw"}});
}

TEST(ConstraintErrors, UnknownWord) {
  expectError({"foo == 1", 1, {"'foo'"}});
  expectError({"bw[0] + totl <= 1", 9, {"'totl'"}});
}

TEST(ConstraintErrors, MissingComparisonOrOperand) {
  // No comparison at all: reported at the end (column 6 after "bw[0]").
  expectError({"bw[0]", 6, {"=="}});
  // "total ==" ends where an operand is expected: column 9.
  expectError({"total ==", 9, {"end"}});
  // "bw[0] <= --5": the second '-' at column 11 is not a term.
  expectError({"bw[0] <= --5", 11, {"'-'"}});
}

TEST(ConstraintErrors, BadNumbers) {
  // "bw[0] <= 1.2.3": the number starts at column 10.
  expectError({"bw[0] <= 1.2.3", 10, {"1.2.3"}});
  // Overflow to infinity.
  expectError({"bw[0] <= 1e400", 10, {"1e400"}});
}

// ---------------------------------------------------------------------------
// Round trip: a random linear expression printed as text parses back to the
// coefficients it was built from.
// ---------------------------------------------------------------------------

// A finite double spanning many magnitudes, printed exactly with %.17g (so
// exponents like 1.2345e-07 and 3e+15 appear).
rc::Gen<double> genMagnitude() {
  return rc::gen::map(
      rc::gen::tuple(rc::gen::resize(100, rc::gen::inRange(1, 1000000)), rc::gen::inRange(-12, 13)),
      [](const std::tuple<int, int>& t) {
        return std::get<0>(t) / 1000.0 * std::pow(10.0, std::get<1>(t));
      });
}

RC_GTEST_PROP(ConstraintRoundTrip, PrintedExpressionParsesBack, ()) {
  const int dims = *rc::gen::inRange(1, 7);
  std::vector<std::string> names;
  std::vector<double> costs;
  for (int d = 0; d < dims; ++d) {
    names.push_back("dim_" + std::to_string(d));
    costs.push_back(*genMagnitude());
  }
  // Expected: sum over left terms - sum over right terms of coef * variable.
  std::vector<double> expected(dims, 0.0), scale(dims, 0.0);
  double expectedRhs = 0, rhsScale = 0;
  std::string text;
  for (int side = 0; side < 2; ++side) {
    const double sideSign = side == 0 ? 1 : -1;
    const int terms = *rc::gen::inRange(side == 0 ? 1 : 0, 6);
    bool first = true;
    for (int t = 0; t < terms; ++t) {
      const double coef = *genMagnitude();
      const bool negative = *rc::gen::arbitrary<bool>();
      const double sign = negative ? -1.0 : 1.0;
      // 0 number, 1 bw[i], 2 bw[name], 3 total, 4 cost (uniform whatever the size)
      const int kind = *rc::gen::resize(100, rc::gen::inRange(0, 5));
      const int d = *rc::gen::resize(100, rc::gen::inRange(0, dims));
      const bool coefAfter = *rc::gen::arbitrary<bool>();
      std::string term;
      const std::string number = test::exactNumber(coef);
      if (kind == 0) {
        term = number;
        expectedRhs -= sideSign * sign * coef;  // constants move to the right-hand side
        rhsScale += coef;
      } else {
        std::string variable;
        std::vector<double> contribution(dims, 0.0);
        if (kind == 1 || kind == 2) {
          variable = "bw[" + (kind == 1 ? std::to_string(d) : names[d]) + "]";
          contribution[d] = 1;
        } else if (kind == 3) {
          variable = "total";
          contribution.assign(dims, 1.0);
        } else {
          variable = "cost";
          contribution = costs;
        }
        term = coefAfter ? variable + " * " + number : number + "*" + variable;
        for (int e = 0; e < dims; ++e) {
          expected[e] += sideSign * sign * coef * contribution[e];
          scale[e] += std::abs(coef * contribution[e]);
        }
      }
      if (first) {
        text += negative ? "-" : "";
      } else {
        text += negative ? " - " : " + ";
      }
      text += term;
      first = false;
    }
    if (side == 0) {
      const int rel = *rc::gen::resize(100, rc::gen::inRange(0, 3));
      text += rel == 0 ? " == " : rel == 1 ? " <= " : " >= ";
    } else if (terms == 0) {
      text += "0";
    }
  }
  // Skip draws whose bandwidth terms cancel (the parser rightly rejects them).
  bool anyVariable = false;
  for (int d = 0; d < dims; ++d)
    anyVariable = anyVariable || std::abs(expected[d]) > 1e-9 * scale[d];
  RC_PRE(anyVariable);

  LinearConstraint c;
  try {
    c = parseConstraint(text, names, costs);
  } catch (const std::exception& e) {
    RC_FAIL(std::string("'") + text + "' did not parse: " + e.what());
  }
  RC_ASSERT(static_cast<int>(c.coefficients.size()) == dims);
  // Each coefficient is a sum of at most ~10 products; relative to the sum of
  // the absolute values of its contributions, rounding is below 1e-15 per term.
  for (int d = 0; d < dims; ++d) {
    RC_ASSERT(std::abs(c.coefficients[d] - expected[d]) <= 1e-12 * std::max(scale[d], 1e-300));
  }
  RC_ASSERT(std::abs(c.rhs - expectedRhs) <= 1e-12 * std::max(rhsScale, 1e-300));
  if (contains(text, " == ")) {
    RC_ASSERT(c.relation == Relation::Equal);
  } else if (contains(text, " <= ")) {
    RC_ASSERT(c.relation == Relation::LessEqual);
  } else {
    RC_ASSERT(c.relation == Relation::GreaterEqual);
  }
}

// ---------------------------------------------------------------------------
// Structure of an expression
// ---------------------------------------------------------------------------

TEST(ConstraintStructure, ReportsEveryReferenceWithItsSpanAndCoefficient) {
  const std::vector<std::string> names{"pkg", "node", "pod"};
  const std::string text = "2*bw[ pod ] - bw[0] >= total + 0.5*cost";
  const ConstraintStructure s = analyzeConstraint(text, names);
  ASSERT_EQ(s.references.size(), 2u);
  const DimensionReference& pod = s.references[0];
  EXPECT_EQ(text.substr(pod.offset, pod.length), "bw[ pod ]");
  EXPECT_EQ(text.substr(pod.keyOffset, pod.keyLength), "pod");
  EXPECT_EQ(pod.key, "pod");
  EXPECT_TRUE(pod.byName);
  EXPECT_EQ(pod.dimension, 2);
  EXPECT_EQ(pod.coefficient, 2);
  const DimensionReference& zero = s.references[1];
  EXPECT_EQ(text.substr(zero.offset, zero.length), "bw[0]");
  EXPECT_EQ(text.substr(zero.keyOffset, zero.keyLength), "0");
  EXPECT_FALSE(zero.byName);
  EXPECT_EQ(zero.dimension, 0);
  EXPECT_EQ(zero.coefficient, -1);
  // Terms on the right-hand side change sign.
  EXPECT_TRUE(s.hasTotal);
  EXPECT_EQ(s.totalCoefficient, -1);
  EXPECT_TRUE(s.hasCost);
  EXPECT_EQ(s.costCoefficient, -0.5);
  EXPECT_EQ(s.relation, Relation::GreaterEqual);
  EXPECT_EQ(s.rhs, 0);
}

TEST(ConstraintStructure, ConstantsGoToTheRightAndCancellingTermsAreKept) {
  const ConstraintStructure s = analyzeConstraint("500 + bw[x] - bw[x] == total - 100");
  ASSERT_EQ(s.references.size(), 2u);
  EXPECT_EQ(s.references[0].dimension, -1);  // a name, not resolved without names
  EXPECT_EQ(s.references[0].coefficient, 1);
  EXPECT_EQ(s.references[1].coefficient, -1);
  EXPECT_EQ(s.totalCoefficient, -1);
  EXPECT_FALSE(s.hasCost);
  EXPECT_EQ(s.rhs, -600);
  // Without names an index is the one written, unchecked.
  EXPECT_EQ(analyzeConstraint("bw[17] <= 1").references.at(0).dimension, 17);
  // No term at all is still a structure (parseConstraint rejects it).
  EXPECT_TRUE(analyzeConstraint("5 <= 6").references.empty());
}

TEST(ConstraintStructure, RejectsWhatTheParserRejectsWithTheSameColumn) {
  const std::vector<std::string> names{"pkg", "node"};
  const std::vector<double> prices{1, 2};
  for (const std::string text : {"bw[0] = 5", "bw[0] * bw[1] <= 5", "bw[0] <= 5 foo", "",
                                 "total ==", "bw[0 <= 5", "bw[7] <= 1", "bw[nope] <= 1"}) {
    SCOPED_TRACE(text);
    int expected = 0;
    try {
      parseConstraint(text, names, prices);
    } catch (const ConstraintError& e) {
      expected = e.column();
    }
    ASSERT_GT(expected, 0);
    try {
      analyzeConstraint(text, names);
      ADD_FAILURE() << "analyzed without error";
    } catch (const ConstraintError& e) {
      EXPECT_EQ(e.column(), expected);
    }
  }
  // Unknown names and indexes are syntax-wise fine.
  EXPECT_NO_THROW(analyzeConstraint("bw[7] + bw[nope] <= 1"));
  EXPECT_THROW(analyzeConstraint("bw[0] * bw[1] <= 5"), ConstraintError);
}

// The structure and parseConstraint describe the same linear form: rebuilding the
// coefficients from the structure gives parseConstraint's.
RC_GTEST_PROP(ConstraintStructure, AgreesWithTheCompiledCoefficients, ()) {
  const int dims = *rc::gen::inRange(1, 6);
  std::vector<std::string> names;
  std::vector<double> prices;
  for (int d = 0; d < dims; ++d) {
    names.push_back("d" + std::to_string(d));
    prices.push_back(*rc::gen::inRange(1, 1000) / 7.0);
  }
  std::string text;
  for (int side = 0; side < 2; ++side) {
    const int terms = *rc::gen::inRange(1, 5);
    for (int t = 0; t < terms; ++t) {
      const int kind = *rc::gen::inRange(0, 5);
      const int d = *rc::gen::inRange(0, dims);
      const std::string number = test::exactNumber(*rc::gen::inRange(1, 2000) / 8.0);
      const std::string term = kind == 0   ? number
                               : kind == 1 ? number + "*bw[" + std::to_string(d) + "]"
                               : kind == 2 ? "bw[" + names[d] + "]*" + number
                               : kind == 3 ? number + " * total"
                                           : "cost";
      text += (t == 0 ? "" : *rc::gen::arbitrary<bool>() ? " + " : " - ") + term;
    }
    if (side == 0) text += " <= ";
  }
  LinearConstraint compiled;
  try {
    compiled = parseConstraint(text, names, prices);
  } catch (const ConstraintError&) {
    RC_DISCARD("the bandwidth terms cancel");
  }
  const ConstraintStructure s = analyzeConstraint(text, names);
  RC_ASSERT(s.relation == compiled.relation);
  RC_ASSERT(s.rhs == compiled.rhs);
  for (int d = 0; d < dims; ++d) {
    double c = s.totalCoefficient + s.costCoefficient * prices[d];
    double scale = std::abs(s.totalCoefficient) + std::abs(s.costCoefficient * prices[d]);
    for (const DimensionReference& r : s.references) {
      if (r.dimension == d) {
        c += r.coefficient;
        scale += std::abs(r.coefficient);
      }
    }
    RC_ASSERT(std::abs(c - compiled.coefficients[d]) <= 1e-12 * std::max(scale, 1e-300));
  }
}

// ---------------------------------------------------------------------------
// Rewriting references
// ---------------------------------------------------------------------------

TEST(RewriteReferences, ChangesOnlyTheKeysAndKeepsTheFormatting) {
  DimensionMapping m;
  m.oldNames = {"a", "b", "c"};
  m.newIndex = {2, 0, 1};
  m.newNames = {"b", "c", "a"};
  const RewrittenConstraint r =
      rewriteDimensionReferences("  2*bw[ 0 ]+bw[b]>=  bw[1]*3 - total+cost ", m);
  EXPECT_EQ(r.text, "  2*bw[ 2 ]+bw[b]>=  bw[0]*3 - total+cost ");
  EXPECT_TRUE(r.removedDimensions.empty());
}

TEST(RewriteReferences, AnIndexThatDoesNotChangeStaysAsWritten) {
  // The identity rewrote bw[02] to bw[2] (found by the constraint fuzz target,
  // whose invariant is that the identity edit changes nothing).
  const DimensionMapping identity = DimensionMapping::identity({"a", "b", "c"});
  EXPECT_EQ(rewriteDimensionReferences("3+bw[02]<=3+333", identity).text, "3+bw[02]<=3+333");
  DimensionMapping m;
  m.oldNames = {"a", "b", "c"};
  m.newIndex = {1, 0, 2};
  m.newNames = {"b", "a", "c"};
  EXPECT_EQ(rewriteDimensionReferences("bw[000] + bw[01] + bw[002] <= 1", m).text,
            "bw[1] + bw[0] + bw[002] <= 1");
}

TEST(RewriteReferences, ANameThatWouldNotReadBackBecomesAnIndex) {
  DimensionMapping m = DimensionMapping::identity({"a", "b", "c"});
  // Dimension 1 renamed to something bw[...] cannot hold, or to a name dimension 0
  // has too: bw[b] must become bw[1] in every case.
  for (const std::string bad : {"two words", "7", "", "a", "b/c"}) {
    SCOPED_TRACE(bad);
    m.newNames = {"a", bad, "c"};
    EXPECT_EQ(rewriteDimensionReferences("bw[b] <= 1", m).text, "bw[1] <= 1");
  }
  // Dimension 0 keeps "a" but shares it now: bw[a] is written by index too.
  m.newNames = {"a", "a", "c"};
  EXPECT_EQ(rewriteDimensionReferences("bw[a] <= 1", m).text, "bw[0] <= 1");
  // Names that can be written stay names.
  m.newNames = {"a", "b-2.x_", "c"};
  EXPECT_EQ(rewriteDimensionReferences("bw[b] <= 1", m).text, "bw[b-2.x_] <= 1");
}

TEST(RewriteReferences, ReportsRemovedDimensionsAndLeavesUnknownOnesAlone) {
  DimensionMapping m;
  m.oldNames = {"a", "b", "c"};
  m.newIndex = {0, std::nullopt, 1};
  m.newNames = {"a", "c"};
  const RewrittenConstraint r = rewriteDimensionReferences("bw[1] + bw[b] + bw[2] <= 9", m);
  EXPECT_EQ(r.removedDimensions, std::vector<int>{1});
  EXPECT_EQ(r.text, "bw[1] + bw[b] + bw[2] <= 9");
  EXPECT_EQ(rewriteDimensionReferences("bw[2] + bw[zz] + bw[9] <= 9", m).text,
            "bw[1] + bw[zz] + bw[9] <= 9");
  EXPECT_THROW(rewriteDimensionReferences("bw[2] <=", m), ConstraintError);
}

}  // namespace
}  // namespace libra
