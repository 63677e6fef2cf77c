#include "lp.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace libra::lp {

namespace {

// Tableau T with rows 0..m-1 the constraints and row m the objective (reduced
// costs); the last column is the right-hand side. basis[r] is the basic column of row r.
struct Tableau {
  Eigen::MatrixXd T;
  std::vector<int> basis;
  int m = 0;
  int cols = 0;  // structural columns (excluding rhs)

  double& rhs(int r) { return T(r, cols); }

  void pivot(int row, int col) {
    T.row(row) /= T(row, col);
    for (int r = 0; r <= m; ++r) {
      if (r != row && T(r, col) != 0) T.row(r) -= T(r, col) * T.row(row);
    }
    basis[row] = col;
  }

  // A pivot below this share of its column's largest entry is avoided.
  static constexpr double kRelativePivot = 1e-6;

  // Dantzig's entering column would be faster, but these problems are tiny:
  // Bland's rule (the first improving column) keeps the code simple. The
  // leaving row is the one with the least ratio; among rows that tie (a
  // degenerate step, common in the multiplier LPs of sensitivity.cpp), the one
  // with the largest pivot. Bland's choice among ties (the least basic index)
  // would rule out cycling, but may pivot on an element of 1e-9 when one of 1
  // ties with it, and the tableau then loses every digit (a residual of 1e6
  // where 1e-8 was the truth, RapidCheck seed 3689169562196183677). So the
  // largest pivot is taken until the steps have been degenerate for a while
  // (kDegenerateSteps in a row), then Bland's tie-break until a step moves
  // again: a cycle is all degenerate steps, so none can last. Returns false if
  // unbounded.
  bool run(const std::vector<bool>& allowed, double tol) {
    constexpr int kDegenerateSteps = 50;
    int degenerate = 0;
    for (int iteration = 0; iteration < 10000; ++iteration) {
      const bool bland = degenerate >= kDegenerateSteps;
      // The leaving row for `enter` (-1: none, the LP is unbounded), and the
      // step's ratio.
      auto leavingRow = [&](int enter, double& best) {
        best = std::numeric_limits<double>::infinity();
        for (int r = 0; r < m; ++r) {
          if (T(r, enter) > tol) best = std::min(best, rhs(r) / T(r, enter));
        }
        int leave = -1;
        for (int r = 0; r < m; ++r) {
          if (!(T(r, enter) > tol) || rhs(r) / T(r, enter) > best + 1e-15) continue;
          if (leave < 0 || (bland ? basis[r] < basis[leave] : T(r, enter) > T(leave, enter))) {
            leave = r;
          }
        }
        return leave;
      };
      // The first improving column whose pivot is not tiny beside the
      // column's largest entry (a pivot of 3e-9 where the column has 2.5 loses
      // the tableau's digits just as a tied one does, RapidCheck seed
      // 10511199277533255989); if every improving column's is, the first one.
      int enter = -1, leave = -1;
      double step = 0;
      for (int j = 0; j < cols; ++j) {
        if (!allowed[j] || !(T(m, j) < -tol)) continue;
        double ratio = 0;
        const int r = leavingRow(j, ratio);
        if (r < 0) return false;  // an improving direction without bound
        double largest = 0;
        for (int i = 0; i < m; ++i) largest = std::max(largest, std::abs(T(i, j)));
        const bool sound = T(r, j) >= kRelativePivot * largest;
        if (enter < 0 || sound) {
          enter = j;
          leave = r;
          step = ratio;
        }
        if (bland || sound) break;
      }
      if (enter < 0) return true;
      degenerate = step <= 1e-15 ? degenerate + 1 : 0;
      pivot(leave, enter);
    }
    return true;  // iteration cap: the steps terminate (above), so this is not reached in practice
  }
};

}  // namespace

