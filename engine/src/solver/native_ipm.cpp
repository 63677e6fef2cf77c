// Native solver for the performance problem: a primal-dual interior-point method
// with Mehrotra's predictor-corrector on the epigraph form
//
//   minimize    c't + sum_g w_g s_g + r'x
//   subject to  V_kd / x_d - t_k <= 0            for every (k, d) with V_kd > 0
//               a_j + W_j't - s_g <= 0            for every piece j of group g
//               Ain x - bin <= 0,  -x_d <= 0 (dimensions without traffic)
//               Aeq x == beq.
//
// Why this method: the problem is convex and smooth in this form, with few
// bandwidth variables (the dimensions) and possibly many epigraph variables (one
// per distinct collective). An active-set method would have to guess which
// dimension is the bottleneck of each collective (a combinatorial choice); the
// interior point needs no guess and converges in a few dozen iterations whatever
// the problem size. Every inequality f_i(z) <= 0 gets a slack, f_i(z) + u_i = 0
// with u_i >= 0, as in IPOPT and CVXOPT: the barrier acts on the slacks only, so
// no iterate has to satisfy the nonlinear constraints (they hold at convergence),
// and the start needs no phase I. Infeasibility and unboundedness are decided
// before this runs, by the LP presolve (standard_form.cpp).
//
// Linear algebra: the Newton system's block for t is diagonal (for the no-overlap
// and recompute loops), so t is eliminated in O(K n^2), leaving a dense system of
// size n + (number of equality constraints). The cost of one iteration thus grows
// linearly in the number of distinct collectives K. With pieces (the overlap loop)
// the (t, s) block is dense and factored with a Cholesky decomposition.
//
// All state lives in one InteriorPoint object per call: the solver is re-entrant.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "standard_form.hpp"

namespace libra::detail {

namespace {

struct Edge {  // one (k, d) with V_kd > 0
  int k;
  int d;
  double v;
};

struct PieceRef {
  int group;
  double constant;
  const std::vector<std::pair<int, double>>* terms;
};

class InteriorPoint {
 public:
  explicit InteriorPoint(const StandardForm& f) : f_(f) {
    n_ = f.n;
    K_ = static_cast<int>(f.V.rows());
    M_ = static_cast<int>(f.pieceGroups.size());
    me_ = static_cast<int>(f.Aeq.rows());
    mi_ = static_cast<int>(f.Ain.rows());
    for (int k = 0; k < K_; ++k) {
      for (int d = 0; d < n_; ++d) {
        if (f.V(k, d) > 0) edges_.push_back({k, d, f.V(k, d)});
      }
    }
    for (int d = 0; d < n_; ++d) {
      if (!f.used[d]) idle_.push_back(d);
    }
    for (int g = 0; g < M_; ++g) {
      const auto& pg = f.pieceGroups[g];
      for (std::size_t j = 0; j < pg.constants.size(); ++j) {
        pieces_.push_back({g, pg.constants[j], &pg.terms[j]});
      }
    }
    groupWeight_.resize(M_);
    for (int g = 0; g < M_; ++g) groupWeight_(g) = f.pieceGroups[g].weight;
    E_ = static_cast<int>(edges_.size());
    m_ = E_ + static_cast<int>(idle_.size()) + mi_ + static_cast<int>(pieces_.size());
    trace_ = std::getenv("LIBRA_IPM_TRACE") != nullptr;
  }

  BackendResult run(const std::atomic<bool>* cancel) {
    initialize();
    BackendResult result;
    for (int iteration = 1; iteration <= kMaxIterations; ++iteration) {
      result.iterations = iteration;
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        result.status = SolveStatus::Cancelled;
        result.message = "cancelled";
        return result;
      }
      evaluate();
      const double gap = lambda_.dot(u_);
      const double primal = std::sqrt(rf_.squaredNorm() + rp_.squaredNorm());
      const double dual = std::sqrt(rdx_.squaredNorm() + rdt_.squaredNorm() + rds_.squaredNorm());
      if (trace_) {
        std::fprintf(stderr, "ipm %3d gap %.3e primal %.3e dual %.3e x", iteration, gap, primal,
                     dual);
        for (int d = 0; d < n_; ++d) std::fprintf(stderr, " %.6g", x_(d));
        std::fprintf(stderr, "\n");
      }
      if (primal <= kFeasibilityTolerance && dual <= kFeasibilityTolerance &&
          gap <= kGapTolerance) {
        result.status = SolveStatus::Optimal;
        result.x = x_;
        return result;
      }
      if (!step(gap, primal + dual)) {
        if (primal <= 1e-8 && dual <= 1e-7 && gap <= 1e-8) {
          result.status = SolveStatus::Optimal;  // as close as double precision allows
          result.x = x_;
          return result;
        }
        result.status = SolveStatus::Error;
        char buffer[200];
        std::snprintf(buffer, sizeof buffer,
                      "the native solver stalled (primal residual %.2e, dual residual %.2e, "
                      "gap %.2e); try --solver ipopt",
                      primal, dual, gap);
        result.message = buffer;
        return result;
      }
    }
    result.status = SolveStatus::Error;
    result.message = "the native solver did not converge in " + std::to_string(kMaxIterations) +
                     " iterations; try --solver ipopt";
    return result;
  }

