// Linear design constraints over the per-dimension bandwidths, written as
// expressions (see spec/cli.md): `total == 500`, `bw[pod] <= 50`,
// `bw[0] >= bw[1]`, `2*bw[1] - bw[2] >= 0`, `cost <= 4.5e7`.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace libra {

enum class Relation { Equal, LessEqual, GreaterEqual };
std::string_view toString(Relation relation);

// sum_d coefficients[d] * bw_d  (relation)  rhs
struct LinearConstraint {
  std::vector<double> coefficients;
  Relation relation = Relation::Equal;
  double rhs = 0;
  std::string text;  // the expression it came from, for messages

  bool isSatisfied(std::span<const double> bw, double relativeTolerance = 1e-9) const;
  // Signed violation (>0 when violated), in the constraint's own units.
  double violation(std::span<const double> bw) const;
};

// Parses one expression over the named dimensions. `costPerBandwidth[d]` turns the
// `cost` term into bandwidth terms; `fixedCostUsd` is the part of `cost` that no
// bandwidth changes (the NPUs in the system cost scope, problem.hpp). Throws
// ConstraintError with the column of the offending text.
LinearConstraint parseConstraint(std::string_view text, std::span<const std::string> dimNames,
                                 std::span<const double> costPerBandwidth, double fixedCostUsd = 0);

// A constraint as panels and tables show it: safe (displayText) and each number
// of more than 10 significant digits shortened to 10 ("cost <= 8809720.377643563"
// -> "cost <= 8809720.378": a front point's budget is written to the bit).
std::string constraintDisplayText(std::string_view text);

// ---------------------------------------------------------------------------------
// Symbolic structure, for edits that must keep an expression's meaning (renaming,
// inserting, removing or reordering dimensions; finding the budget lines).

// One `bw[...]` term as written. Offsets and lengths are in bytes of the text given.
struct DimensionReference {
  std::size_t offset = 0;     // where `bw` starts
  std::size_t length = 0;     // through the closing ']'
  std::size_t keyOffset = 0;  // the index or name between the brackets
  std::size_t keyLength = 0;
  std::string key;      // the index or name as written, e.g. "2" or "pod"
  bool byName = false;  // bw[pod] rather than bw[2]
  // The dimension it refers to; -1 when not known (a name analyzed without the
  // dimension names). Without names, a reference by index holds the written index,
  // not checked against any network.
  int dimension = -1;
  // This occurrence's coefficient in  (sum of terms) relation rhs, i.e. with the
  // terms of the right-hand side moved to the left.
  double coefficient = 0;

  bool operator==(const DimensionReference&) const = default;
};

//   sum_r references[r].coefficient * bw[references[r]]
//     + totalCoefficient * total + costCoefficient * cost   (relation)   rhs
struct ConstraintStructure {
  std::vector<DimensionReference> references;  // in the order of the text
  bool hasTotal = false;                       // `total` occurs ...
  double totalCoefficient = 0;  // ... with this net coefficient (0 if its terms cancel)
  bool hasCost = false;
  double costCoefficient = 0;
  Relation relation = Relation::Equal;
  double rhs = 0;

  bool operator==(const ConstraintStructure&) const = default;
};

// The structure of an expression without resolving dimension names. Throws
// ConstraintError, with the column, for what parseConstraint rejects as text.
// Unlike parseConstraint it accepts expressions whose bandwidth terms cancel or
// that have none (`5 <= 6`): the structure says so.
ConstraintStructure analyzeConstraint(std::string_view text);
// The same with every reference resolved against `dimNames` (the errors of
// parseConstraint for unknown names and indexes out of range; `cost` needs no prices).
ConstraintStructure analyzeConstraint(std::string_view text, std::span<const std::string> dimNames);

// How an edit of the dimension list maps the old dimensions onto the new ones.
struct DimensionMapping {
  std::vector<std::string> oldNames;         // by old index
  std::vector<std::optional<int>> newIndex;  // by old index; nullopt: removed
  std::vector<std::string> newNames;         // by new index

  // The identity on `names`; rename or reorder from there.
  static DimensionMapping identity(const std::vector<std::string>& names);
};

struct RewrittenConstraint {
  std::string text;  // the expression after the edit
  // Old indexes of removed dimensions the expression refers to (ascending, each
  // once). When not empty the expression cannot keep its meaning and `text` is the
  // original.
  std::vector<int> removedDimensions;
};

// Rewrites the `bw[...]` references of `text` through `mapping`, changing only the
// text between the brackets: spacing, numbers and the order of terms stay as the
// user wrote them. A reference by index gets the dimension's new index; a reference
// by name keeps the name (the new one if the dimension was renamed), unless that
// name cannot be written in bw[...] (empty, digits only, other characters than
// letters, digits, '_', '-', '.') or another dimension has it too; then it is
// written by index. References that do not
// resolve against `mapping.oldNames` are left as written. `total` and `cost` are
// not touched: they mean the sum of all bandwidths and the network's cost in the
// new network too. Throws ConstraintError when the text does not parse.
RewrittenConstraint rewriteDimensionReferences(std::string_view text,
                                               const DimensionMapping& mapping);

}  // namespace libra
