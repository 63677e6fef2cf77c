#include "lp.hpp"

#include <cmath>
#include <limits>

namespace libra::lp {

namespace {

// Where a tableau lives: dynamic matrices, or (Capacity) matrices of fixed
// capacity on the stack for the small LPs that the presolve runs by the
// dozen per solve, so that these allocate nothing but their answer.
struct Dynamic {
  using Matrix = Eigen::MatrixXd;
  using Indices = Eigen::VectorXi;
  using Flags = Eigen::Matrix<bool, Eigen::Dynamic, 1>;
};
template <int Rows, int Cols>
struct Capacity {
  static constexpr int kRows = Rows;  // constraint rows
  static constexpr int kCols = Cols;  // structural columns
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, Rows + 1, Cols + 1>;
  using Indices = Eigen::Matrix<int, Eigen::Dynamic, 1, 0, Rows, 1>;
  using Flags = Eigen::Matrix<bool, Eigen::Dynamic, 1, 0, Cols, 1>;
};
using Small = Capacity<16, 64>;

// Tableau T with rows 0..m-1 the constraints and row m the objective (reduced
// costs); the last column is the right-hand side. basis[r] is the basic column of row r.
enum class Outcome { Optimal, Unbounded, IterationLimit };
constexpr int kIterationLimit = 10000;

template <class Storage>
struct Tableau {
  typename Storage::Matrix T;
  typename Storage::Indices basis;
  int m = 0;
  int cols = 0;  // structural columns (excluding rhs)
  // The largest right-hand side: ratios within 1e-15 of it tie, and a step
  // that short is degenerate. Absolute, 1e-15 made every ratio of a problem
  // scaled to 1e-231 tie, and the largest pivot among them left a row
  // violated by its whole size (x0 - x1 <= 0 with x0 + x1 == 2.4e-231).
  double scale = 1;

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
  // degenerate step), the one with the largest pivot. Bland's choice among
  // ties (the least basic index) would rule out cycling, but may pivot on an
  // element of 1e-9 when one of 1 ties with it, and the tableau then loses
  // every digit. So the largest pivot is taken until the steps have been
  // degenerate for a while (`blandAfter` in a row), then Bland's choices until
  // a step moves again: a cycle is all degenerate steps, so none can last.
  // Even then, a pivot below kRelativePivot of its column's largest entry is
  // taken only where no sound one is eligible (a pivot of 1.7e-8 beside 19
  // grew the entries to 1e16 and missed the equations by 0.7). Bland's
  // guarantee needs its exact choices, so with this it is a heuristic; the
  // iteration limit and minimize()'s check of the answer catch what it misses.
  Outcome run(const typename Storage::Flags& allowed, double tol, int blandAfter) {
    int degenerate = 0;
    for (int iteration = 0; iteration < kIterationLimit; ++iteration) {
      const bool bland = degenerate >= blandAfter;
      // The leaving row for `enter` (-1: none, the LP is unbounded), and the
      // step's ratio.
      auto leavingRow = [&](int enter, double& best) {
        best = std::numeric_limits<double>::infinity();
        double largest = 0;
        for (int r = 0; r < m; ++r) {
          if (T(r, enter) > tol) best = std::min(best, rhs(r) / T(r, enter));
          largest = std::max(largest, std::abs(T(r, enter)));
        }
        int leave = -1;
        for (int r = 0; r < m; ++r) {
          if (!(T(r, enter) > tol) || rhs(r) / T(r, enter) > best + 1e-15 * scale) continue;
          auto sound = [&](int row) { return T(row, enter) >= kRelativePivot * largest; };
          const bool better =
              leave < 0 || (bland ? sound(r) && (!sound(leave) || basis[r] < basis[leave])
                                  : T(r, enter) > T(leave, enter));
          if (better) leave = r;
        }
        return leave;
      };
      // The first improving column whose pivot is not tiny beside the
      // column's largest entry (a pivot of 3e-9 where the column has 2.5 loses
      // the tableau's digits just as a tied one does, in an LP of a random
      // problem); if every improving column's is, the first one.
      int enter = -1, leave = -1;
      double step = 0;
      for (int j = 0; j < cols; ++j) {
        if (!allowed[j] || !(T(m, j) < -tol)) continue;
        double ratio = 0;
        const int r = leavingRow(j, ratio);
        if (r < 0) return Outcome::Unbounded;  // an improving direction without bound
        double largest = 0;
        for (int i = 0; i < m; ++i) largest = std::max(largest, std::abs(T(i, j)));
        const bool sound = T(r, j) >= kRelativePivot * largest;
        if (enter < 0 || sound) {
          enter = j;
          leave = r;
          step = ratio;
        }
        if (sound) break;
      }
      if (enter < 0) return Outcome::Optimal;
      degenerate = step <= 1e-15 * scale ? degenerate + 1 : 0;
      pivot(leave, enter);
    }
    return Outcome::IterationLimit;
  }
};

// The starting tableau of solveOnce: the rows with right-hand sides made
// >= 0, a slack in the basis where it enters with +1, an artificial elsewhere.
// Columns: x (n), slacks (mi), artificials (m).
template <class Storage>
struct StartingTableau {
  Tableau<Storage> tab;
  // The largest right-hand side of a row that starts on an artificial, and of
  // any row: the phase-1 verdict is relative to these.
  double artificialScale = 0;
  double rhsScale = 0;
};

template <class Storage>
StartingTableau<Storage> startingTableau(int n, const Eigen::MatrixXd& Aeq,
                                         const Eigen::VectorXd& beq, const Eigen::MatrixXd& Ain,
                                         const Eigen::VectorXd& bin) {
  const int me = static_cast<int>(Aeq.rows());
  const int mi = static_cast<int>(Ain.rows());
  const int m = me + mi;
  const int slack0 = n;
  const int art0 = n + mi;
  StartingTableau<Storage> out;
  Tableau<Storage>& tab = out.tab;
  tab.m = m;
  tab.cols = n + mi + m;
  tab.T = Storage::Matrix::Zero(m + 1, tab.cols + 1);
  tab.basis = Storage::Indices::Constant(m, -1);
  for (int r = 0; r < m; ++r) {
    const bool eq = r < me;
    double b = eq ? beq(r) : bin(r - me);
    double slackSign = eq ? 0.0 : 1.0;
    const double sign = b < 0 ? -1.0 : 1.0;
    if (eq) {
      tab.T.block(r, 0, 1, n) = sign * Aeq.row(r);
    } else {
      tab.T.block(r, 0, 1, n) = sign * Ain.row(r - me);
    }
    b *= sign;
    slackSign *= sign;
    if (!eq) tab.T(r, slack0 + (r - me)) = slackSign;
    tab.T(r, tab.cols) = b;
    out.rhsScale = std::max(out.rhsScale, b);
    if (slackSign > 0) {
      tab.basis[r] = slack0 + (r - me);
    } else {
      tab.T(r, art0 + r) = 1;
      tab.basis[r] = art0 + r;
      out.artificialScale = std::max(out.artificialScale, b);
    }
  }
  if (out.rhsScale > 0) tab.scale = out.rhsScale;
  return out;
}

// After phase 1: pivots every artificial still basic out of the basis, on the
// largest element of its row (the first one above tol may be 1e-9); rows
// where that is impossible are redundant and keep theirs.
template <class Storage>
void driveOutArtificials(Tableau<Storage>& tab, int art0, double tol) {
  for (int r = 0; r < tab.m; ++r) {
    if (tab.basis[r] < art0) continue;
    int best = -1;
    for (int j = 0; j < art0; ++j) {
      if (std::abs(tab.T(r, j)) > tol &&
          (best < 0 || std::abs(tab.T(r, j)) > std::abs(tab.T(r, best)))) {
        best = j;
      }
    }
    if (best >= 0) tab.pivot(r, best);
  }
}

// One two-phase solve; `allowance` is set to what its optimum may miss a row by.
template <class Storage>
Result solveOnce(const Eigen::VectorXd& c, const Eigen::MatrixXd& Aeq, const Eigen::VectorXd& beq,
                 const Eigen::MatrixXd& Ain, const Eigen::VectorXd& bin, double tol, int blandAfter,
                 double& allowance) {
  const int n = static_cast<int>(c.size());
  const int m = static_cast<int>(Aeq.rows() + Ain.rows());
  const int art0 = n + static_cast<int>(Ain.rows());
  // The phase-1 verdict is relative to the right-hand sides it is about: rows
  // with 5e-10 and 1 in one problem (bounds 1e12 apart after scaling) must not
  // have their small rows declared satisfied by an absolute tolerance.
  StartingTableau<Storage> start = startingTableau<Storage>(n, Aeq, beq, Ain, bin);
  Tableau<Storage>& tab = start.tab;
  const double artificialScale = start.artificialScale;
  const double rhsScale = start.rhsScale;
  // Phase 1: minimize the sum of artificials in the basis.
  for (int r = 0; r < m; ++r) {
    if (tab.basis[r] >= art0) tab.T.row(m) -= tab.T.row(r);
  }
  for (int r = 0; r < m; ++r) {
    if (tab.basis[r] >= art0) tab.T(m, tab.basis[r]) = 0;
  }
  typename Storage::Flags allowed = Storage::Flags::Constant(tab.cols, true);
  Result result;
  if (tab.run(allowed, tol, blandAfter) == Outcome::IterationLimit) {
    result.status = Status::Failed;
    return result;
  }
  const double reference = std::max(artificialScale, 1e-12 * rhsScale);
  const double rows = std::max(1.0, static_cast<double>(m));
  if (-tab.T(m, tab.cols) > tol * rows * reference + 1e-300) {
    result.status = Status::Infeasible;
    return result;
  }
  driveOutArtificials(tab, art0, tol);
  for (int j = art0; j < tab.cols; ++j) allowed[j] = false;
  // Phase 2 objective row: c in terms of the non-basic columns.
  tab.T.row(m).setZero();
  tab.T.block(m, 0, 1, n) = c.transpose();
  for (int r = 0; r < m; ++r) {
    const int b = tab.basis[r];
    if (b < n && c(b) != 0) tab.T.row(m) -= c(b) * tab.T.row(r);
  }
  const Outcome outcome = tab.run(allowed, tol, blandAfter);
  if (outcome != Outcome::Optimal) {
    result.status = outcome == Outcome::Unbounded ? Status::Unbounded : Status::Failed;
    return result;
  }
  result.status = Status::Optimal;
  result.x = Eigen::VectorXd::Zero(n);
  for (int r = 0; r < m; ++r) {
    if (tab.basis[r] < n) result.x(tab.basis[r]) = std::max(0.0, tab.rhs(r));
  }
  result.value = c.dot(result.x);
  // What the answer may miss a row by: what phase 1 accepted, and the
  // tableau's rounding of its largest right-hand side (a bound of 2e15 beside
  // `total == 2` moves the small rows by 0.1).
  allowance = tol * rows * reference + 1e-12 * rows * rhsScale + 1e-300;
  return result;
}

// Whether x satisfies every row to 1e-3 of its size (its right-hand side or
// its largest term), or to what phase 1 accepts. The wrong answers this is
// for missed rows by 35 % and by their whole size; a tableau whose pivots
// grow loses digits without being wrong (basic variables the ratio tests left
// 1e-5 of a row below 0), which a tighter check would call Failed.
bool satisfies(const Eigen::VectorXd& x, const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
               bool equality, double allowance) {
  for (Eigen::Index r = 0; r < A.rows(); ++r) {
    const double lhs = A.row(r).dot(x);
    const double size = std::max(std::abs(b(r)), A.row(r).cwiseAbs().dot(x.cwiseAbs()));
    const double off = equality ? std::abs(lhs - b(r)) : lhs - b(r);
    if (!(off <= 1e-3 * size + allowance)) return false;
  }
  return true;
}

}  // namespace

Result minimize(const Eigen::VectorXd& c, const Eigen::MatrixXd& Aeq, const Eigen::VectorXd& beq,
                const Eigen::MatrixXd& Ain, const Eigen::VectorXd& bin, double tol) {
  // The tableau accumulates rounding with every pivot, so an optimum is
  // checked against the rows it was given. Where it misses them (or the steps
  // hit the iteration limit) the LP is solved again taking the largest pivot
  // throughout, without Bland's rule; if that fails too the verdict is Failed,
  // never a wrong optimum.
  constexpr int kBlandAfter = 50;
  Result result;
  for (const int blandAfter : {kBlandAfter, kIterationLimit}) {
    double allowance = 0;
    const bool small = Aeq.rows() + Ain.rows() <= Small::kRows &&
                       c.size() + Ain.rows() + Aeq.rows() + Ain.rows() <= Small::kCols;
    result = small ? solveOnce<Small>(c, Aeq, beq, Ain, bin, tol, blandAfter, allowance)
                   : solveOnce<Dynamic>(c, Aeq, beq, Ain, bin, tol, blandAfter, allowance);
    if (result.status == Status::Optimal && !(satisfies(result.x, Aeq, beq, true, allowance) &&
                                              satisfies(result.x, Ain, bin, false, allowance))) {
      result.status = Status::Failed;
    }
    if (result.status != Status::Failed) return result;
  }
  return result;
}

}  // namespace libra::lp