 private:
  static constexpr int kMaxIterations = 150;
  static constexpr double kFeasibilityTolerance = 1e-10;
  static constexpr double kGapTolerance = 1e-11;

  // Inequality layout: edges, idle dimensions, linear rows, pieces.
  int idleBase() const { return E_; }
  int rowBase() const { return E_ + static_cast<int>(idle_.size()); }
  int pieceBase() const { return rowBase() + mi_; }

  double pieceValue(const PieceRef& p, const Eigen::VectorXd& t) const {
    double v = p.constant;
    for (const auto& [k, w] : *p.terms) v += w * t(k);
    return v;
  }

  // f_i(z) for every inequality.
  void constraintValues(const Eigen::VectorXd& x, const Eigen::VectorXd& t,
                        const Eigen::VectorXd& s, Eigen::VectorXd& f) const {
    f.resize(m_);
    int i = 0;
    for (const Edge& e : edges_) f(i++) = e.v / x(e.d) - t(e.k);
    for (int d : idle_) f(i++) = -x(d);
    if (mi_) {
      f.segment(i, mi_) = f_.Ain * x - f_.bin;
      i += mi_;
    }
    for (const auto& p : pieces_) f(i++) = pieceValue(p, t) - s(p.group);
  }

  void initialize() {
    x_ = f_.start;
    t_.resize(K_);
    for (int k = 0; k < K_; ++k) {
      double worst = 0;
      for (int d = 0; d < n_; ++d) {
        if (f_.V(k, d) > 0) worst = std::max(worst, f_.V(k, d) / x_(d));
      }
      t_(k) = 1.1 * worst;
    }
    s_ = Eigen::VectorXd::Constant(M_, -std::numeric_limits<double>::infinity());
    for (const auto& p : pieces_) s_(p.group) = std::max(s_(p.group), pieceValue(p, t_));
    for (int g = 0; g < M_; ++g) s_(g) += 0.1 * (1 + std::abs(s_(g)));
    Eigen::VectorXd f;
    constraintValues(x_, t_, s_, f);
    u_.resize(m_);
    for (int i = 0; i < m_; ++i) u_(i) = std::max(-f(i), 1e-2);
    // Multipliers that roughly balance the objective's pull on t.
    lambda_ = Eigen::VectorXd::Constant(m_, 1.0);
    for (int i = 0; i < E_; ++i) {
      const int k = edges_[i].k;
      int count = 0;
      for (const Edge& e : edges_) count += e.k == k;
      lambda_(i) = std::max(f_.linearT(k) / count, 1e-2);
    }
    for (int i = 0; i < m_; ++i) lambda_(i) = std::max(lambda_(i), 1e-2 / u_(i));
    nu_ = Eigen::VectorXd::Zero(me_);
  }

  // Residuals at the current point: dual (x, t, s blocks), r_f = f + u, primal Aeq.
  void evaluate() {
    constraintValues(x_, t_, s_, fval_);
    rf_ = fval_ + u_;
    rp_ = me_ ? Eigen::VectorXd(f_.Aeq * x_ - f_.beq) : Eigen::VectorXd();
    rdx_ = f_.regularization;
    if (me_) rdx_.noalias() += f_.Aeq.transpose() * nu_;
    rdt_ = f_.linearT;
    rds_ = groupWeight_;
    addGradients(lambda_, rdx_, rdt_, rds_);
  }

  // Adds sum_i w_i grad f_i(z) to the blocks.
  void addGradients(const Eigen::VectorXd& w, Eigen::VectorXd& gx, Eigen::VectorXd& gt,
                    Eigen::VectorXd& gs) const {
    int i = 0;
    for (const Edge& e : edges_) {
      gx(e.d) -= w(i) * e.v / (x_(e.d) * x_(e.d));
      gt(e.k) -= w(i);
      ++i;
    }
    for (int d : idle_) gx(d) -= w(i++);
    if (mi_) {
      gx.noalias() += f_.Ain.transpose() * w.segment(i, mi_);
      i += mi_;
    }
    for (const auto& p : pieces_) {
      for (const auto& [k, wk] : *p.terms) gt(k) += w(i) * wk;
      gs(p.group) -= w(i);
      ++i;
    }
  }

