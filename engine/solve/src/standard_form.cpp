#include "standard_form.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>

#include "lp.hpp"
#include "text.hpp"

namespace libra::detail {

namespace {

constexpr double kLpTolerance = 1e-9;

void appendRow(Eigen::MatrixXd& A, Eigen::VectorXd& b, const Eigen::RowVectorXd& row, double rhs) {
  A.conservativeResize(A.rows() + 1, row.size());
  b.conservativeResize(b.size() + 1);
  A.row(A.rows() - 1) = row;
  b(b.size() - 1) = rhs;
}

// Rows that other rows imply by their form alone, found without an LP in
// O(m log m) for m rows, so that thousands of redundant bounds cost no more
// than reading them: of parallel inequalities (the same coefficients once
// scaled) only the tightest is kept, and an inequality is dropped when the box
// of the bandwidths already keeps it, the box being [0, u] with u from the
// equalities with nonnegative coefficients (`total == 500`: every bw_d <= 500)
// and from the single-dimension bounds kept. A single-dimension bound is
// checked against the equalities' box only, never against itself.
void dropImpliedRows(ConstraintRows& rows) {
  const Eigen::Index n = rows.Ain.cols(), m = rows.Ain.rows();
  if (m == 0) return;
  std::vector<bool> keep(m, false);
  {
    // Rows in lexicographic order of their coefficients; of equal ones the
    // first with the least right-hand side is kept.
    auto less = [&](Eigen::Index a, Eigen::Index b) {
      for (Eigen::Index d = 0; d < n; ++d) {
        if (rows.Ain(a, d) != rows.Ain(b, d)) return rows.Ain(a, d) < rows.Ain(b, d);
      }
      return false;
    };
    std::vector<Eigen::Index> order(static_cast<std::size_t>(m));
    for (Eigen::Index i = 0; i < m; ++i) order[static_cast<std::size_t>(i)] = i;
    std::stable_sort(order.begin(), order.end(), less);
    for (std::size_t g = 0; g < order.size();) {
      std::size_t end = g + 1;
      Eigen::Index tightest = order[g];
      for (; end < order.size() && !less(order[g], order[end]); ++end) {
        if (rows.bin(order[end]) < rows.bin(tightest)) tightest = order[end];
      }
      keep[static_cast<std::size_t>(tightest)] = true;
      g = end;
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> fromEqualities(n, inf);
  for (Eigen::Index i = 0; i < rows.Aeq.rows(); ++i) {
    if ((rows.Aeq.row(i).array() < 0).any() || !(rows.beq(i) >= 0)) continue;
    for (Eigen::Index d = 0; d < n; ++d) {
      if (rows.Aeq(i, d) > 0) {
        fromEqualities[d] = std::min(fromEqualities[d], rows.beq(i) / rows.Aeq(i, d));
      }
    }
  }
  // The one dimension of a bound with a positive coefficient, or -1.
  auto boundDimension = [&](Eigen::Index i) {
    Eigen::Index only = -1;
    for (Eigen::Index d = 0; d < n; ++d) {
      if (rows.Ain(i, d) == 0) continue;
      if (only >= 0 || rows.Ain(i, d) < 0) return Eigen::Index{-1};
      only = d;
    }
    return only;
  };
  std::vector<double> box = fromEqualities;
  for (Eigen::Index i = 0; i < m; ++i) {
    const Eigen::Index d = keep[i] ? boundDimension(i) : -1;
    if (d >= 0) box[d] = std::min(box[d], rows.bin(i) / rows.Ain(i, d));
  }
  auto implied = [&](Eigen::Index i) {
    const Eigen::Index single = boundDimension(i);
    const std::vector<double>& u = single >= 0 ? fromEqualities : box;
    double top = 0;
    for (Eigen::Index d = 0; d < n; ++d) {
      if (rows.Ain(i, d) > 0) top += rows.Ain(i, d) * u[d];
    }
    const double b = rows.bin(i);
    return std::isfinite(top) && top <= b + 1e-9 * std::max({std::abs(b), std::abs(top), 1e-300});
  };
  std::vector<Eigen::Index> rowsKept;
  for (Eigen::Index i = 0; i < m; ++i) {
    if (keep[i] && !implied(i)) rowsKept.push_back(i);
  }
  if (static_cast<Eigen::Index>(rowsKept.size()) == m) return;
  ConstraintRows kept;
  kept.Aeq = std::move(rows.Aeq);
  kept.beq = std::move(rows.beq);
  kept.eqSource = std::move(rows.eqSource);
  kept.Ain.resize(static_cast<Eigen::Index>(rowsKept.size()), n);
  kept.bin.resize(static_cast<Eigen::Index>(rowsKept.size()));
  for (std::size_t r = 0; r < rowsKept.size(); ++r) {
    kept.Ain.row(static_cast<Eigen::Index>(r)) = rows.Ain.row(rowsKept[r]);
    kept.bin(static_cast<Eigen::Index>(r)) = rows.bin(rowsKept[r]);
    kept.inSource.push_back(rows.inSource[rowsKept[r]]);
  }
  rows = std::move(kept);
}

// The rows of a problem and its budget (ConstraintRows), built in O(m log m).
ConstraintRows buildRows(const Problem& problem, std::optional<double> costBudget) {
  const int n = problem.dims();
  auto scaleOf = [n](const std::vector<double>& coef) {
    double scale = 0;
    for (int d = 0; d < n; ++d) scale = std::max(scale, std::abs(coef[d]));
    return scale;
  };
  Eigen::Index eqCount = 0, inCount = 0;
  for (const auto& c : problem.constraints) {
    if (scaleOf(c.coefficients) == 0) continue;
    ++(c.relation == Relation::Equal ? eqCount : inCount);
  }
  const bool budgetRow = costBudget && scaleOf(problem.costPerBandwidth) > 0;
  ConstraintRows rows;
  rows.eqSource.reserve(static_cast<std::size_t>(eqCount));
  rows.inSource.reserve(static_cast<std::size_t>(inCount) + 1);
  rows.Aeq.resize(eqCount, n);
  rows.beq.resize(eqCount);
  rows.Ain.resize(inCount + (budgetRow ? 1 : 0), n);
  rows.bin.resize(rows.Ain.rows());
  Eigen::Index eq = 0, in = 0;
  auto add = [&](const std::vector<double>& coef, Relation rel, double rhs, int source) {
    const double scale = scaleOf(coef);
    if (scale == 0) return;
    const bool equal = rel == Relation::Equal;
    // `>=` turned into `<=`.
    const double sign = rel == Relation::GreaterEqual ? -1.0 : 1.0;
    Eigen::MatrixXd& A = equal ? rows.Aeq : rows.Ain;
    Eigen::VectorXd& b = equal ? rows.beq : rows.bin;
    const Eigen::Index i = equal ? eq++ : in++;
    for (int d = 0; d < n; ++d) A(i, d) = sign * (coef[d] / scale);
    b(i) = sign * (rhs / scale);
    (equal ? rows.eqSource : rows.inSource).push_back(source);
  };
  for (std::size_t i = 0; i < problem.constraints.size(); ++i) {
    const LinearConstraint& c = problem.constraints[i];
    add(c.coefficients, c.relation, c.rhs, static_cast<int>(i));
  }
  if (budgetRow) {
    // The budget bounds the whole cost; the NPUs' fixed part leaves the network the rest.
    add(problem.costPerBandwidth, Relation::LessEqual, *costBudget - problem.fixedCostUsd,
        kBudgetRow);
  }
  dropImpliedRows(rows);
  return rows;
}

lp::Result maximize(const Eigen::VectorXd& objective, const ConstraintRows& rows) {
  lp::Result r = lp::minimize(-objective, rows.Aeq, rows.beq, rows.Ain, rows.bin, kLpTolerance);
  r.value = -r.value;
  return r;
}

bool feasible(const ConstraintRows& rows, int n) {
  return lp::minimize(Eigen::VectorXd::Zero(n), rows.Aeq, rows.beq, rows.Ain, rows.bin,
                      kLpTolerance)
             .status != lp::Status::Infeasible;
}

// A row as messages name it (its ConstraintRows source): its constraint's
// text, "cost <= ..." or "artificial bound".
std::string rowText(const Problem& problem, std::optional<double> costBudget, int source) {
  if (source >= 0) return problem.constraints[static_cast<std::size_t>(source)].text;
  if (source == kArtificialRow || !costBudget) return "artificial bound";
  return "cost <= " + text::formatNumber(*costBudget) +
         (problem.fixedCostUsd > 0
              ? " (the NPUs alone cost " + text::formatNumber(problem.fixedCostUsd) + ")"
              : std::string());
}

// A smallest set of constraints that cannot hold together (deletion filter:
// one LP per row). Past `deadline` the filter stops and the rows not yet
// tried stay in: still a set that cannot hold together, if not the smallest.
std::string conflictingConstraints(const Problem& problem, std::optional<double> costBudget,
                                   const ConstraintRows& all, const Deadline& deadline) {
  const int n = problem.dims();
  std::vector<bool> keepEq(all.eqSource.size(), true), keepIn(all.inSource.size(), true);
  auto subset = [&]() {
    ConstraintRows r;
    auto pick = [n](const std::vector<bool>& keep, const Eigen::MatrixXd& A,
                    const Eigen::VectorXd& b, Eigen::MatrixXd& outA, Eigen::VectorXd& outB) {
      outA.resize(std::count(keep.begin(), keep.end(), true), n);
      outB.resize(outA.rows());
      Eigen::Index row = 0;
      for (std::size_t i = 0; i < keep.size(); ++i) {
        if (!keep[i]) continue;
        outA.row(row) = A.row(static_cast<Eigen::Index>(i));
        outB(row++) = b(static_cast<Eigen::Index>(i));
      }
    };
    pick(keepEq, all.Aeq, all.beq, r.Aeq, r.beq);
    pick(keepIn, all.Ain, all.bin, r.Ain, r.bin);
    return r;
  };
  auto filter = [&](std::vector<bool>& keep) {
    for (std::size_t i = 0; i < keep.size() && !deadline.passed(); ++i) {
      keep[i] = false;
      if (feasible(subset(), n)) keep[i] = true;
    }
  };
  filter(keepEq);
  filter(keepIn);
  std::string out;
  auto append = [&](const std::string& t) { out += (out.empty() ? "'" : ", '") + t + "'"; };
  for (std::size_t i = 0; i < keepEq.size(); ++i) {
    if (keepEq[i]) append(rowText(problem, costBudget, all.eqSource[i]));
  }
  for (std::size_t i = 0; i < keepIn.size(); ++i) {
    if (keepIn[i]) append(rowText(problem, costBudget, all.inSource[i]));
  }
  return out;
}

std::string joinNames(const Problem& problem, const std::vector<int>& dims) {
  std::string out;
  for (int d : dims) out += (out.empty() ? "'" : ", '") + problem.dimNames[d] + "'";
  return out;
}

bool satisfies(const ConstraintRows& rows, const Eigen::VectorXd& x) {
  const double tol = 1e-9;
  for (int i = 0; i < rows.Aeq.rows(); ++i) {
    if (std::abs(rows.Aeq.row(i).dot(x) - rows.beq(i)) > tol * (1 + std::abs(rows.beq(i))))
      return false;
  }
  for (int i = 0; i < rows.Ain.rows(); ++i) {
    if (rows.Ain.row(i).dot(x) - rows.bin(i) > tol * (1 + std::abs(rows.bin(i)))) return false;
  }
  return (x.array() >= 0).all();
}

}  // namespace

namespace {

// ---------------------------------------------------------------------------------
// The stages of the presolve, in the order presolve() runs them. Each either
// decides the problem (infeasible, unbounded, trivial) with a message naming
// the constraints or dimensions, or hands a refined state to the next stage.

// Rows that other rows imply (an upper bound of 1e12 beside `total == 500`) change
// nothing but the numbers: they would set the bandwidth scale and put slacks of
// 1e12 into the barrier. Each inequality is dropped when, subject to the rows
// kept so far and every other row, its left side cannot exceed its right side:
// one LP per row, so only where few rows are left after dropImpliedRows (a
// project writes a handful); more are kept as they are.
constexpr Eigen::Index kRedundancyLpRows = 64;

ConstraintRows dropRedundantRows(ConstraintRows rows) {
  ConstraintRows out = std::move(rows);
  if (out.Ain.rows() > kRedundancyLpRows) return out;
  Eigen::MatrixXd othersA;
  Eigen::VectorXd othersB;
  for (Eigen::Index i = out.Ain.rows() - 1; i >= 0; --i) {
    const Eigen::Index m = out.Ain.rows();
    othersA.resize(m - 1, out.Ain.cols());
    othersB.resize(m - 1);
    othersA.topRows(i) = out.Ain.topRows(i);
    othersA.bottomRows(m - 1 - i) = out.Ain.bottomRows(m - 1 - i);
    othersB.head(i) = out.bin.head(i);
    othersB.tail(m - 1 - i) = out.bin.tail(m - 1 - i);
    const lp::Result r =
        lp::minimize(-out.Ain.row(i).transpose(), out.Aeq, out.beq, othersA, othersB, kLpTolerance);
    if (r.status != lp::Status::Optimal) continue;
    const double value = -r.value;
    const double b = out.bin(i);
    if (value > b + 1e-9 * std::max({std::abs(b), std::abs(value), 1e-300})) continue;
    out.Ain.swap(othersA);
    out.bin.swap(othersB);
    out.inSource.erase(out.inSource.begin() + i);
  }
  return out;
}

ConstraintRows scaledRows(ConstraintRows rows, double scale) {
  rows.beq /= scale;
  rows.bin /= scale;
  return rows;
}

// The scale of bandwidths the (non-redundant) rows suggest: the median of their
// right-hand sides, in GB/s.
double rowScale(const ConstraintRows& rows) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(rows.beq.size() + rows.bin.size()));
  for (int i = 0; i < rows.beq.size(); ++i) {
    if (rows.beq(i) != 0) values.push_back(std::abs(rows.beq(i)));
  }
  for (int i = 0; i < rows.bin.size(); ++i) {
    if (rows.bin(i) != 0) values.push_back(std::abs(rows.bin(i)));
  }
  if (values.empty()) return 1;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Every dimension that carries traffic must be able to have bandwidth: maximize
// the smallest of their bandwidths (variables x and z, z <= x_d). Returns the
// LP's point, or sets the verdict.
std::optional<Eigen::VectorXd> bandwidthForUsedDims(const Problem& problem,
                                                    const ConstraintRows& rows,
                                                    const std::vector<int>& usedList,
                                                    bool hasCostBudget, Presolved& out) {
  const int n = problem.dims();
  ConstraintRows withZ;
  withZ.Aeq = Eigen::MatrixXd::Zero(rows.Aeq.rows(), n + 1);
  withZ.Aeq.leftCols(n) = rows.Aeq;
  withZ.beq = rows.beq;
  withZ.Ain = Eigen::MatrixXd::Zero(rows.Ain.rows() + usedList.size(), n + 1);
  withZ.Ain.topLeftCorner(rows.Ain.rows(), n) = rows.Ain;
  withZ.bin = Eigen::VectorXd::Zero(withZ.Ain.rows());
  withZ.bin.head(rows.bin.size()) = rows.bin;
  for (std::size_t i = 0; i < usedList.size(); ++i) {
    withZ.Ain(rows.Ain.rows() + i, usedList[i]) = -1;
    withZ.Ain(rows.Ain.rows() + i, n) = 1;
  }
  Eigen::VectorXd objective = Eigen::VectorXd::Zero(n + 1);
  objective(n) = 1;
  const lp::Result r = maximize(objective, withZ);
  if (r.status == lp::Status::Unbounded) {
    out.status = SolveStatus::Unbounded;
    out.message = "nothing limits the bandwidth of " + joinNames(problem, usedList) +
                  ": the iteration time keeps falling as bandwidth grows; add a budget such as "
                  "'total == 500' or 'cost <= 1e8'";
    return std::nullopt;
  }
  // Zero relative to the bandwidths the same point gives the other dimensions
  // (an absolute threshold would call 500 GB/s "nothing" at a scale of 1e12).
  const double size = r.status == lp::Status::Optimal ? r.x.head(n).cwiseAbs().maxCoeff() : 0.0;
  if (r.status == lp::Status::Optimal && r.value > 1e-9 * size) return r.x.head(n);
  std::vector<int> zero;
  for (int d : usedList) {
    Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
    e(d) = 1;
    const lp::Result m = maximize(e, rows);
    const double top = m.status == lp::Status::Optimal ? m.x.cwiseAbs().maxCoeff() : 0.0;
    if (m.status == lp::Status::Optimal && m.value <= 1e-9 * top) zero.push_back(d);
  }
  out.status = SolveStatus::Infeasible;
  if (zero.empty()) {
    // No single dimension is held at zero, but they cannot all have bandwidth at once.
    out.message = "the dimensions " + joinNames(problem, usedList) +
                  " carry traffic, but the constraints" +
                  (hasCostBudget ? std::string(" and the cost budget") : std::string()) +
                  " cannot give all of them bandwidth at once; relax a bound or raise the budget";
    return std::nullopt;
  }
  out.message = "dimension" + std::string(zero.size() > 1 ? "s " : " ") + joinNames(problem, zero) +
                (zero.size() > 1 ? " carry" : " carries") + " traffic, but the constraints" +
                (hasCostBudget ? std::string(" and the cost budget") : std::string()) +
                " leave no bandwidth for " + (zero.size() > 1 ? "them" : "it") +
                "; relax a bound or raise the budget";
  return std::nullopt;
}

// Dimensions that carry traffic must be bounded; the idle ones get a generous
// artificial bound so the interior-point iterations stay finite, and an idle one
// the constraints force to 0 is marked, to be left out of the variables (its
// sign bound would have no interior). Updates the start
// point with the LP's far corner.
bool boundAndFix(const Problem& problem, const std::vector<bool>& used, ConstraintRows& rows,
                 Eigen::VectorXd& start, std::vector<std::optional<double>>& fixed,
                 Presolved& out) {
  const int n = problem.dims();
  std::vector<int> unboundedUsed, unboundedIdle;
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  auto maximizeDim = [&](int d) {
    e(d) = 1;
    lp::Result r = maximize(e, rows);
    e(d) = 0;
    return r;
  };
  const lp::Result all = maximize(Eigen::VectorXd::Ones(n), rows);
  if (all.status == lp::Status::Unbounded) {
    for (int d = 0; d < n; ++d) {
      if (maximizeDim(d).status == lp::Status::Unbounded) {
        (used[d] ? unboundedUsed : unboundedIdle).push_back(d);
      }
    }
  } else if (all.status == lp::Status::Optimal) {
    start = 0.5 * (start + all.x);
  }
  if (!unboundedUsed.empty()) {
    out.status = SolveStatus::Unbounded;
    out.message = "nothing limits the bandwidth of " + joinNames(problem, unboundedUsed) +
                  ", which carr" + (unboundedUsed.size() > 1 ? "y" : "ies") +
                  " traffic; add a budget such as 'total == 500' or 'cost <= 1e8'";
    return false;
  }
  fixed.assign(n, std::nullopt);
  for (int d = 0; d < n; ++d) {
    if (used[d] ||
        std::find(unboundedIdle.begin(), unboundedIdle.end(), d) != unboundedIdle.end()) {
      continue;
    }
    const lp::Result r = maximizeDim(d);
    if (r.status == lp::Status::Optimal && r.value <= 1e-9 * std::max(1.0, start.maxCoeff())) {
      fixed[d] = 0.0;
    }
  }
  const double cap = 1e3 * std::max(1.0, start.maxCoeff());
  for (int d : unboundedIdle) {
    Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
    row(d) = 1;
    appendRow(rows.Ain, rows.bin, row, cap);
    rows.inSource.push_back(kArtificialRow);
  }
  return true;
}

// A dimension an equality holds alone (`bw[0] == 500`) is a constant: fixed at
// its value. (Left in, it has no barrier and, once the others are small, almost
// no curvature: the Newton system then cannot place it to better than 1e-6.)
void fixBySingleEqualities(const ConstraintRows& rows, std::vector<std::optional<double>>& fixed) {
  for (int i = 0; i < rows.Aeq.rows(); ++i) {
    int only = -1, count = 0;
    for (int d = 0; d < rows.Aeq.cols(); ++d) {
      if (rows.Aeq(i, d) != 0) {
        only = d;
        ++count;
      }
    }
    if (count == 1 && !fixed[only]) fixed[only] = std::max(0.0, rows.beq(i) / rows.Aeq(i, only));
  }
}

// Linearly dependent equality rows (the same budget written twice, a fixed
// bandwidth that also follows from the others) make the KKT system singular; the
// LP found the rows consistent, so the independent ones suffice.
void dropDependentEqualities(Eigen::MatrixXd& Aeq, Eigen::VectorXd& beq) {
  if (Aeq.rows() <= 1) return;
  const Eigen::Index n = Aeq.cols();
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Aeq.transpose());
  qr.setThreshold(1e-10);
  const Eigen::Index rank = qr.rank();
  if (rank == Aeq.rows()) return;
  std::vector<int> keep(qr.colsPermutation().indices().data(),
                        qr.colsPermutation().indices().data() + rank);
  std::sort(keep.begin(), keep.end());
  Eigen::MatrixXd A(rank, n);
  Eigen::VectorXd b(rank);
  for (Eigen::Index i = 0; i < rank; ++i) {
    A.row(i) = Aeq.row(keep[i]);
    b(i) = beq(keep[i]);
  }
  Aeq = A;
  beq = b;
}

// The whole sums W_j of a group's pieces (merged and without zero terms) when
// their Newton block is small enough to be dense (sum_j |W_j|^2 up to
// kWholeSumWork; the presets' overlap loops repeat a few collectives): the
// rows then bound s_g directly, the best conditioned form, and the native
// solver factors their block densely. Empty otherwise: the rows chain partial
// sums (y), linear in the layers, for thousands of distinct collectives.
constexpr double kWholeSumWork = 2e8;

template <class Merge>
std::optional<std::vector<std::vector<std::pair<int, double>>>> wholeSums(
    const std::vector<TimeModel::Piece>& pieces, const Merge& merge) {
  std::vector<std::size_t> bound(pieces.size(), 0);  // |W_j| <= bound[j]
  double work = 0;
  for (std::size_t j = 0; j < pieces.size(); ++j) {
    const TimeModel::Piece& p = pieces[j];
    bound[j] = p.terms.size() + (p.previous >= 0 ? bound[static_cast<std::size_t>(p.previous)] : 0);
    work += static_cast<double>(bound[j]) * static_cast<double>(bound[j]);
    if (work > kWholeSumWork) return std::nullopt;
  }
  std::vector<std::map<int, double>> sums(pieces.size());
  std::vector<std::vector<std::pair<int, double>>> out(pieces.size());
  for (std::size_t j = 0; j < pieces.size(); ++j) {
    const TimeModel::Piece& p = pieces[j];
    if (p.previous >= 0) sums[j] = sums[static_cast<std::size_t>(p.previous)];
    for (const auto& [k, w] : p.terms) sums[j][k] += w;
    std::vector<std::pair<int, double>> whole;
    for (const auto& [k, w] : sums[j]) {
      if (w != 0) whole.emplace_back(k, w);
    }
    for (const auto& [k, w] : merge(whole)) {
      if (w != 0) out[j].emplace_back(k, w);
    }
  }
  return out;
}

// The rows of StandardForm over z = (t, y, s) for `groups` (each of more than
// one piece; s_g is the g-th), after every t is in place (f.K set). `merge`
// maps a piece's terms onto the merged collectives.
template <class Merge>
void compilePieceRows(const std::vector<const TimeModel::Group*>& groups, const Merge& merge,
                      StandardForm& f) {
  using Terms = std::vector<std::pair<int, double>>;
  // Rows of y first (their count is known only at the end), s indices fixed after.
  std::vector<StandardForm::LinearRow> rows;
  std::vector<int> sRows;  // rows whose target is an s: (row index), group in `target` for now
  auto newY = [&] { return f.K + f.Y++; };
  // target >= sum of `base` (z terms) + `ts` (t terms), split every kRowTerms terms.
  auto sum = [&](Terms base, const Terms& ts, int target) {
    std::size_t i = 0;
    while (base.size() + (ts.size() - i) > static_cast<std::size_t>(StandardForm::kRowTerms)) {
      const int partial = newY();
      Terms row = base;
      while (row.size() < static_cast<std::size_t>(StandardForm::kRowTerms) && i < ts.size()) {
        row.push_back(ts[i++]);
      }
      row.emplace_back(partial, -1.0);
      rows.push_back({0.0, std::move(row), partial});
      base = {{partial, 1.0}};
    }
    Terms row = base;
    row.insert(row.end(), ts.begin() + static_cast<std::ptrdiff_t>(i), ts.end());
    row.emplace_back(target, -1.0);
    rows.push_back({0.0, std::move(row), target});
  };
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& pieces = groups[g]->pieces;
    std::vector<int> y(pieces.size(), -1);
    for (std::size_t j = 0; j < pieces.size(); ++j) {
      const TimeModel::Piece& p = pieces[j];
      Terms ts;
      for (const auto& [k, w] : merge(p.terms)) {
        if (w != 0) ts.emplace_back(k, w);
      }
      y[j] = newY();
      Terms base;
      if (p.previous >= 0) base.emplace_back(y[static_cast<std::size_t>(p.previous)], 1.0);
      sum(std::move(base), ts, y[j]);
      // a_j + y_j - s_g <= 0; s's index is set below.
      sRows.push_back(static_cast<int>(rows.size()));
      rows.push_back({p.constantNs / f.timeScale,
                      {{y[j], 1.0}, {static_cast<int>(g), -1.0}},
                      static_cast<int>(g)});
    }
  }
  for (const int r : sRows) {
    StandardForm::LinearRow& row = rows[static_cast<std::size_t>(r)];
    row.target += f.K + f.Y;
    row.terms.back().first = row.target;
  }
  f.rows = std::move(rows);
  // The whole sums too, while their block is small enough to be dense: K + M up
  // to kDenseEpigraph and short sums.
  if (f.K + static_cast<int>(groups.size()) > StandardForm::kDenseEpigraph) return;
  std::vector<StandardForm::LinearRow> whole;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& pieces = groups[g]->pieces;
    const auto sums = wholeSums(pieces, merge);
    if (!sums) return;
    const int s = f.K + static_cast<int>(g);
    for (std::size_t j = 0; j < pieces.size(); ++j) {
      Terms row = (*sums)[j];
      row.emplace_back(s, -1.0);
      whole.push_back({pieces[j].constantNs / f.timeScale, std::move(row), s});
    }
  }
  f.wholeRows = std::move(whole);
}

