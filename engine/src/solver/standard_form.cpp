#include "standard_form.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "../text.hpp"
#include "lp.hpp"

namespace libra::detail {

namespace {

constexpr double kLpTolerance = 1e-9;

struct Rows {
  Eigen::MatrixXd Aeq, Ain;
  Eigen::VectorXd beq, bin;
  std::vector<std::string> eqText, inText;
};

void appendRow(Eigen::MatrixXd& A, Eigen::VectorXd& b, const Eigen::RowVectorXd& row, double rhs) {
  A.conservativeResize(A.rows() + 1, row.size());
  b.conservativeResize(b.size() + 1);
  A.row(A.rows() - 1) = row;
  b(b.size() - 1) = rhs;
}

Rows buildRows(const Problem& problem, std::optional<double> costBudget, double bwScale) {
  const int n = problem.dims();
  Rows rows;
  rows.Aeq.resize(0, n);
  rows.Ain.resize(0, n);
  auto add = [&](const std::vector<double>& coef, Relation rel, double rhs,
                 const std::string& text) {
    Eigen::RowVectorXd row(n);
    for (int d = 0; d < n; ++d) row(d) = coef[d];
    const double scale = row.cwiseAbs().maxCoeff();
    if (scale == 0) return;
    row /= scale;
    rhs /= scale * bwScale;
    if (rel == Relation::Equal) {
      appendRow(rows.Aeq, rows.beq, row, rhs);
      rows.eqText.push_back(text);
    } else {
      if (rel == Relation::GreaterEqual) {
        row = -row;
        rhs = -rhs;
      }
      appendRow(rows.Ain, rows.bin, row, rhs);
      rows.inText.push_back(text);
    }
  };
  for (const auto& c : problem.constraints) add(c.coefficients, c.relation, c.rhs, c.text);
  if (costBudget) {
    add(problem.costPerBandwidth, Relation::LessEqual, *costBudget,
        "cost <= " + text::formatNumber(*costBudget));
  }
  return rows;
}

// The scale of bandwidths suggested by the constraints' right-hand sides.
double roughScale(const Problem& problem) {
  std::vector<double> values;
  for (const auto& c : problem.constraints) {
    const double m =
        *std::max_element(c.coefficients.begin(), c.coefficients.end(),
                          [](double a, double b) { return std::abs(a) < std::abs(b); });
    if (m != 0 && c.rhs != 0) values.push_back(std::abs(c.rhs / m));
  }
  if (values.empty()) return 1;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

lp::Result maximize(const Eigen::VectorXd& objective, const Rows& rows) {
  lp::Result r = lp::minimize(-objective, rows.Aeq, rows.beq, rows.Ain, rows.bin, kLpTolerance);
  r.value = -r.value;
  return r;
}

bool feasible(const Rows& rows, int n) {
  return lp::minimize(Eigen::VectorXd::Zero(n), rows.Aeq, rows.beq, rows.Ain, rows.bin,
                      kLpTolerance)
             .status != lp::Status::Infeasible;
}

// A smallest set of constraints that cannot hold together (deletion filter).
std::string conflictingConstraints(const Rows& all, int n) {
  std::vector<bool> keepEq(all.eqText.size(), true), keepIn(all.inText.size(), true);
  auto subset = [&]() {
    Rows r;
    r.Aeq.resize(0, n);
    r.Ain.resize(0, n);
    for (std::size_t i = 0; i < keepEq.size(); ++i) {
      if (keepEq[i]) appendRow(r.Aeq, r.beq, all.Aeq.row(i), all.beq(i));
    }
    for (std::size_t i = 0; i < keepIn.size(); ++i) {
      if (keepIn[i]) appendRow(r.Ain, r.bin, all.Ain.row(i), all.bin(i));
    }
    return r;
  };
  for (std::size_t i = 0; i < keepEq.size(); ++i) {
    keepEq[i] = false;
    if (feasible(subset(), n)) keepEq[i] = true;
  }
  for (std::size_t i = 0; i < keepIn.size(); ++i) {
    keepIn[i] = false;
    if (feasible(subset(), n)) keepIn[i] = true;
  }
  std::string out;
  auto append = [&](const std::string& t) { out += (out.empty() ? "'" : ", '") + t + "'"; };
  for (std::size_t i = 0; i < keepEq.size(); ++i) {
    if (keepEq[i]) append(all.eqText[i]);
  }
  for (std::size_t i = 0; i < keepIn.size(); ++i) {
    if (keepIn[i]) append(all.inText[i]);
  }
  return out;
}

std::string joinNames(const Problem& problem, const std::vector<int>& dims) {
  std::string out;
  for (int d : dims) out += (out.empty() ? "'" : ", '") + problem.dimNames[d] + "'";
  return out;
}

bool satisfies(const Rows& rows, const Eigen::VectorXd& x) {
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

Presolved presolve(const Problem& problem, std::optional<double> costBudget,
                   const std::vector<double>* warmStart) {
  Presolved out;
  const int n = problem.dims();
  const TimeModel& time = problem.time;
  std::vector<bool> used = time.usedDims();
  std::vector<int> usedList;
  for (int d = 0; d < n; ++d) {
    if (used[d]) usedList.push_back(d);
  }

  const double scale0 = roughScale(problem);
  const Rows rows = buildRows(problem, costBudget, scale0);

  if (!feasible(rows, n)) {
    out.status = SolveStatus::Infeasible;
    out.message = "the constraints cannot all hold together: " + conflictingConstraints(rows, n) +
                  "; relax or remove one of them";
    return out;
  }

  Eigen::VectorXd cost(n);
  for (int d = 0; d < n; ++d) cost(d) = problem.costPerBandwidth[d];
  if (cost.maxCoeff() > 0) cost /= cost.maxCoeff();

  if (usedList.empty()) {
    // No collective moves data: the time does not depend on bandwidth. Report the
    // cheapest feasible point.
    lp::Result r = lp::minimize(cost, rows.Aeq, rows.beq, rows.Ain, rows.bin, kLpTolerance);
    if (r.status != lp::Status::Optimal)
      r = lp::minimize(Eigen::VectorXd::Zero(n), rows.Aeq, rows.beq, rows.Ain, rows.bin,
                       kLpTolerance);
    out.status = SolveStatus::Optimal;
    out.trivialSolution = r.x * scale0;
    return out;
  }

  // Every dimension that carries traffic must be able to have bandwidth: maximize
  // the smallest of their bandwidths (variables x and z, z <= x_d).
  {
    Rows withZ;
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
    lp::Result r = maximize(objective, withZ);
    if (r.status == lp::Status::Unbounded) {
      out.status = SolveStatus::Unbounded;
      out.message = "nothing limits the bandwidth of " + joinNames(problem, usedList) +
                    ": the iteration time keeps falling as bandwidth grows; add a budget such as "
                    "'total == 500' or 'cost <= 1e8'";
      return out;
    }
    if (r.status != lp::Status::Optimal || r.value <= kLpTolerance * 10) {
      std::vector<int> zero;
      for (int d : usedList) {
        Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
        e(d) = 1;
        lp::Result m = maximize(e, rows);
        if (m.status == lp::Status::Optimal && m.value <= kLpTolerance * 10) zero.push_back(d);
      }
      out.status = SolveStatus::Infeasible;
      out.message = "dimension" + std::string(zero.size() > 1 ? "s " : " ") +
                    joinNames(problem, zero) + (zero.size() > 1 ? " carry" : " carries") +
                    " traffic, but the constraints" +
                    (costBudget ? std::string(" and the cost budget") : std::string()) +
                    " leave no bandwidth for " + (zero.size() > 1 ? "them" : "it") +
                    "; relax a bound or raise the budget";
      return out;
    }
    out.form.start = r.x.head(n);
  }

  // Bounded? Dimensions that carry traffic must be; the others get a generous
  // artificial bound so the interior-point iterations stay finite.
  std::vector<int> unboundedUsed, unboundedIdle;
  Rows finalRows = rows;
  {
    lp::Result r = maximize(Eigen::VectorXd::Ones(n), rows);
    if (r.status == lp::Status::Unbounded) {
      for (int d = 0; d < n; ++d) {
        Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
        e(d) = 1;
        if (maximize(e, rows).status == lp::Status::Unbounded) {
          (used[d] ? unboundedUsed : unboundedIdle).push_back(d);
        }
      }
    } else if (r.status == lp::Status::Optimal) {
      out.form.start = 0.5 * (out.form.start + r.x);
    }
  }
  if (!unboundedUsed.empty()) {
    out.status = SolveStatus::Unbounded;
    out.message = "nothing limits the bandwidth of " + joinNames(problem, unboundedUsed) +
                  ", which carr" + (unboundedUsed.size() > 1 ? "y" : "ies") +
                  " traffic; add a budget such as 'total == 500' or 'cost <= 1e8'";
    return out;
  }
  const double cap = 1e3 * std::max(1.0, out.form.start.maxCoeff());
  for (int d : unboundedIdle) {
    Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
    row(d) = 1;
    appendRow(finalRows.Ain, finalRows.bin, row, cap);
    finalRows.inText.push_back("artificial bound");
  }
  // A dimension without traffic that the constraints force to 0 (bw[1] <= 0)
  // leaves no interior for its sign bound: fix it by an equality instead.
  std::vector<bool> fixedZero(n, false);
  for (int d = 0; d < n; ++d) {
    if (used[d] ||
        std::find(unboundedIdle.begin(), unboundedIdle.end(), d) != unboundedIdle.end()) {
      continue;
    }
    Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
    e(d) = 1;
    const lp::Result r = maximize(e, rows);
    if (r.status == lp::Status::Optimal && r.value <= kLpTolerance * 10) {
      fixedZero[d] = true;
      appendRow(finalRows.Aeq, finalRows.beq, e.transpose(), 0.0);
      finalRows.eqText.push_back("fixed at zero");
    }
  }

  // Warm start: use the given point when it is feasible, pulled slightly towards
  // the LP point so that it is not on the boundary.
  if (warmStart && static_cast<int>(warmStart->size()) == n) {
    Eigen::VectorXd w(n);
    for (int d = 0; d < n; ++d) w(d) = (*warmStart)[d] / scale0;
    bool positive = true;
    for (int d : usedList) positive = positive && w(d) > 0;
    if (positive && satisfies(finalRows, w)) out.form.start = 0.9 * w + 0.1 * out.form.start;
  }

  // Rescale so the start point has entries of order one.
  const double s = std::max(out.form.start.maxCoeff(), 1e-300);
  StandardForm& f = out.form;
  f.n = n;
  f.used = used;
  f.fixedZero = fixedZero;
  f.time = &time;
  f.bwScale = scale0 * s;
  f.start /= s;
  // Linearly dependent equality rows (the same budget written twice, a fixed
  // bandwidth that also follows from the others) make the KKT system singular;
  // the LP above found the rows consistent, so the independent ones suffice.
  if (finalRows.Aeq.rows() > 1) {
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(finalRows.Aeq.transpose());
    qr.setThreshold(1e-10);
    const Eigen::Index rank = qr.rank();
    if (rank < finalRows.Aeq.rows()) {
      std::vector<int> keep(qr.colsPermutation().indices().data(),
                            qr.colsPermutation().indices().data() + rank);
      std::sort(keep.begin(), keep.end());
      Eigen::MatrixXd A(rank, n);
      Eigen::VectorXd b(rank);
      for (Eigen::Index i = 0; i < rank; ++i) {
        A.row(i) = finalRows.Aeq.row(keep[i]);
        b(i) = finalRows.beq(keep[i]);
      }
      finalRows.Aeq = A;
      finalRows.beq = b;
    }
  }
  f.Aeq = finalRows.Aeq;
  f.beq = finalRows.beq / s;
  f.Ain = finalRows.Ain;
  f.bin = finalRows.bin / s;
  // Tiny positive values for idle dimensions so the barrier is defined.
  for (int d = 0; d < n; ++d) f.start(d) = std::max(f.start(d), 1e-6);

  // Collectives whose traffic vectors are proportional (V_k = alpha V_j, e.g.
  // tensor-parallel AllReduces of different sizes over one group) have
  // proportional times, tau_k = alpha tau_j: they share one epigraph variable.
  const int K = time.collectiveCount();
  std::vector<int> representative(K);
  std::vector<double> factor(K, 1.0);
  std::vector<int> kept;  // original index of each merged collective
  {
    std::map<std::vector<long long>, int> directions;
    std::vector<double> tops(K);
    for (int k = 0; k < K; ++k) {
      const auto& v = time.traffic[k];
      tops[k] = *std::max_element(v.begin(), v.end());
      std::vector<long long> key(n);
      for (int d = 0; d < n; ++d) key[d] = std::llround(v[d] / tops[k] * 1e12);
      auto [it, inserted] = directions.try_emplace(key, static_cast<int>(kept.size()));
      if (inserted) kept.push_back(k);
      representative[k] = it->second;
    }
    // The largest collective of each direction represents it, so every factor is
    // <= 1 and the shared epigraph variable keeps the scale of the collective that
    // dominates (a 1 kB stand-in for a 7 GB collective wrecks the scaling).
    for (int k = 0; k < K; ++k) {
      int& r = kept[representative[k]];
      if (tops[k] > tops[r]) r = k;
    }
    for (int k = 0; k < K; ++k) factor[k] = tops[k] / tops[kept[representative[k]]];
  }
  const int merged = static_cast<int>(kept.size());
  f.V.resize(merged, n);
  for (int r = 0; r < merged; ++r) {
    for (int d = 0; d < n; ++d) f.V(r, d) = time.traffic[kept[r]][d] / f.bwScale;
  }
  auto mergeTerms = [&](const std::vector<std::pair<int, double>>& terms) {
    std::map<int, double> out;
    for (const auto& [k, w] : terms) out[representative[k]] += w * factor[k];
    return std::vector<std::pair<int, double>>(out.begin(), out.end());
  };
  // Time scale: the communication part of the objective at the start point.
  std::vector<double> startBw(n);
  for (int d = 0; d < n; ++d) startBw[d] = f.start(d) * f.bwScale;
  std::vector<double> tau(K);
  for (int k = 0; k < K; ++k) tau[k] = time.collectiveTime(k, startBw);
  double comm = 0;
  for (const auto& g : time.groups) {
    double worst = 0;
    for (const auto& p : g.pieces) {
      double v = 0;
      for (const auto& [k, w] : p.terms) v += w * tau[k];
      worst = std::max(worst, v);
    }
    comm += g.weight * worst;
  }
  f.timeScale = comm > 0 && std::isfinite(comm) ? comm : 1.0;
  f.V /= f.timeScale;
  f.linearT = Eigen::VectorXd::Zero(merged);
  for (const auto& g : time.groups) {
    if (g.pieces.size() == 1) {
      f.constant += g.weight * g.pieces[0].constantNs / f.timeScale;
      for (const auto& [k, w] : g.pieces[0].terms) {
        f.linearT(representative[k]) += g.weight * w * factor[k];
      }
    } else if (g.pieces.size() > 1) {
      const int group = static_cast<int>(f.groupWeights.size());
      f.groupWeights.push_back(g.weight);
      for (const auto& p : g.pieces) {
        f.pieces.push_back({group, p.constantNs / f.timeScale, mergeTerms(p.terms)});
      }
    }
  }
  f.edgeBegin.assign(merged + 1, 0);
  for (int k = 0; k < merged; ++k) {
    f.edgeBegin[k] = static_cast<int>(f.edges.size());
    for (int d = 0; d < n; ++d) {
      if (f.V(k, d) > 0) f.edges.push_back({k, d, f.V(k, d)});
    }
  }
  f.edgeBegin[merged] = static_cast<int>(f.edges.size());
  out.status = SolveStatus::Optimal;
  return out;
}

std::vector<double> polishIdleDimensions(const Problem& problem, std::optional<double> costBudget,
                                         std::vector<double> bw) {
  const int n = problem.dims();
  const std::vector<bool> used = problem.time.usedDims();
  std::vector<int> idle;
  for (int d = 0; d < n; ++d) {
    if (!used[d]) idle.push_back(d);
  }
  if (idle.empty() || static_cast<int>(idle.size()) == n) return bw;
  const Rows rows = buildRows(problem, costBudget, 1.0);
  const int m = static_cast<int>(idle.size());
  Rows reduced;
  reduced.Aeq.resize(0, m);
  reduced.Ain.resize(0, m);
  auto reduce = [&](const Eigen::MatrixXd& A, const Eigen::VectorXd& b, Eigen::MatrixXd& outA,
                    Eigen::VectorXd& outB) {
    for (int i = 0; i < A.rows(); ++i) {
      Eigen::RowVectorXd row(m);
      double rhs = b(i);
      for (int d = 0; d < n; ++d) {
        if (used[d]) rhs -= A(i, d) * bw[d];
      }
      for (int j = 0; j < m; ++j) row(j) = A(i, idle[j]);
      // Rows without idle dimensions hold already (up to the solver's tolerance).
      if (row.cwiseAbs().maxCoeff() > 0) appendRow(outA, outB, row, rhs);
    }
  };
  reduce(rows.Aeq, rows.beq, reduced.Aeq, reduced.beq);
  reduce(rows.Ain, rows.bin, reduced.Ain, reduced.bin);
  Eigen::VectorXd price(m);
  for (int j = 0; j < m; ++j) price(j) = problem.costPerBandwidth[idle[j]];
  if (!(price.maxCoeff() > 0)) price.setOnes();  // no prices: least bandwidth
  const lp::Result r = lp::minimize(
      price, reduced.Aeq, reduced.beq, reduced.Ain, reduced.bin,
      kLpTolerance * std::max(1.0, reduced.beq.size() ? reduced.beq.cwiseAbs().maxCoeff() : 1.0));
  if (r.status != lp::Status::Optimal) return bw;
  for (int j = 0; j < m; ++j) bw[idle[j]] = r.x(j);
  return bw;
}

std::vector<double> projectOntoConstraints(const Problem& problem, std::optional<double> costBudget,
                                           std::vector<double> bw) {
  const int n = problem.dims();
  if (n == 0) return bw;
  const Rows rows = buildRows(problem, costBudget, 1.0);
  Eigen::Map<const Eigen::VectorXd> x0(bw.data(), n);
  auto size = [&](const Eigen::RowVectorXd& row, double b) {
    return std::max({std::abs(b), row.cwiseAbs().dot(x0.cwiseAbs()), 1e-300});
  };
  // The rows to hold with equality: the equalities and the inequalities that are
  // tight at the answer (within 1e-7 of their own scale), plus the sign bounds of
  // the dimensions at zero.
  std::vector<Eigen::RowVectorXd> active;
  std::vector<double> rhs;
  for (int i = 0; i < rows.Aeq.rows(); ++i) {
    active.push_back(rows.Aeq.row(i));
    rhs.push_back(rows.beq(i));
  }
  for (int i = 0; i < rows.Ain.rows(); ++i) {
    if (rows.Ain.row(i).dot(x0) - rows.bin(i) > -1e-7 * size(rows.Ain.row(i), rows.bin(i))) {
      active.push_back(rows.Ain.row(i));
      rhs.push_back(rows.bin(i));
    }
  }
  for (int d = 0; d < n; ++d) {
    if (bw[d] <= 0) {
      Eigen::RowVectorXd row = Eigen::RowVectorXd::Zero(n);
      row(d) = 1;
      active.push_back(row);
      rhs.push_back(0);
    }
  }
  if (active.empty()) return bw;
  Eigen::MatrixXd A(active.size(), n);
  Eigen::VectorXd b(active.size());
  for (std::size_t i = 0; i < active.size(); ++i) {
    A.row(i) = active[i];
    b(i) = rhs[i];
  }
  // Least-norm correction: x = x0 - A^+ (A x0 - b), robust to dependent rows.
  const Eigen::VectorXd residual = A * x0 - b;
  const Eigen::VectorXd x = x0 - A.completeOrthogonalDecomposition().solve(residual);
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
  const double scale0 = roughScale(problem);
  const Rows rows = buildRows(problem, std::nullopt, scale0);
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
  out.min = lo.value * scale0;
  out.max = hi.status == lp::Status::Unbounded ? std::numeric_limits<double>::infinity()
                                               : hi.value * scale0;
  return out;
}

}  // namespace libra::detail
