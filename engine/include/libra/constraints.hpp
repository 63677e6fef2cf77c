// Linear design constraints over the per-dimension bandwidths, written as
// expressions (see spec/cli.md): `total == 500`, `bw[pod] <= 50`,
// `bw[0] >= bw[1]`, `2*bw[1] - bw[2] >= 0`, `cost <= 4.5e7`.
#pragma once

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
// `cost` term into bandwidth terms. Throws ConstraintError with the column of the
// offending text.
LinearConstraint parseConstraint(std::string_view text, std::span<const std::string> dimNames,
                                 std::span<const double> costPerBandwidth);

}  // namespace libra