// Collectives whose time terms are proportional (tau_k = alpha tau_j, e.g.
// tensor-parallel AllReduces of different sizes over one group in LIBRA's
// model), merged: each shares its representative's epigraph variable.
struct MergedCollectives {
  std::vector<int> representative;  // of each collective, its merged index
  std::vector<double> factor;       // of each collective, tau_k over its representative's
  std::vector<int> kept;            // original index of each merged collective
};

// The collectives of `time` merged by the direction of their terms (each
// term's parts relative to its largest, to 1e-12).
MergedCollectives mergeProportional(const TimeModel& time) {
  const int K = time.collectiveCount();
  MergedCollectives out;
  out.representative.resize(K);
  out.factor.assign(K, 1.0);
  std::vector<int>& kept = out.kept;
  // Each term's key in one array (keyBegin[k] to keyBegin[k + 1]): the part
  // counts, and per part its dimension and sizes relative to the largest.
  std::vector<double> tops(K);
  std::vector<long long> keys;
  std::vector<std::size_t> keyBegin(K + 1, 0);
  std::size_t keySize = 0;
  for (const TimeTerm& term : time.terms)
    keySize += 2 + 3 * (term.serial.size() + term.pipelined.size());
  keys.reserve(keySize);
  kept.reserve(K);
  for (int k = 0; k < K; ++k) {
    const TimeTerm& term = time.terms[k];
    double top = 0;
    for (const auto* parts : {&term.serial, &term.pipelined}) {
      for (const DimTime& p : *parts) top = std::max({top, p.bytes, p.constantNs});
    }
    tops[k] = top;
    for (const auto* parts : {&term.serial, &term.pipelined}) {
      keys.push_back(-1 - static_cast<long long>(parts->size()));
      for (const DimTime& p : *parts) {
        keys.push_back(p.dim);
        keys.push_back(std::llround(p.constantNs / top * 1e12));
        keys.push_back(std::llround(p.bytes / top * 1e12));
      }
    }
    keyBegin[k + 1] = keys.size();
  }
  auto key = [&](int k) {
    return std::span<const long long>(keys.data() + keyBegin[k], keys.data() + keyBegin[k + 1]);
  };
  auto less = [&](int a, int b) {
    const auto ka = key(a), kb = key(b);
    return std::lexicographical_compare(ka.begin(), ka.end(), kb.begin(), kb.end());
  };
  // Sorted by key, equal keys by index: the first of each run is the first
  // collective of its direction, and directions are numbered in that order.
  std::vector<int> order(K);
  for (int k = 0; k < K; ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return less(a, b) || (!less(b, a) && a < b); });
  std::vector<int> first(K);
  for (int i = 0; i < K; ++i) {
    const bool starts = i == 0 || less(order[i - 1], order[i]);
    first[order[i]] = starts ? order[i] : first[order[i - 1]];
  }
  for (int k = 0; k < K; ++k) {
    if (first[k] == k) {
      out.representative[k] = static_cast<int>(kept.size());
      kept.push_back(k);
    } else {
      out.representative[k] = out.representative[first[k]];
    }
  }
  // The largest collective of each direction represents it, so every factor is
  // <= 1 and the shared epigraph variable keeps the scale of the collective that
  // dominates (a 1 kB stand-in for a 7 GB collective wrecks the scaling).
  for (int k = 0; k < K; ++k) {
    int& r = kept[out.representative[k]];
    if (tops[k] > tops[r]) r = k;
  }
  for (int k = 0; k < K; ++k) out.factor[k] = tops[k] / tops[kept[out.representative[k]]];
  return out;
}

