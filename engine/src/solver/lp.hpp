// A dense two-phase simplex for the small linear programs of the presolve
// (feasibility, bounds of single dimensions, the cost range). Problems here have
// at most a few dozen variables and rows, so a tableau with Bland's rule
// (no cycling) is exact enough and takes microseconds.
#pragma once

#include <Eigen/Dense>

namespace libra::lp {

enum class Status { Optimal, Infeasible, Unbounded };

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