  // grad f_i . dz for every inequality.
  void directional(const Eigen::VectorXd& dx, const Eigen::VectorXd& dt, const Eigen::VectorXd& ds,
                   Eigen::VectorXd& out) const {
    out.resize(m_);
    int i = 0;
    for (const Edge& e : edges_) out(i++) = -e.v / (x_(e.d) * x_(e.d)) * dx(e.d) - dt(e.k);
    for (int d : idle_) out(i++) = -dx(d);
    if (mi_) {
      out.segment(i, mi_) = f_.Ain * dx;
      i += mi_;
    }
    for (const auto& p : pieces_) {
      double v = -ds(p.group);
      for (const auto& [k, w] : *p.terms) v += w * dt(k);
      out(i++) = v;
    }
  }

  // Factors the reduced Newton matrix at the current point.
  bool factor() {
    const Eigen::VectorXd scale = lambda_.cwiseQuotient(u_);  // lambda_i / u_i
    Eigen::VectorXd hxx = Eigen::VectorXd::Zero(n_);
    htt_ = Eigen::VectorXd::Zero(K_);
    hxt_.resize(E_);
    int i = 0;
    for (const Edge& e : edges_) {
      const double x = x_(e.d);
      const double dfx = -e.v / (x * x);
      hxx(e.d) += lambda_(i) * 2.0 * e.v / (x * x * x) + scale(i) * dfx * dfx;
      htt_(e.k) += scale(i);
      hxt_[i] = -scale(i) * dfx;  // scale * dfx * dft, dft = -1
      ++i;
    }
    for (int d : idle_) hxx(d) += scale(i++);
    Eigen::MatrixXd H = hxx.asDiagonal();
    if (mi_) {
      H.noalias() += f_.Ain.transpose() * scale.segment(i, mi_).asDiagonal() * f_.Ain;
      i += mi_;
    }
    separable_ = pieces_.empty();
    if (separable_) {
      // Edges of one collective are contiguous (k-major order).
      for (int e = 0; e < E_;) {
        const int k = edges_[e].k;
        int end = e;
        while (end < E_ && edges_[end].k == k) ++end;
        const double inv = 1.0 / htt_(k);
        for (int a = e; a < end; ++a) {
          for (int b = e; b < end; ++b) H(edges_[a].d, edges_[b].d) -= hxt_[a] * hxt_[b] * inv;
        }
        e = end;
      }
    } else {
      const int nts = K_ + M_;
      Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(nts, nts);
      for (int k = 0; k < K_; ++k) Q(k, k) = htt_(k);
      for (const auto& p : pieces_) {
        const double w = scale(i++);
        const int sg = K_ + p.group;
        for (const auto& [k1, w1] : *p.terms) {
          for (const auto& [k2, w2] : *p.terms) Q(k1, k2) += w * w1 * w2;
          Q(k1, sg) -= w * w1;
          Q(sg, k1) -= w * w1;
        }
        Q(sg, sg) += w;
      }
      B_ = Eigen::MatrixXd::Zero(nts, n_);
      for (int e = 0; e < E_; ++e) B_(edges_[e].k, edges_[e].d) += hxt_[e];
      qFactor_.compute(Q);
      if (qFactor_.info() != Eigen::Success) return false;
      QinvB_ = qFactor_.solve(B_);
      H.noalias() -= B_.transpose() * QinvB_;
    }
    const int N = n_ + me_;
    Eigen::MatrixXd KKT = Eigen::MatrixXd::Zero(N, N);
    KKT.topLeftCorner(n_, n_) = H;
    if (me_) {
      KKT.block(n_, 0, me_, n_) = f_.Aeq;
      KKT.block(0, n_, n_, me_) = f_.Aeq.transpose();
    }
    lu_.compute(KKT);
    return true;
  }

  // Solves for the direction given rho_i (see step()). Returns false on failure.
  bool direction(const Eigen::VectorXd& rho, Eigen::VectorXd& dx, Eigen::VectorXd& dt,
                 Eigen::VectorXd& ds, Eigen::VectorXd& dnu) const {
    // rhs = -(grad f0 + Aeq' nu + sum_i rho_i grad f_i), block by block.
    Eigen::VectorXd gx = f_.regularization, gt = f_.linearT, gs = groupWeight_;
    if (me_) gx.noalias() += f_.Aeq.transpose() * nu_;
    addGradients(rho, gx, gt, gs);
    Eigen::VectorXd rhsX = -gx;
    Eigen::VectorXd QinvG;
    if (separable_) {
      for (int e = 0; e < E_; ++e) rhsX(edges_[e].d) += hxt_[e] * gt(edges_[e].k) / htt_(edges_[e].k);
    } else {
      Eigen::VectorXd gts(K_ + M_);
      gts << gt, gs;
      QinvG = qFactor_.solve(gts);
      rhsX.noalias() += B_.transpose() * QinvG;
    }
    Eigen::VectorXd rhs(n_ + me_);
    rhs.head(n_) = rhsX;
    if (me_) rhs.tail(me_) = -rp_;
    const Eigen::VectorXd sol = lu_.solve(rhs);
    if (!sol.allFinite()) return false;
    dx = sol.head(n_);
    dnu = sol.tail(me_);
    if (separable_) {
      dt = -gt;
      for (int e = 0; e < E_; ++e) dt(edges_[e].k) -= hxt_[e] * dx(edges_[e].d);
      dt = dt.cwiseQuotient(htt_);
      ds.resize(0);
    } else {
      const Eigen::VectorXd dts = -(QinvG + QinvB_ * dx);
      dt = dts.head(K_);
      ds = dts.tail(M_);
    }
    return true;
  }