// The sum of the workload weights, which are divided by it. Weights only scale
// the objective: they are normalized to sum to 1, so that a weight of 2^31
// does not shrink every t_k to 1e-10 of the objective (below IPOPT's absolute
// tolerances).
double weightSumOf(const TimeModel& time) {
  double weightSum = 0;
  for (const auto& g : time.groups) weightSum += g.weight;
  if (!(weightSum > 0) || !std::isfinite(weightSum)) weightSum = 1;
  return weightSum;
}

// The time scale: the communication part of the objective at the start point
// (1 where that is 0 or not finite).
double timeScaleOf(const TimeModel& time, const StandardForm& f, double weightSum) {
  const std::vector<double> startBw = f.bandwidth(f.start);
  const int K = time.collectiveCount();
  std::vector<double> tau(K);
  for (int k = 0; k < K; ++k) tau[k] = time.terms[k].value(startBw);
  double comm = 0;
  for (const auto& g : time.groups) {
    double worst = 0;
    const std::vector<double> values = g.pieceValues(tau);
    for (std::size_t j = 0; j < values.size(); ++j) {
      worst = std::max(worst, values[j] - g.pieces[j].constantNs);
    }
    comm += g.weight / weightSum * worst;
  }
  return comm > 0 && std::isfinite(comm) ? comm : 1.0;
}