Result minimize(const Eigen::VectorXd& c, const Eigen::MatrixXd& Aeq, const Eigen::VectorXd& beq,
                const Eigen::MatrixXd& Ain, const Eigen::VectorXd& bin, double tol) {
  const int n = static_cast<int>(c.size());
  const int me = static_cast<int>(Aeq.rows());
  const int mi = static_cast<int>(Ain.rows());
  const int m = me + mi;
  // Columns: x (n), slacks (mi), artificials (m).
  const int slack0 = n;
  const int art0 = n + mi;
  Tableau tab;
  tab.m = m;
  tab.cols = n + mi + m;
  tab.T = Eigen::MatrixXd::Zero(m + 1, tab.cols + 1);
  tab.basis.assign(m, -1);
  // The phase-1 verdict is relative to the right-hand sides it is about: rows
  // with 5e-10 and 1 in one problem (bounds 1e12 apart after scaling) must not
  // have their small rows declared satisfied by an absolute tolerance.
  double artificialScale = 0;
  double rhsScale = 0;
  for (int r = 0; r < m; ++r) {
    const bool eq = r < me;
    Eigen::RowVectorXd row =
        eq ? Eigen::RowVectorXd(Aeq.row(r)) : Eigen::RowVectorXd(Ain.row(r - me));
    double b = eq ? beq(r) : bin(r - me);
    double slackSign = eq ? 0.0 : 1.0;
    if (b < 0) {
      row = -row;
      b = -b;
      slackSign = -slackSign;
    }
    tab.T.block(r, 0, 1, n) = row;
    if (!eq) tab.T(r, slack0 + (r - me)) = slackSign;
    tab.T(r, tab.cols) = b;
    rhsScale = std::max(rhsScale, b);
    if (slackSign > 0) {
      tab.basis[r] = slack0 + (r - me);
    } else {
      tab.T(r, art0 + r) = 1;
      tab.basis[r] = art0 + r;
      artificialScale = std::max(artificialScale, b);
    }
  }
  // Phase 1: minimize the sum of artificials in the basis.
  for (int r = 0; r < m; ++r) {
    if (tab.basis[r] >= art0) tab.T.row(m) -= tab.T.row(r);
  }
  for (int r = 0; r < m; ++r) {
    if (tab.basis[r] >= art0) tab.T(m, tab.basis[r]) = 0;
  }
  std::vector<bool> allowed(tab.cols, true);
  tab.run(allowed, tol);
  Result result;
  const double reference = std::max(artificialScale, 1e-12 * rhsScale);
  if (-tab.T(m, tab.cols) > tol * std::max(1.0, static_cast<double>(m)) * reference + 1e-300) {
    result.status = Status::Infeasible;
    return result;
  }
  // Drive artificials out of the basis; rows where that is impossible are redundant.
  for (int r = 0; r < m; ++r) {
    if (tab.basis[r] < art0) continue;
    // On the largest element of the row (the first one above tol may be 1e-9).
    int best = -1;
    for (int j = 0; j < art0; ++j) {
      if (std::abs(tab.T(r, j)) > tol &&
          (best < 0 || std::abs(tab.T(r, j)) > std::abs(tab.T(r, best)))) {
        best = j;
      }
    }
    if (best >= 0) tab.pivot(r, best);
  }
  for (int j = art0; j < tab.cols; ++j) allowed[j] = false;
  // Phase 2 objective row: c in terms of the non-basic columns.
  tab.T.row(m).setZero();
  tab.T.block(m, 0, 1, n) = c.transpose();
  for (int r = 0; r < m; ++r) {
    const int b = tab.basis[r];
    if (b < n && c(b) != 0) tab.T.row(m) -= c(b) * tab.T.row(r);
  }
  if (!tab.run(allowed, tol)) {
    result.status = Status::Unbounded;
    return result;
  }
  result.status = Status::Optimal;
  result.x = Eigen::VectorXd::Zero(n);
  for (int r = 0; r < m; ++r) {
    if (tab.basis[r] < n) result.x(tab.basis[r]) = std::max(0.0, tab.rhs(r));
  }
  result.value = c.dot(result.x);
  return result;
}

}  // namespace libra::lp