  // Largest step in (0, 1] keeping u, lambda and the used x strictly positive.
  double maxStep(const Eigen::VectorXd& du, const Eigen::VectorXd& dl, const Eigen::VectorXd& dx) const {
    double a = 1.0;
    for (int i = 0; i < m_; ++i) {
      if (du(i) < 0) a = std::min(a, -u_(i) / du(i));
      if (dl(i) < 0) a = std::min(a, -lambda_(i) / dl(i));
    }
    for (const Edge& e : edges_) {
      if (dx(e.d) < 0) a = std::min(a, -x_(e.d) / dx(e.d));
    }
    return a;
  }

  bool step(double gap, double infeasibility) {
    if (!factor()) return false;
    const double mu = gap / m_;
    const Eigen::VectorXd scale = lambda_.cwiseQuotient(u_);
    Eigen::VectorXd dx, dt, ds, dnu, g, du, dl;
    // Predictor (affine scaling): rho_i = lambda_i r_f,i / u_i.
    Eigen::VectorXd rho = scale.cwiseProduct(rf_);
    if (!direction(rho, dx, dt, ds, dnu)) return false;
    directional(dx, dt, ds, g);
    du = -rf_ - g;
    dl = scale.cwiseProduct(g) + rho - lambda_;
    const double aAff = maxStep(du, dl, dx);
    const double muAff =
        (u_ + aAff * du).dot(lambda_ + aAff * dl) / m_;
    // Mehrotra's centring, but complementarity must not run far ahead of
    // feasibility or the iterates stall against the boundary.
    const double sigma = std::max(std::pow(std::clamp(muAff / mu, 0.0, 1.0), 3),
                                  std::min(0.5, 0.1 * infeasibility / mu));
    // Corrector: centre towards sigma*mu with the second-order term du_aff*dl_aff.
    // rho_i = (lambda_i r_f,i + sigma mu - du_i dl_i) / u_i.
    const Eigen::VectorXd target = (Eigen::VectorXd::Constant(m_, sigma * mu) - du.cwiseProduct(dl));
    rho = (lambda_.cwiseProduct(rf_) + target).cwiseQuotient(u_);
    if (!direction(rho, dx, dt, ds, dnu)) return false;
    directional(dx, dt, ds, g);
    du = -rf_ - g;
    dl = scale.cwiseProduct(g) + rho - lambda_;
    double a = std::min(1.0, 0.995 * maxStep(du, dl, dx));
    if (!(a > 1e-14)) return false;
    x_ += a * dx;
    t_ += a * dt;
    if (M_) s_ += a * ds;
    nu_ += a * dnu;
    u_ += a * du;
    lambda_ += a * dl;
    return true;
  }

  const StandardForm& f_;
  int n_ = 0, K_ = 0, M_ = 0, me_ = 0, mi_ = 0, m_ = 0, E_ = 0;
  bool trace_ = false;
  std::vector<Edge> edges_;
  std::vector<int> idle_;
  std::vector<PieceRef> pieces_;
  Eigen::VectorXd groupWeight_;
  // Factorization of the current Newton matrix.
  bool separable_ = true;
  Eigen::VectorXd htt_;
  std::vector<double> hxt_;
  Eigen::MatrixXd B_, QinvB_;
  Eigen::LLT<Eigen::MatrixXd> qFactor_;
  Eigen::FullPivLU<Eigen::MatrixXd> lu_;
  // Iterate: primal (x, t, s), slacks u, multipliers lambda (inequalities), nu (equalities).
  Eigen::VectorXd x_, t_, s_, u_, lambda_, nu_;
  // Residuals at the iterate.
  Eigen::VectorXd fval_, rf_, rp_, rdx_, rdt_, rds_;
};

}  // namespace

BackendResult solveNative(const StandardForm& form, const std::atomic<bool>* cancel) {
  InteriorPoint ipm(form);
  return ipm.run(cancel);
}

}  // namespace libra::detail