// The groups of one piece into the separable part of the objective (constant
// and linearT); returns the groups of more than one piece, whose weights go
// into groupWeights.
std::vector<const TimeModel::Group*> compileSeparableGroups(const TimeModel& time, double weightSum,
                                                            const MergedCollectives& merged,
                                                            StandardForm& f) {
  f.linearT = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(merged.kept.size()));
  std::vector<const TimeModel::Group*> pieces;
  for (const auto& g : time.groups) {
    if (g.pieces.size() == 1) {
      f.constant += g.weight / weightSum * g.pieces[0].constantNs / f.timeScale;
      for (const auto& [k, w] : g.pieces[0].terms) {
        f.linearT(merged.representative[k]) += g.weight / weightSum * w * merged.factor[k];
      }
    } else if (g.pieces.size() > 1) {
      f.groupWeights.push_back(g.weight / weightSum);
      pieces.push_back(&g);
    }
  }
  return pieces;
}

// A part on a fixed dimension is a constant: bytes / bw in ns.
double constantOf(const DimTime& p, const StandardForm& f) {
  return p.bytes > 0 ? p.constantNs + p.bytes / *f.fixed[p.dim] : p.constantNs;
}

// The serial terms and the branch rows (edges) of merged collective k, whose
// time term is `term`; `column` is the variable of each dimension and
// `bytesScale` turns bytes into scaled time at scaled bandwidth.
void compileCollective(const TimeTerm& term, int k, const std::vector<int>& column,
                       double bytesScale, StandardForm& f) {
  f.edgeBegin[k] = static_cast<int>(f.edges.size());
  f.serialBegin[k] = static_cast<int>(f.serial.size());
  double serialConstant = 0;
  for (const DimTime& p : term.serial) {
    if (f.fixed[p.dim]) {
      serialConstant += constantOf(p, f) / f.timeScale;
      continue;
    }
    serialConstant += p.constantNs / f.timeScale;
    if (p.bytes > 0) f.serial.push_back({column[p.dim], p.bytes / bytesScale});
  }
  auto byDim = [](const DimTime& a, const DimTime& b) { return a.dim < b.dim; };
  std::vector<DimTime> sorted;  // a copy only where the branches are out of order
  if (!std::is_sorted(term.pipelined.begin(), term.pipelined.end(), byDim)) {
    sorted = term.pipelined;
    std::sort(sorted.begin(), sorted.end(), byDim);
  }
  const std::vector<DimTime>& branches = sorted.empty() ? term.pipelined : sorted;
  // Branches on fixed dimensions are constants: only the largest matters.
  double fixedBranch = 0;
  bool anyFixed = false;
  for (const DimTime& p : branches) {
    if (!f.fixed[p.dim]) continue;
    fixedBranch = std::max(fixedBranch, constantOf(p, f));
    anyFixed = true;
  }
  if (anyFixed) {
    const int d = f.n > 0 ? 0 : -1;
    f.edges.push_back({k, d, 0.0, fixedBranch / f.timeScale + serialConstant});
  }
  for (const DimTime& p : branches) {
    if (f.fixed[p.dim]) continue;
    if (p.bytes <= 0 && p.constantNs <= 0) continue;
    f.edges.push_back(
        {k, column[p.dim], p.bytes / bytesScale, p.constantNs / f.timeScale + serialConstant});
  }
  if (static_cast<int>(f.edges.size()) == f.edgeBegin[k]) {
    // No max part: t_k bounds the serial sum alone.
    const int d = f.serial.size() > static_cast<std::size_t>(f.serialBegin[k])
                      ? f.serial[f.serialBegin[k]].d
                      : 0;  // any variable: v = 0
    f.edges.push_back({k, d, 0.0, serialConstant});
  }
}

