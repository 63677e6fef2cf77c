// An optimality check for solver answers that does not trust the solver:
// around the answer bw*, perturb along random feasible directions (in the null
// space of the equality constraints, respecting the active inequalities and
// bw >= 0) by small and large steps, and report any feasible point whose
// iteration time is lower than T(bw*) by more than a relative tolerance.
//
// T is convex and the constraints are linear, so any feasible point is at least
// as slow as the optimum; if bw* is optimal to within a relative gap g, no
// feasible perturbation can improve T by more than g.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "libra/problem.hpp"

namespace libra::test {

struct PerturbationReport {
  int tried = 0;     // perturbed points that were feasible and evaluated
  int improved = 0;  // of which faster than T(bw*) (1 - tolerance)
  double worstRelativeImprovement = 0;
  std::vector<double> worstPoint;
};

inline PerturbationReport perturbationCheck(const Problem& problem, const std::vector<double>& bw,
                                            double tolerance, std::uint64_t seed,
                                            int directions = 200) {
  PerturbationReport report;
  const int n = problem.dims();
  const double t0 = problem.evaluate(bw).iterationNs;
  double bwScale = 0;
  for (double b : bw) bwScale = std::max(bwScale, std::abs(b));
  if (bwScale == 0) bwScale = 1;

  // Rows oriented as a.x <= b for inequalities; equality rows kept apart.
  std::vector<Eigen::RowVectorXd> eqRows, activeRows;
  for (const auto& c : problem.constraints) {
    Eigen::RowVectorXd a(n);
    for (int d = 0; d < n; ++d) a(d) = c.coefficients[d];
    if (c.relation == Relation::Equal) {
      eqRows.push_back(a);
      continue;
    }
    if (c.relation == Relation::GreaterEqual) a = -a;
    double scale = std::abs(c.rhs);
    for (int d = 0; d < n; ++d) scale = std::max(scale, std::abs(c.coefficients[d] * bw[d]));
    // Near-active: within 1e-7 of the scale of its terms.
    if (std::abs(c.violation(bw)) <= 1e-7 * std::max(scale, 1e-300)) activeRows.push_back(a);
  }
  for (int d = 0; d < n; ++d) {
    if (bw[d] <= 1e-7 * bwScale) {
      Eigen::RowVectorXd a = Eigen::RowVectorXd::Zero(n);
      a(d) = -1;  // -bw_d <= 0
      activeRows.push_back(a);
    }
  }
  auto nullSpace = [&](bool withActive) {
    std::vector<Eigen::RowVectorXd> rows = eqRows;
    if (withActive) rows.insert(rows.end(), activeRows.begin(), activeRows.end());
    if (rows.empty()) return Eigen::MatrixXd(Eigen::MatrixXd::Identity(n, n));
    Eigen::MatrixXd A(rows.size(), n);
    for (std::size_t i = 0; i < rows.size(); ++i) A.row(i) = rows[i] / rows[i].norm();
    // Orthonormal basis of the null space from the SVD.
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeFullV);
    const auto& s = svd.singularValues();
    int rank = 0;
    for (int i = 0; i < s.size(); ++i) rank += s(i) > 1e-10 * s(0);
    return Eigen::MatrixXd(svd.matrixV().rightCols(n - rank));
  };
  const Eigen::MatrixXd faceBasis = nullSpace(true);  // stays on every active face
  const Eigen::MatrixXd eqBasis = nullSpace(false);   // may leave active faces inwards

  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const double steps[] = {1e-7, 1e-5, 1e-3, 1e-2, 1e-1};
  for (int i = 0; i < directions; ++i) {
    const Eigen::MatrixXd& basis = (i % 2 == 0) ? faceBasis : eqBasis;
    if (basis.cols() == 0) continue;
    Eigen::VectorXd coeffs(basis.cols());
    for (int j = 0; j < coeffs.size(); ++j) coeffs(j) = normal(rng);
    Eigen::VectorXd dir = basis * coeffs;
    if (dir.norm() == 0) continue;
    dir /= dir.norm();
    // Directions from eqBasis must point into every active inequality.
    bool inward = true;
    for (const auto& a : activeRows) inward = inward && a.dot(dir) <= 0;
    if (!inward) dir = -dir;
    inward = true;
    for (const auto& a : activeRows) inward = inward && a.dot(dir) <= 1e-12;
    if (!inward) continue;
    for (double step : steps) {
      std::vector<double> x(n);
      bool nonNegative = true;
      for (int d = 0; d < n; ++d) {
        x[d] = bw[d] + step * bwScale * dir(d);
        if (x[d] < 0) nonNegative = false;
      }
      if (!nonNegative) continue;
      bool feasible = true;
      for (const auto& c : problem.constraints) feasible = feasible && c.isSatisfied(x, 1e-9);
      if (!feasible) continue;
      const double t = problem.evaluate(x).iterationNs;
      ++report.tried;
      const double gain = (t0 - t) / t0;
      if (gain > tolerance) {
        ++report.improved;
        if (gain > report.worstRelativeImprovement) {
          report.worstRelativeImprovement = gain;
          report.worstPoint = x;
        }
      }
    }
  }
  return report;
}

}  // namespace libra::test
