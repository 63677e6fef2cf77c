// A dense two-phase simplex for the small linear programs of the presolve
// (feasibility, bounds of single dimensions, the cost range). Problems here have
// a few variables (the dimensions) and at most kMaxConstraintRows rows
// (standard_form.hpp), so a dense tableau is enough; its answers are checked
// against the rows (Status::Failed when rounding made them miss).
#pragma once

#include <Eigen/Dense>

namespace libra::lp {

// Failed: the tableau's rounding made its answer miss the rows (checked), or
// the steps did not end; nothing is known.
enum class Status { Optimal, Infeasible, Unbounded, Failed };

struct Result {
  Status status = Status::Infeasible;
  Eigen::VectorXd x;  // optimal point when Optimal
  double value = 0;   // c^T x
};

// minimize c^T x  subject to  Aeq x == beq,  Ain x <= bin,  x >= 0.
// Rows should be scaled to unit size; `tolerance` applies to those coefficients,
// and relative to the right-hand sides for the feasibility verdict.
Result minimize(const Eigen::VectorXd& c, const Eigen::MatrixXd& Aeq, const Eigen::VectorXd& beq,
                const Eigen::MatrixXd& Ain, const Eigen::VectorXd& bin, double tolerance = 1e-9);

}  // namespace libra::lp