// The serial terms and branch rows of every merged collective (`kept`: the
// original index of each), over the n dimensions.
void compileBranchRows(const TimeModel& time, int n, const std::vector<int>& kept,
                       StandardForm& f) {
  std::vector<int> column(n, -1);  // variable of each dimension
  for (int j = 0; j < f.n; ++j) column[f.dims[j]] = j;
  const int merged = static_cast<int>(kept.size());
  const double bytesScale = f.bwScale * f.timeScale;  // bytes / (GB/s) = ns
  f.edgeBegin.assign(merged + 1, 0);
  f.serialBegin.assign(merged + 1, 0);
  std::size_t edges = 0, serial = 0;
  for (int k : kept) {
    edges += time.terms[k].pipelined.size() + 1;
    serial += time.terms[k].serial.size();
  }
  f.edges.reserve(edges);
  f.serial.reserve(serial);
  for (int k = 0; k < merged; ++k) {
    compileCollective(time.terms[kept[k]], k, column, bytesScale, f);
  }
  f.edgeBegin[merged] = static_cast<int>(f.edges.size());
  f.serialBegin[merged] = static_cast<int>(f.serial.size());
}

// The objective and the branch rows from the time model, in scaled units.
// Proportional collectives share one epigraph variable (mergeProportional).
void compileObjective(const TimeModel& time, int n, StandardForm& f) {
  const MergedCollectives merged = mergeProportional(time);
  f.K = static_cast<int>(merged.kept.size());
  auto mergeTerms = [&](const std::vector<std::pair<int, double>>& terms) {
    std::map<int, double> out;
    for (const auto& [k, w] : terms) out[merged.representative[k]] += w * merged.factor[k];
    return std::vector<std::pair<int, double>>(out.begin(), out.end());
  };
  const double weightSum = weightSumOf(time);
  f.timeScale = timeScaleOf(time, f, weightSum);
  compilePieceRows(compileSeparableGroups(time, weightSum, merged, f), mergeTerms, f);
  compileBranchRows(time, n, merged.kept, f);
}

}  // namespace

namespace {

// `rows` over `columns` only: the other dimensions' `known` values moved to the
// right-hand side, at scale 1 / s, and rows left with no column dropped (they
// hold already, up to the solver's tolerance).
ConstraintRows restrictRows(const ConstraintRows& rows, const std::vector<int>& columns,
                            const std::vector<std::optional<double>>& known, double s) {
  const auto m = static_cast<Eigen::Index>(columns.size());
  auto restrict = [&](const Eigen::MatrixXd& A, const Eigen::VectorXd& b, Eigen::MatrixXd& outA,
                      Eigen::VectorXd& outB) {
    auto any = [&](Eigen::Index i) {
      for (Eigen::Index j = 0; j < m; ++j) {
        if (A(i, columns[j]) != 0) return true;
      }
      return false;
    };
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < A.rows(); ++i) count += any(i) ? 1 : 0;
    outA.resize(count, m);
    outB.resize(count);
    Eigen::Index kept = 0;
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      if (!any(i)) continue;
      double rhs = b(i);
      for (std::size_t d = 0; d < known.size(); ++d) {
        if (known[d]) rhs -= A(i, static_cast<Eigen::Index>(d)) * *known[d];
      }
      for (Eigen::Index j = 0; j < m; ++j) outA(kept, j) = A(i, columns[j]);
      outB(kept++) = rhs / s;
    }
  };
  ConstraintRows out;
  restrict(rows.Aeq, rows.beq, out.Aeq, out.beq);
  restrict(rows.Ain, rows.bin, out.Ain, out.bin);
  return out;
}

// The rows over the dimensions that are not fixed (f.dims), the fixed ones moved
// to the right-hand side, at scale 1 / s, without the equalities the others imply.
void reduceRows(const ConstraintRows& rows, const std::vector<std::optional<double>>& fixed,
                double s, StandardForm& f) {
  ConstraintRows reduced = restrictRows(rows, f.dims, fixed, s);
  f.Aeq = std::move(reduced.Aeq);
  f.beq = std::move(reduced.beq);
  f.Ain = std::move(reduced.Ain);
  f.bin = std::move(reduced.bin);
  dropDependentEqualities(f.Aeq, f.beq);
}

// Whether `deadline` has passed; if so `out`'s verdict says so.
bool stopped(const Deadline& deadline, const Problem& problem, Presolved& out) {
  if (!deadline.passed()) return false;
  out.status = deadline.cancelled() ? SolveStatus::Cancelled : SolveStatus::Error;
  out.message = deadline.cancelled()
                    ? "cancelled"
                    : "the presolve stopped at " + text::formatNumber(deadline.seconds) +
                          " s (time limit) while it checked the " +
                          std::to_string(problem.constraints.size()) + " constraints";
  return true;
}

// The constraint rows without the rows the others imply, and `scale`, the
// GB/s of one unit of their variables.
struct EssentialRows {
  ConstraintRows rows;
  double scale = 1;
};

// Steps 1 and 2 of presolve. Empty when `out` has a verdict: too many rows,
// infeasible, or past the deadline.
std::optional<EssentialRows> essentialRows(const Problem& problem, std::optional<double> costBudget,
                                           const Deadline& deadline, Presolved& out) {
  const int n = problem.dims();
  // 1. Rows in GB/s, each scaled to unit size, and feasibility.
  out.rows = buildRows(problem, costBudget);
  const ConstraintRows& raw = out.rows;
  if (raw.Aeq.rows() + raw.Ain.rows() > kMaxConstraintRows) {
    out.status = SolveStatus::Error;
    out.message = "the constraints hold " + std::to_string(raw.Aeq.rows() + raw.Ain.rows()) +
                  " rows that no other constraint implies; at most " +
                  std::to_string(kMaxConstraintRows) + " are supported";
    return std::nullopt;
  }
  const double scale0 = rowScale(raw);
  ConstraintRows scaled = scaledRows(raw, scale0);
  if (!feasible(scaled, n)) {
    out.status = SolveStatus::Infeasible;
    out.message = "the constraints cannot all hold together: " +
                  conflictingConstraints(problem, costBudget, scaled, deadline) +
                  "; relax or remove one of them";
    return std::nullopt;
  }
  if (stopped(deadline, problem, out)) return std::nullopt;
  // 2. Without the rows the others imply, and at the scale of the rows that matter.
  ConstraintRows essential = dropRedundantRows(std::move(scaled));
  if (stopped(deadline, problem, out)) return std::nullopt;
  const double scale = scale0 * rowScale(essential);
  return EssentialRows{scaledRows(std::move(essential), scale / scale0), scale};
}

// Step 3 of presolve: no collective moves data, so the time does not depend on
// bandwidth; the answer is the cheapest feasible point (`cost`: the relative
// prices), or any feasible one where that LP fails.
void cheapestFeasiblePoint(const Eigen::VectorXd& cost, const EssentialRows& essential, int n,
                           Presolved& out) {
  const ConstraintRows& rows = essential.rows;
  lp::Result r = lp::minimize(cost, rows.Aeq, rows.beq, rows.Ain, rows.bin, kLpTolerance);
  if (r.status != lp::Status::Optimal) {
    r = lp::minimize(Eigen::VectorXd::Zero(n), rows.Aeq, rows.beq, rows.Ain, rows.bin,
                     kLpTolerance);
  }
  out.status = SolveStatus::Optimal;
  out.trivialSolution = r.x * essential.scale;
}

// Step 5 of presolve, the warm start: the given point (in GB/s) when it is
// feasible and positive on the used dimensions, pulled slightly towards the LP
// point `start` so that it is not on the boundary.
void pullTowardWarmStart(const std::vector<double>& warmStart, const EssentialRows& essential,
                         const std::vector<int>& usedList, Eigen::VectorXd& start) {
  const auto n = static_cast<int>(warmStart.size());
  Eigen::VectorXd w(n);
  for (int d = 0; d < n; ++d) w(d) = warmStart[d] / essential.scale;
  bool positive = true;
  for (int d : usedList) positive = positive && w(d) > 0;
  if (positive && satisfies(essential.rows, w)) start = 0.9 * w + 0.1 * start;
}

// Step 6 of presolve: the standard form's variables, rescaled so the start
// point has entries of order one, and its rows, without the fixed dimensions:
// they are constants (an idle one at 0 would have no curvature or barrier to
// give the Newton system a pivot), and a row left with none of the other
// dimensions holds (the LP found so) and would only pin a slack at its
// right-hand side (1e-300 for `bw[1] + bw[2] <= 1e-300`). Returns whether a
// variable carries traffic.
bool assembleVariables(const std::vector<std::optional<double>>& fixed,
                       const std::vector<bool>& used, const Eigen::VectorXd& start,
                       const EssentialRows& essential, StandardForm& f) {
  const auto n = static_cast<int>(fixed.size());
  const double scale = essential.scale;
  const double s = std::max(start.maxCoeff(), 1e-300);
  f.fixed.assign(n, std::nullopt);
  for (int d = 0; d < n; ++d) {
    if (fixed[d]) {
      f.fixed[d] = *fixed[d] * scale;
    } else {
      f.dims.push_back(d);
    }
  }
  f.n = static_cast<int>(f.dims.size());
  f.bwScale = scale * s;
  f.start.resize(f.n);
  bool anyUsed = false;
  for (int j = 0; j < f.n; ++j) {
    f.used.push_back(used[f.dims[j]]);
    anyUsed = anyUsed || used[f.dims[j]];
    // Tiny positive values for idle dimensions so the barrier is defined.
    f.start(j) = std::max(start(f.dims[j]) / s, 1e-6);
  }
  reduceRows(essential.rows, fixed, s, f);
  return anyUsed;
}

// Every dimension that carries traffic is fixed: the time is a constant, so
// the cheapest point of the others (`cost`: the relative prices) is optimal.
void cheapestOfTheOthers(const Eigen::VectorXd& cost, int n, Presolved& out) {
  const StandardForm& f = out.form;
  Eigen::VectorXd price(f.n);
  for (int j = 0; j < f.n; ++j) price(j) = cost(f.dims[j]);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(f.n);
  if (f.n > 0) {
    const lp::Result r = lp::minimize(price, f.Aeq, f.beq, f.Ain, f.bin, kLpTolerance);
    if (r.status == lp::Status::Optimal) x = r.x;
  }
  const std::vector<double> bw = f.bandwidth(x);
  out.status = SolveStatus::Optimal;
  out.trivialSolution = Eigen::Map<const Eigen::VectorXd>(bw.data(), n);
}

}  // namespace

Presolved presolve(const Problem& problem, std::optional<double> costBudget,
                   const std::vector<double>* warmStart, Deadline deadline) {
  Presolved out;
  const int n = problem.dims();
  const TimeModel& time = problem.time;
  const std::vector<bool> used = time.usedDims();
  std::vector<int> usedList;
  for (int d = 0; d < n; ++d) {
    if (used[d]) usedList.push_back(d);
  }

  // 1 and 2. The rows that matter, at their scale, and feasibility.
  std::optional<EssentialRows> essential = essentialRows(problem, costBudget, deadline, out);
  if (!essential) return out;
  ConstraintRows& rows = essential->rows;

  Eigen::VectorXd cost(n);
  for (int d = 0; d < n; ++d) cost(d) = problem.costPerBandwidth[d];
  if (cost.maxCoeff() > 0) cost /= cost.maxCoeff();

  // 3. No collective moves data.
  if (usedList.empty()) {
    cheapestFeasiblePoint(cost, *essential, n, out);
    return out;
  }

  // 4. Bandwidth for every dimension that carries traffic, then boundedness.
  std::optional<Eigen::VectorXd> start =
      bandwidthForUsedDims(problem, rows, usedList, costBudget.has_value(), out);
  if (!start || stopped(deadline, problem, out)) return out;
  std::vector<std::optional<double>> fixed;
  if (!boundAndFix(problem, used, rows, *start, fixed, out) || stopped(deadline, problem, out)) {
    return out;
  }
  fixBySingleEqualities(rows, fixed);

  // 5. Warm start.
  if (warmStart && static_cast<int>(warmStart->size()) == n) {
    pullTowardWarmStart(*warmStart, *essential, usedList, *start);
  }

  // 6. Rescale and assemble without the fixed dimensions.
  if (!assembleVariables(fixed, used, *start, *essential, out.form)) {
    cheapestOfTheOthers(cost, n, out);
    return out;
  }

  // 7. The objective and the branch rows.
  compileObjective(time, n, out.form);
  out.status = SolveStatus::Optimal;
  return out;
}

namespace {

// The cheapest point with the idle dimensions free and every used one at `bw`
// (`raise` false) or at least at `bw` (`raise` true): the LP in the idle
// bandwidths and the increments y >= 0 of the used ones. Empty when the LP fails
// or its answer breaks a constraint that `bw` kept.
std::optional<std::vector<double>> cheapestWithUsedAtLeast(const Problem& problem,
                                                           const ConstraintRows& rows,
                                                           const std::vector<double>& bw,
                                                           bool raise) {
  const int n = problem.dims();
  const std::vector<bool> used = problem.time.usedDims();
  std::vector<int> columns;  // the LP's variables, by dimension
  for (int d = 0; d < n; ++d) {
    if (!used[d] || raise) columns.push_back(d);
  }
  const int m = static_cast<int>(columns.size());
  std::vector<std::optional<double>> known(n);
  for (int d = 0; d < n; ++d) {
    if (used[d]) known[d] = bw[d];
  }
  const ConstraintRows reduced = restrictRows(rows, columns, known, 1.0);
  Eigen::VectorXd price(m);
  for (int j = 0; j < m; ++j) price(j) = problem.costPerBandwidth[columns[j]];
  if (!(price.maxCoeff() > 0)) price.setOnes();  // no prices: least bandwidth
  const lp::Result r = lp::minimize(
      price, reduced.Aeq, reduced.beq, reduced.Ain, reduced.bin,
      kLpTolerance * std::max(1.0, reduced.beq.size() ? reduced.beq.cwiseAbs().maxCoeff() : 1.0));
  if (r.status != lp::Status::Optimal) return std::nullopt;
  std::vector<double> polished = bw;
  for (int j = 0; j < m; ++j) {
    const int d = columns[j];
    polished[d] = used[d] ? bw[d] + r.x(j) : r.x(j);
  }
  // The LP's tolerance is absolute: at an answer of 1e-14 GB/s (a perf-per-cost
  // optimum that runs to zero cost) it can break `bw[1] >= bw[2]` by the
  // answer's own size. Each constraint that held must still hold, relative to
  // its own terms.
  for (const LinearConstraint& c : problem.constraints) {
    if (!c.isSatisfied(polished, 1e-9) && c.isSatisfied(bw, 1e-9)) return std::nullopt;
  }
  return polished;
}

// The least-norm solution z of A z = r, robust to dependent rows (a complete
// orthogonal decomposition), where fill(A, r) sets the count x n system. The
// systems of the projection below are small but it runs once per solve, so
// up to kSmallRows x kSmallDims they live in matrices of fixed capacity,
// which the decomposition does not allocate.
constexpr int kSmallRows = 32;
constexpr int kSmallDims = 16;
using SmallMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kSmallRows, kSmallDims>;
using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kSmallRows, 1>;

template <class Matrix, class Vector, class Fill>
Eigen::VectorXd leastNorm(Eigen::Index count, Eigen::Index n, const Fill& fill) {
  Matrix A = Matrix::Zero(count, n);
  Vector r(count);
  fill(A, r);
  return Eigen::CompleteOrthogonalDecomposition<Matrix>(A).solve(r);
}

}  // namespace

std::vector<double> polishIdleDimensions(const Problem& problem, const ConstraintRows& rows,
                                         std::vector<double> bw) {
  const int n = problem.dims();
  const std::vector<bool> used = problem.time.usedDims();
  const auto idle = std::count(used.begin(), used.end(), false);
  if (idle == 0 || idle == n) return bw;
  // First with the used dimensions free to grow: an interior point leaves an idle
  // dimension a little bandwidth that a used one could take (`total == B` with
  // 3.7e-9 of 40 GB/s on an idle switch made the optimum's cost 3.4e-9 above the
  // least, and the Pareto front a scan of solver noise: a case in
  // tests/data/regressions/seeds.tsv, frozen as idle-switch.json). More
  // bandwidth never slows a collective, so the time can only fall. Then, if
  // that LP fails, with them fixed.
  if (auto polished = cheapestWithUsedAtLeast(problem, rows, bw, true)) return *polished;
  if (auto polished = cheapestWithUsedAtLeast(problem, rows, bw, false)) return *polished;
  return bw;
}

std::vector<double> projectOntoConstraints(const Problem& problem, std::optional<double> costBudget,
                                           std::vector<double> bw) {
  if (problem.dims() == 0) return bw;
  return projectOntoConstraints(problem, buildRows(problem, costBudget), std::move(bw));
}

std::vector<double> projectOntoConstraints(const Problem& problem, const ConstraintRows& rows,
                                           std::vector<double> bw) {
  const int n = problem.dims();
  if (n == 0) return bw;
  Eigen::Map<const Eigen::VectorXd> x0(bw.data(), n);
  auto size = [&](const auto& row, double b) {
    return std::max({std::abs(b), row.cwiseAbs().dot(x0.cwiseAbs()), 1e-300});
  };
  // The rows to hold: the equalities and the inequalities that are tight at the
  // answer (within 1e-7 of their own scale), plus the sign bounds of the
  // dimensions at zero. An equality or a violated row is moved onto; a tight
  // inequality that holds keeps its value. (Moving it onto its bound spends its
  // slack in a direction that ignores the time: a cost row left 3e-8 below its
  // budget, as the interior point does where the time hardly depends on cost,
  // was moved onto it and made the answer 2.5e-6 slower: a case in
  // tests/data/regressions/seeds.tsv, frozen as inactive-cost-row.json.)
  std::vector<Eigen::Index> tight;  // the inequalities to hold
  for (Eigen::Index i = 0; i < rows.Ain.rows(); ++i) {
    const double r = rows.Ain.row(i).dot(x0) - rows.bin(i);
    if (r > -1e-7 * size(rows.Ain.row(i), rows.bin(i))) tight.push_back(i);
  }
  std::vector<int> atZero;
  for (int d = 0; d < n; ++d) {
    if (bw[d] <= 0) atZero.push_back(d);
  }
  const Eigen::Index me = rows.Aeq.rows();
  const auto mt = static_cast<Eigen::Index>(tight.size());
  const Eigen::Index count = me + mt + static_cast<Eigen::Index>(atZero.size());
  if (count == 0) return bw;
  // The least correction relative to each bandwidth: dx = W dz with W = diag(|x0|)
  // and dz the least-norm solution of A W dz = residual (robust to dependent rows).
  // In absolute terms a `total == B` residual would move every dimension by the
  // same amount, a large relative change to a small dimension that the time
  // depends on; so each moves in proportion to its size, and one at zero stays.
  const double top = x0.cwiseAbs().maxCoeff();
  Eigen::VectorXd weight(n);
  for (int d = 0; d < n; ++d) weight(d) = std::max(std::abs(x0(d)), 1e-12 * top);
  auto fill = [&](auto& A, auto& residual) {
    for (Eigen::Index i = 0; i < me; ++i) {
      A.row(i) = rows.Aeq.row(i).cwiseProduct(weight.transpose());
      residual(i) = rows.Aeq.row(i).dot(x0) - rows.beq(i);
    }
    for (Eigen::Index t = 0; t < mt; ++t) {
      const Eigen::Index i = tight[static_cast<std::size_t>(t)];
      A.row(me + t) = rows.Ain.row(i).cwiseProduct(weight.transpose());
      residual(me + t) = std::max(rows.Ain.row(i).dot(x0) - rows.bin(i), 0.0);
    }
    for (std::size_t z = 0; z < atZero.size(); ++z) {
      const Eigen::Index row = me + mt + static_cast<Eigen::Index>(z);
      A(row, atZero[z]) = weight(atZero[z]);
      residual(row) = bw[atZero[z]];
    }
  };
  const Eigen::VectorXd dz = count <= kSmallRows && n <= kSmallDims
                                 ? leastNorm<SmallMatrix, SmallVector>(count, n, fill)
                                 : leastNorm<Eigen::MatrixXd, Eigen::VectorXd>(count, n, fill);
  const Eigen::VectorXd x = x0 - weight.cwiseProduct(dz);
  if (!x.allFinite()) return bw;
  // Keep the projection only if it holds every row at least as well as before.
  auto worst = [&](const Eigen::VectorXd& v) {
    double w = 0;
    for (int i = 0; i < rows.Aeq.rows(); ++i) {
      w = std::max(
          w, std::abs(rows.Aeq.row(i).dot(v) - rows.beq(i)) / size(rows.Aeq.row(i), rows.beq(i)));
    }
    for (int i = 0; i < rows.Ain.rows(); ++i) {
      w = std::max(w, (rows.Ain.row(i).dot(v) - rows.bin(i)) / size(rows.Ain.row(i), rows.bin(i)));
    }
    for (int d = 0; d < n; ++d) w = std::max(w, -v(d) / std::max(std::abs(x0(d)), 1e-300));
    return w;
  };
  if (worst(x) > worst(x0)) return bw;
  return std::vector<double>(x.data(), x.data() + n);
}

CostRange costRange(const Problem& problem) {
  CostRange out;
  const int n = problem.dims();
  ConstraintRows raw = buildRows(problem, std::nullopt);
  const double scale0 = rowScale(raw);
  const ConstraintRows rows = scaledRows(std::move(raw), scale0);
  Eigen::VectorXd cost(n);
  for (int d = 0; d < n; ++d) cost(d) = problem.costPerBandwidth[d];
  lp::Result lo = lp::minimize(cost, rows.Aeq, rows.beq, rows.Ain, rows.bin, kLpTolerance);
  if (lo.status == lp::Status::Infeasible) {
    out.status = SolveStatus::Infeasible;
    out.message = "the constraints cannot all hold together";
    return out;
  }
  lp::Result hi = maximize(cost, rows);
  out.status = SolveStatus::Optimal;
  out.min = problem.fixedCostUsd + lo.value * scale0;
  out.max = hi.status == lp::Status::Unbounded ? std::numeric_limits<double>::infinity()
                                               : problem.fixedCostUsd + hi.value * scale0;
  return out;
}

}  // namespace libra::detail
