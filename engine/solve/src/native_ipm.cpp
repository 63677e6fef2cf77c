// Native solver for the performance problem: a primal-dual interior-point method
// with Mehrotra's predictor-corrector on the epigraph form of standard_form.hpp
//
//   minimize    c't + sum_g w_g s_g
//   subject to  c_e + v_e / x_d + sum_j r_j / x_dj - t_k <= 0   for every branch e of k
//               linear rows over (t, y, s) <= 0  (the overlap loop's pieces)
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
// size n + (number of equality constraints). The serial terms r_j / x_dj are the
// same in every branch row of a collective, so they cancel from that elimination
// (it subtracts each row's weighted mean) and add only curvature and right-hand
// side terms. The cost of one iteration thus grows
// linearly in the number of distinct collectives K. With pieces (the overlap loop)
// the variables y and s of StandardForm's linear rows join t; their block is
// sparse (the rows chain partial sums of a few terms each) and is factored by a
// sparse Cholesky decomposition, so an iteration stays linear in the layers.
//
// All state lives in one InteriorPoint object per call: the solver is re-entrant.
#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include "standard_form.hpp"

namespace libra::detail {

namespace {

using Edge = StandardForm::Edge;
using LinearRow = StandardForm::LinearRow;
using Serial = StandardForm::Serial;

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

// The interior point's dense vectors and matrices. Each solve sizes and
// writes every one it reads, so their storage can outlive it: solveNative
// keeps it per thread, and a front's or a search's thousands of solves of one
// problem size allocate it once (under AddressSanitizer each allocation costs
// about as much as a Newton step of a small problem).
struct Workspace {
  Vec auxWeight_;  // the objective's weight of each auxiliary variable (y: 0, s_g: w_g)
  // Iterate: primal (x, t, s), slacks u, multipliers lambda (inequalities), nu (equalities).
  // a: the auxiliary variables (y, then s) of StandardForm's linear rows.
  Vec x_, t_, a_, u_, lambda_, nu_;
  // Residuals at the iterate, and V/x^2 per edge.
  Vec fval_, rf_, rp_, rdx_, rdt_, rda_, invX_;
  std::vector<double> slope_;
  // Serial terms: r / x^2 per term, sum r / x per collective; per collective the
  // sum of the branch rows' multipliers; a per-collective workspace.
  std::vector<double> serialSlope_;
  Vec serialValue_, rowSum_, workK_;
  // Newton system and its factorization.
  Vec scale_, htt_;
  std::vector<double> hxt_, ratio_, others_;  // per edge: H_xt, H_xt / H_tt, sum of other weights
  Mat H_, HinvAt_, S_, B_, QinvB_;
  Mat AinTScaled_;  // Ain' diag(scale) of the inequality rows
  Eigen::LLT<Mat> hFactor_, qDense_;
  Eigen::LDLT<Mat> sFactor_;
  // Direction and its workspace.
  Vec rho_, gx_, gt_, ga_, gts_, rhsX_, r1_, r2_, cx_, cnu_, dx_, dt_, da_, dnu_, g_, du_, dl_;
  Vec trialX_, trialT_, trialU_;
};

class InteriorPoint : private Workspace {
 public:
  // `conservative`: the fallback mode (see solveNative).
  InteriorPoint(const StandardForm& f, bool conservative, const SolveLimits& limits,
                Workspace&& workspace)
      : Workspace(std::move(workspace)),
        f_(f),
        conservative_(conservative),
        maxIterations_(limits.iterations > 0 ? limits.iterations : kMaxIterations),
        seconds_(limits.seconds),
        edges_(f.edges),
        edgeBegin_(f.edgeBegin),
        serial_(f.serial),
        serialBegin_(f.serialBegin),
        rows_(f.wholeRows.empty() ? f.rows : f.wholeRows) {
    n_ = f.n;
    K_ = f.K;
    denseQ_ = !f.wholeRows.empty();
    const int ys = denseQ_ ? 0 : f.Y;  // whole sums have no y
    A_ = ys + f.M();
    me_ = static_cast<int>(f.Aeq.rows());
    mi_ = static_cast<int>(f.Ain.rows());
    for (int d = 0; d < n_; ++d) {
      // Idle dimensions get a sign bound (used ones are kept positive by V / x).
      if (!f.used[d]) idle_.push_back(d);
    }
    auxWeight_ = Vec::Zero(A_);
    for (int g = 0; g < f.M(); ++g) auxWeight_(ys + g) = f.groupWeights[g];
    E_ = static_cast<int>(edges_.size());
    m_ = E_ + static_cast<int>(idle_.size()) + mi_ + static_cast<int>(rows_.size());
    separable_ = rows_.empty();
    trace_ = std::getenv("LIBRA_IPM_TRACE") != nullptr;
    if (trace_) {
      std::fprintf(stderr, "form: n %d K %d me %d mi %d idle %zu\n", n_, K_, me_, mi_,
                   idle_.size());
      for (int i = 0; i < me_; ++i) {
        for (int d = 0; d < n_; ++d) std::fprintf(stderr, " %g", f.Aeq(i, d));
        std::fprintf(stderr, " == %g\n", f.beq(i));
      }
      for (int i = 0; i < mi_; ++i) {
        for (int d = 0; d < n_; ++d) std::fprintf(stderr, " %g", f.Ain(i, d));
        std::fprintf(stderr, " <= %g\n", f.bin(i));
      }
    }
    // Workspace, sized once per solve.
    slope_.assign(E_, 0.0);
    serialSlope_.assign(serial_.size(), 0.0);
    serialValue_.resize(K_);
    rowSum_.resize(K_);
    hxt_.assign(E_, 0.0);
    ratio_.assign(E_, 0.0);
    others_.assign(E_, 0.0);
    scale_.resize(m_);
    H_.resize(n_, n_);
  }

  // The workspace, for the next solve (the object is done with).
  Workspace release() { return std::move(static_cast<Workspace&>(*this)); }

  BackendResult run(const std::atomic<bool>* cancel) {
    const auto started = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    initialize();
    BackendResult result;
    // The best iterate so far by its worst residual relative to the tolerances:
    // once the residuals reach the floor of double precision further steps can
    // only add noise, so a later stall falls back on it.
    double bestError = std::numeric_limits<double>::infinity();
    Vec bestX;
    // Iterations since the best error last fell by a tenth: within the 100x
    // floor, kStallIterations of them end the run on the best iterate. (On a
    // random problem of the sensitivity properties the dual residual sat at
    // 1.7e-9 to 2e-9 from iteration 24 to the limit of 150, its gap falling to
    // 1e-50.)
    int stagnant = 0;
    char why[200] = "";
    for (int iteration = 1; iteration <= maxIterations_; ++iteration) {
      result.iterations = iteration;
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        result.status = SolveStatus::Cancelled;
        result.message = "cancelled";
        return result;
      }
      if (iteration > 1 && elapsed() > seconds_) {
        std::snprintf(why, sizeof why,
                      "the native solver stopped after %.3g s (time limit) at iteration %d",
                      elapsed(), iteration - 1);
        result.limitHit = true;
        break;
      }
      evaluate();
      const Residuals r = residuals(iteration);
      const double error =
          std::max({r.primal / kFeasibilityTolerance, r.dual / kFeasibilityTolerance,
                    r.relativeGap / kGapTolerance});
      stagnant = error < 0.9 * bestError ? 0 : stagnant + 1;
      if (error < bestError) {
        bestError = error;
        bestX = x_;
      }
      if (error <= 1) {
        result.status = SolveStatus::Optimal;
        result.x = x_;
        result.seconds = elapsed();
        return result;
      }
      // The centring safeguard compares the largest primal residual with the
      // average complementarity. (Norms summed over tens of thousands of
      // constraints, or the dual residual of x, which sums the pull of thousands
      // of collectives, would pin sigma at its cap and halve the gap per iteration.)
      const double worst =
          std::max(rf_.lpNorm<Eigen::Infinity>(), me_ ? rp_.lpNorm<Eigen::Infinity>() : 0.0);
      // Accepted below (bestError <= kFloor), so no message.
      if (bestError <= kFloor && stagnant >= kStallIterations) break;
      if (!step(r.gap, worst)) {
        std::snprintf(why, sizeof why,
                      "the native solver stalled (relative residuals: primal %.2e, dual %.2e, "
                      "gap %.2e)",
                      r.primal, r.dual, r.relativeGap);
        break;
      }
      if (iteration == maxIterations_) {
        std::snprintf(why, sizeof why,
                      "the native solver stopped after %d iteration%s (iteration limit) in %.3g s",
                      maxIterations_, maxIterations_ == 1 ? "" : "s", elapsed());
        result.limitHit = maxIterations_ != kMaxIterations;
      }
    }
    // Within a hundred times the tolerances is as close as double precision gets
    // on badly scaled problems; beyond that the answer is not trusted.
    result.seconds = elapsed();
    if (bestError <= kFloor) {
      result.status = SolveStatus::Optimal;
      result.x = bestX;
      result.atFloor = true;
      return result;
    }
    result.status = SolveStatus::Error;
    // At a limit the caller says what IPOPT does (minimizeFixedTime).
    result.message = std::string(why) + (result.limitHit ? "" : "; try --solver ipopt");
    return result;
  }

 private:
  static constexpr int kMaxIterations = 150;
  static constexpr double kFloor = 100;  // the error accepted where the iterates stall
  static constexpr int kStallIterations = 10;
  // Relative tolerances. The primal one is per constraint row; the answer is then
  // projected onto the active rows (projectOntoConstraints), so constraints hold
  // to rounding whatever this tolerance.
  static constexpr double kFeasibilityTolerance = 1e-9;
  static constexpr double kGapTolerance = 1e-11;

  // The residuals of the iterate, relative to the size of what they are made of:
  // the primal ones against the iterate and right-hand sides (V/x - t + u cancels
  // terms as large as t), the dual one against its largest term (lambda_e V/x^2;
  // IPOPT scales its dual error alike), the gap against the objective.
  struct Residuals {
    double gap, relativeGap, primal, dual;
  };
  Residuals residuals(int iteration) const {
    Residuals r{};
    r.gap = lambda_.dot(u_);
    r.primal = primalError();
    // The dual residual per variable (the max-norm, as IPOPT measures it): a
    // 2-norm over the auxiliary variables of thousands of overlap pieces
    // grows with their square root and sat above the tolerance at 1e-11 each.
    r.dual = std::max({rdx_.lpNorm<Eigen::Infinity>(), rdt_.lpNorm<Eigen::Infinity>(),
                       A_ ? rda_.lpNorm<Eigen::Infinity>() : 0.0}) /
             dualScale();
    r.relativeGap = r.gap / std::max(1.0, std::abs(objective()));
    if (trace_) {
      std::fprintf(stderr, "ipm %3d gap %.3e primal %.3e dual %.3e x", iteration, r.relativeGap,
                   r.primal, r.dual);
      for (int d = 0; d < n_; ++d) std::fprintf(stderr, " %.6g", x_(d));
      std::fprintf(stderr, "\n");
    }
    return r;
  }

  // The primal residual, relative to the size of what it is made of: every linear
  // row (equality, inequality, idle bound) against its own terms |b_i| and
  // sum_j |a_ij x_j|, so that each constraint holds to 1e-10 of its own scale
  // (a `bw[d3] == 1` beside a `total == 600`); the epigraph rows V/x - t + u
  // against t, which they cancel.
  double primalError() const {
    // Rows whose terms all vanish (x_d == 0) are measured against a small
    // fraction of the largest bandwidth instead.
    const double floor = std::max(1e-4 * x_.cwiseAbs().maxCoeff(), 1e-300);
    double linear = 0;
    for (int i = 0; i < me_; ++i) {
      const double size =
          std::max({std::abs(f_.beq(i)), f_.Aeq.row(i).cwiseAbs().dot(x_.cwiseAbs()), floor});
      linear = std::max(linear, std::abs(rp_(i)) / size);
    }
    int i = E_;
    for (int d : idle_) {
      linear = std::max(linear, std::abs(rf_(i)) / std::max({std::abs(x_(d)), u_(i), floor}));
      ++i;
    }
    for (int r = 0; r < mi_; ++r, ++i) {
      const double size = std::max(
          {std::abs(f_.bin(r)), f_.Ain.row(r).cwiseAbs().dot(x_.cwiseAbs()), u_(i), floor});
      linear = std::max(linear, std::abs(rf_(i)) / size);
    }
    double epigraphScale = 1.0;
    if (K_) epigraphScale = std::max(epigraphScale, t_.cwiseAbs().maxCoeff());
    if (A_) epigraphScale = std::max(epigraphScale, a_.cwiseAbs().maxCoeff());
    const double epigraph =
        std::max(E_ ? rf_.head(E_).lpNorm<Eigen::Infinity>() : 0.0,
                 rows_.empty()
                     ? 0.0
                     : rf_.tail(static_cast<int>(rows_.size())).lpNorm<Eigen::Infinity>()) /
        epigraphScale;
    return std::max(linear, epigraph);
  }

  // Largest |f_e + u_e| over the branch rows (u: the current slacks unless given).
  double epigraphResidual(const Vec& x, const Vec& t, const Vec* u = nullptr) const {
    const Vec& slack = u ? *u : u_;
    double worst = 0;
    for (int k = 0; k < K_; ++k) {
      const double common = f_.serialValue(k, x.data()) - t(k);
      for (int e = edgeBegin_[k]; e < edgeBegin_[k + 1]; ++e) {
        worst = std::max(worst, std::abs(f_.branchValue(edges_[e], x.data()) + common + slack(e)));
      }
    }
    return worst;
  }

  // Per collective, sum over its branch rows of w_e.
  void sumPerCollective(const Vec& w, Vec& out) const {
    out.setZero(K_);
    for (int e = 0; e < E_; ++e) out(edges_[e].k) += w(e);
  }

  // The size of the terms of the dual residual: the objective's gradient and the
  // largest multiplier times its constraint's gradient.
  double dualScale() const {
    double scale = 1.0;
    if (K_) scale = std::max(scale, f_.linearT.cwiseAbs().maxCoeff());
    if (A_) scale = std::max(scale, auxWeight_.cwiseAbs().maxCoeff());
    for (int e = 0; e < E_; ++e) scale = std::max(scale, lambda_(e) * slope_[e]);
    for (int k = 0; k < K_; ++k) {
      for (int j = serialBegin_[k]; j < serialBegin_[k + 1]; ++j) {
        scale = std::max(scale, rowSum_(k) * serialSlope_[j]);
      }
    }
    return scale;
  }

  // The scaled objective at the iterate (c't + w's).
  double objective() const {
    double v = f_.linearT.dot(t_);
    if (A_) v += auxWeight_.dot(a_);
    return v;
  }

  // z_i: t_i for i < K, else the auxiliary a_(i - K).
  double zValue(int i, const Vec& t, const Vec& a) const { return i < K_ ? t(i) : a(i - K_); }
  double rowValue(const LinearRow& r, const Vec& t, const Vec& a) const {
    double v = r.constant;
    for (const auto& [i, c] : r.terms) v += c * zValue(i, t, a);
    return v;
  }

  // f_i(z) for every inequality; layout: edges, idle dimensions, linear rows, pieces.
  void constraintValues(Vec& f) const {
    f.resize(m_);
    int i = 0;
    for (const Edge& e : edges_) {
      f(i++) = e.c + e.v * invX_(e.d) + serialValue_(e.k) - t_(e.k);
    }
    for (int d : idle_) f(i++) = -x_(d);
    if (mi_) {
      f.segment(i, mi_).noalias() = f_.Ain * x_;
      f.segment(i, mi_) -= f_.bin;
      i += mi_;
    }
    for (const LinearRow& r : rows_) f(i++) = rowValue(r, t_, a_);
  }

  // invX_, serial values and slopes at x_.
  void updateReciprocals() {
    invX_ = x_.cwiseInverse();
    for (int k = 0; k < K_; ++k) {
      double v = 0;
      for (int j = serialBegin_[k]; j < serialBegin_[k + 1]; ++j) {
        const double ix = invX_(serial_[j].d);
        v += serial_[j].r * ix;
        serialSlope_[j] = serial_[j].r * ix * ix;  // -d/dx of r / x
      }
      serialValue_(k) = v;
    }
  }

  void initialize() {
    x_ = f_.start;
    updateReciprocals();
    t_.resize(K_);
    for (int k = 0; k < K_; ++k) {
      double worst = 0;
      for (int e = edgeBegin_[k]; e < edgeBegin_[k + 1]; ++e) {
        worst = std::max(worst, f_.branchValue(edges_[e], x_.data()));
      }
      t_(k) = 1.1 * (worst + serialValue_(k));
    }
    // Each auxiliary variable at the least its rows allow (rows come in an
    // order where the others are set), then the group maxima s_g a little
    // above: the slacks need not be positive at the start (u = max(-f, 1e-2)).
    a_ = Vec::Constant(A_, -std::numeric_limits<double>::infinity());
    for (const LinearRow& r : rows_) {
      double v = r.constant;
      for (const auto& [i, c] : r.terms) {
        if (i != r.target) v += c * zValue(i, t_, a_);
      }
      a_(r.target - K_) = std::max(a_(r.target - K_), v);
    }
    for (int j = 0; j < A_; ++j) {
      if (!std::isfinite(a_(j))) a_(j) = 0;
      if (auxWeight_(j) > 0) a_(j) += 0.1 * (1 + std::abs(a_(j)));
    }
    constraintValues(fval_);
    u_ = (-fval_).cwiseMax(1e-2);
    // Multipliers that roughly balance the objective's pull on t.
    lambda_ = Vec::Constant(m_, 1.0);
    for (int k = 0; k < K_; ++k) {
      const int count = edgeBegin_[k + 1] - edgeBegin_[k];
      for (int e = edgeBegin_[k]; e < edgeBegin_[k + 1]; ++e) {
        lambda_(e) = std::max(f_.linearT(k) / count, 1e-2);
      }
    }
    lambda_ = lambda_.cwiseMax(1e-2 * u_.cwiseInverse());
    nu_ = Vec::Zero(me_);
    sumPerCollective(lambda_, rowSum_);
  }

  // Residuals at the current point: dual (x, t, s blocks), r_f = f + u, primal Aeq.
  void evaluate() {
    updateReciprocals();
    sumPerCollective(lambda_, rowSum_);
    for (int e = 0; e < E_; ++e) {
      const double ix = invX_(edges_[e].d);
      slope_[e] = edges_[e].v * ix * ix;  // -d f_e / d x_d
    }
    constraintValues(fval_);
    rf_ = fval_ + u_;
    if (me_) {
      rp_.noalias() = f_.Aeq * x_;
      rp_ -= f_.beq;
    }
    rdx_.setZero(n_);
    if (me_) rdx_.noalias() += f_.Aeq.transpose() * nu_;
    rdt_ = f_.linearT;
    rda_ = auxWeight_;
    addGradients(lambda_, rdx_, rdt_, rda_);
  }

  // Adds sum_i w_i grad f_i(z) to the blocks.
  void addGradients(const Vec& w, Vec& gx, Vec& gt, Vec& ga) {
    int i = 0;
    for (const Edge& e : edges_) {
      gx(e.d) -= w(i) * slope_[i];
      gt(e.k) -= w(i);
      ++i;
    }
    if (!serial_.empty()) {
      sumPerCollective(w, workK_);
      for (int k = 0; k < K_; ++k) {
        for (int j = serialBegin_[k]; j < serialBegin_[k + 1]; ++j) {
          gx(serial_[j].d) -= workK_(k) * serialSlope_[j];
        }
      }
    }
    for (int d : idle_) gx(d) -= w(i++);
    if (mi_) {
      gx.noalias() += f_.Ain.transpose() * w.segment(i, mi_);
      i += mi_;
    }
    for (const LinearRow& r : rows_) {
      for (const auto& [j, c] : r.terms) (j < K_ ? gt(j) : ga(j - K_)) += w(i) * c;
      ++i;
    }
  }

  // grad f_i . dz for every inequality.
  void directional(Vec& out) {
    out.resize(m_);
    serialDirectional(dx_, workK_);
    int i = 0;
    for (const Edge& e : edges_) {
      out(i) = -slope_[i] * dx_(e.d) - workK_(e.k) - dt_(e.k);
      ++i;
    }
    for (int d : idle_) out(i++) = -dx_(d);
    if (mi_) {
      out.segment(i, mi_).noalias() = f_.Ain * dx_;
      i += mi_;
    }
    for (const LinearRow& r : rows_) {
      double v = 0;
      for (const auto& [j, c] : r.terms) v += c * zValue(j, dt_, da_);
      out(i++) = v;
    }
  }

  // Per collective, sum_j (r_j / x_dj^2) dx_dj: minus the serial part of grad f_e . dx.
  void serialDirectional(const Vec& dx, Vec& out) const {
    out.setZero(K_);
    for (int k = 0; k < K_; ++k) {
      for (int j = serialBegin_[k]; j < serialBegin_[k + 1]; ++j) {
        out(k) += serialSlope_[j] * dx(serial_[j].d);
      }
    }
  }

  // Where each triplet's value is in `m`'s value array (`m` compressed, made
  // from them).
  static std::vector<Eigen::Index> slotsOf(const Eigen::SparseMatrix<double>& m,
                                           const std::vector<Eigen::Triplet<double>>& triplets) {
    std::vector<Eigen::Index> slots(triplets.size());
    const int* inner = m.innerIndexPtr();
    const int* outer = m.outerIndexPtr();
    for (std::size_t t = 0; t < triplets.size(); ++t) {
      const int col = triplets[t].col();
      slots[t] =
          std::lower_bound(inner + outer[col], inner + outer[col + 1], triplets[t].row()) - inner;
    }
    return slots;
  }

  // Q = diag(H_tt) + sum over the rows of w g g' (g: the row's terms), sparse;
  // the rows' weights start at scale_(i).
  bool factorSparseQ(int i) {
    const int nts = K_ + A_;
    triplets_.clear();
    for (int k = 0; k < K_; ++k) triplets_.emplace_back(k, k, htt_(k));
    for (int a = K_; a < nts; ++a) triplets_.emplace_back(a, a, 0.0);  // a fixed pattern
    for (const LinearRow& r : rows_) {
      const double w = scale_(i++);
      for (const auto& [j1, c1] : r.terms) {
        for (const auto& [j2, c2] : r.terms) {
          if (j1 >= j2) triplets_.emplace_back(j1, j2, w * c1 * c2);
        }
      }
    }
    if (!qAnalyzed_) {
      Q_.resize(nts, nts);
      Q_.setFromTriplets(triplets_.begin(), triplets_.end());
      Q_.makeCompressed();
      qSlots_ = slotsOf(Q_, triplets_);
      qFactor_.analyzePattern(Q_);
      qAnalyzed_ = true;
    } else {
      // The same triplets in the same order every iteration: only the values
      // change, summed into their entries in the order setFromTriplets sums them.
      std::fill(Q_.valuePtr(), Q_.valuePtr() + Q_.nonZeros(), 0.0);
      for (std::size_t t = 0; t < triplets_.size(); ++t) {
        Q_.valuePtr()[qSlots_[t]] += triplets_[t].value();
      }
    }
    // Near the optimum the active rows' weights grow without bound beside
    // the others', and rounding can make Q numerically indefinite: shift its
    // diagonal slightly until it factors (as H below).
    qFactor_.factorize(Q_);
    if (qFactor_.info() != Eigen::Success) {
      double top = 1e-300;
      for (int k = 0; k < Q_.outerSize(); ++k) top = std::max(top, std::abs(Q_.coeff(k, k)));
      Eigen::SparseMatrix<double> shifted;
      for (double shift = 1e-14; qFactor_.info() != Eigen::Success; shift *= 100) {
        if (shift > 1e-4) {
          if (trace_) std::fprintf(stderr, "ipm: Q not positive definite\n");
          return false;
        }
        shifted = Q_;
        for (int k = 0; k < shifted.outerSize(); ++k) shifted.coeffRef(k, k) += shift * top;
        qFactor_.factorize(shifted);
      }
    }
    return true;
  }

  // Factors the reduced Newton matrix at the current point.
  bool factor() {
    scale_ = lambda_.cwiseQuotient(u_);  // lambda_i / u_i
    const int rowsBegin = assembleCurvature();
    if (separable_) {
      eliminateEpigraph();
    } else if (!eliminatePieces(rowsBegin)) {
      return false;
    }
    return factorReduced();
  }

  // H_ (the x block: curvature, and the branch rows' outer products unless t is
  // eliminated in closed form), htt_ and hxt_ at the current point. Returns the
  // index of the first linear row (the overlap loop's pieces).
  int assembleCurvature() {
    H_.setZero();
    htt_.setZero(K_);
    int i = 0;
    for (const Edge& e : edges_) {
      H_(e.d, e.d) +=
          lambda_(i) * 2.0 * slope_[i] * invX_(e.d);  // lambda d2f/dx2 = 2 lambda V / x^3
      // Without pieces, the (d, k) coupling is eliminated in closed form
      // (eliminateEpigraph).
      if (!separable_) H_(e.d, e.d) += scale_(i) * slope_[i] * slope_[i];
      htt_(e.k) += scale_(i);
      hxt_[i] = scale_(i) * slope_[i];  // scale * (df/dx) * (df/dt) = scale * (-slope) * (-1)
      ++i;
    }
    // Curvature of the serial terms, 2 r / x^3 times the sum of the rows' multipliers.
    for (int k = 0; k < K_; ++k) {
      for (int j = serialBegin_[k]; j < serialBegin_[k + 1]; ++j) {
        const int d = serial_[j].d;
        H_(d, d) += rowSum_(k) * 2.0 * serialSlope_[j] * invX_(d);
      }
    }
    for (int d : idle_) H_(d, d) += scale_(i++);
    if (mi_) {
      AinTScaled_.noalias() = f_.Ain.transpose() * scale_.segment(i, mi_).asDiagonal();
      H_.noalias() += AinTScaled_ * f_.Ain;
      i += mi_;
    }
    return i;
  }

  // Eliminates t_k from the branch rows of each collective (no pieces).
  void eliminateEpigraph() {
    // Eliminating t_k from the edges e of collective k (weights w_e = lambda/u,
    // slopes a_e = V/x^2, W = sum w) adds M = diag(w a^2) - (w a)(w a)' / W.
    // Formed directly, its diagonal w a^2 - (w a)^2 / W cancels catastrophically
    // once one w reaches 1e10 near the optimum; written with the exact sum of
    // the other weights, M_ee = w_e a_e^2 (W - w_e) / W, it does not. The
    // off-diagonal part -v v' (v = w a / sqrt(W)) is accumulated in the upper
    // triangle only and mirrored once.
    for (int k = 0; k < K_; ++k) {
      const int begin = edgeBegin_[k], end = edgeBegin_[k + 1];
      const double inv = 1.0 / htt_(k);
      for (int e = begin; e < end; ++e) ratio_[e] = hxt_[e] * inv;
      if (end - begin < 2) continue;
      double prefix = 0;
      for (int e = begin; e < end; ++e) {
        others_[e] = prefix;
        prefix += scale_(e);
      }
      double suffix = 0;
      for (int e = end - 1; e >= begin; --e) {
        others_[e] += suffix;
        suffix += scale_(e);
      }
      for (int a = begin; a < end; ++a) {
        const int da = edges_[a].d;
        H_(da, da) += scale_(a) * slope_[a] * slope_[a] * others_[a] * inv;
        const double va = hxt_[a] * inv;  // w_a a_a / W
        for (int b = a + 1; b < end; ++b) {
          // Edges of a collective are in increasing d, so (da, db) is upper.
          H_(da, edges_[b].d) -= va * hxt_[b];
        }
      }
    }
    H_.triangularView<Eigen::StrictlyLower>() = H_.transpose();
  }

  // Eliminates t and the pieces' auxiliary variables through their block Q (the
  // pieces' rows start at index i): H_ -= B' Q^-1 B.
  bool eliminatePieces(int i) {
    const int nts = K_ + A_;
    if (denseQ_) {
      // Whole sums (no y): Q = diag(H_tt) + sum over the rows of w g g', dense.
      Mat Q = Mat::Zero(nts, nts);
      for (int k = 0; k < K_; ++k) Q(k, k) = htt_(k);
      for (const LinearRow& r : rows_) {
        const double w = scale_(i++);
        for (const auto& [j1, c1] : r.terms) {
          for (const auto& [j2, c2] : r.terms) Q(j1, j2) += w * c1 * c2;
        }
      }
      qDense_.compute(Q);
      if (qDense_.info() != Eigen::Success) return false;
    } else if (!factorSparseQ(i)) {
      return false;
    }
    B_ = Mat::Zero(nts, n_);
    for (int e = 0; e < E_; ++e) B_(edges_[e].k, edges_[e].d) += hxt_[e];
    // The serial slopes sigma_k are in every branch row of k: grad_x f_e =
    // -(slope_e e_d + sigma_k), so sum_e w_e grad f_e grad f_e' adds
    // sum_e w_e slope_e (e_d sigma' + sigma e_d') + W_k sigma sigma' to H and
    // W_k sigma to B's row of t_k.
    for (int k = 0; k < K_; ++k) {
      const int begin = serialBegin_[k], end = serialBegin_[k + 1];
      if (begin == end) continue;
      const double W = htt_(k);
      for (int a = begin; a < end; ++a) {
        const int da = serial_[a].d;
        B_(k, da) += W * serialSlope_[a];
        for (int b = begin; b < end; ++b) {
          H_(da, serial_[b].d) += W * serialSlope_[a] * serialSlope_[b];
        }
        for (int e = edgeBegin_[k]; e < edgeBegin_[k + 1]; ++e) {
          const double c = hxt_[e] * serialSlope_[a];
          H_(edges_[e].d, da) += c;
          H_(da, edges_[e].d) += c;
        }
      }
    }
    QinvB_ = denseQ_ ? Mat(qDense_.solve(B_)) : Mat(qFactor_.solve(B_));
    H_.noalias() -= B_.transpose() * QinvB_;
    return true;
  }

  // Factors H_ (shifted where rounding makes it indefinite) and the Schur
  // complement of the equality rows.
  bool factorReduced() {
    // [H Aeq'; Aeq 0] by Schur complement: H is positive definite (every used
    // dimension has the curvature 2 lambda V / x^3 of its collectives, every idle
    // one the barrier term), so factor H, then S = Aeq H^-1 Aeq'. Near the optimum
    // H can be so ill-conditioned (an active cost row adds a rank-one term 1e10
    // times larger than the curvature of the others) that rounding makes it
    // numerically indefinite: then shift its diagonal slightly until the Cholesky
    // factorization succeeds; iterative refinement in direction() solves the
    // unshifted system. S is only semidefinite when equality rows are redundant;
    // a tiny diagonal shift keeps its factorization defined.
    hFactor_.compute(H_);
    if (hFactor_.info() != Eigen::Success) {
      const double top = std::max(H_.diagonal().cwiseAbs().maxCoeff(), 1e-300);
      Mat shifted;
      for (double shift = 1e-14; hFactor_.info() != Eigen::Success; shift *= 100) {
        if (shift > 1e-4) {
          if (trace_) std::fprintf(stderr, "ipm: H not positive definite\n");
          return false;
        }
        shifted = H_;
        shifted.diagonal().array() += shift * top;
        hFactor_.compute(shifted);
      }
    }
    if (me_) {
      HinvAt_ = f_.Aeq.transpose();
      hFactor_.solveInPlace(HinvAt_);
      S_.noalias() = f_.Aeq * HinvAt_;
      S_.diagonal().array() += 1e-13 * (1.0 + S_.diagonal().cwiseAbs().maxCoeff());
      sFactor_.compute(S_);
      if (sFactor_.info() != Eigen::Success) {
        if (trace_) std::fprintf(stderr, "ipm: S factorization failed\n");
        return false;
      }
    }
    return true;
  }

  // Solves for the direction (dx_, dt_, ds_, dnu_) given rho_ (see step()).
  bool direction() {
    // rhs = -(grad f0 + Aeq' nu + sum_i rho_i grad f_i), block by block.
    gx_.setZero(n_);
    gt_ = f_.linearT;
    ga_ = auxWeight_;
    if (me_) gx_.noalias() += f_.Aeq.transpose() * nu_;
    addGradients(rho_, gx_, gt_, ga_);
    rhsX_ = -gx_;
    if (separable_) {
      for (int e = 0; e < E_; ++e) rhsX_(edges_[e].d) += ratio_[e] * gt_(edges_[e].k);
      // B's serial part is W_k sigma_k, and W_k / H_tt = 1.
      for (int k = 0; k < K_; ++k) {
        for (int j = serialBegin_[k]; j < serialBegin_[k + 1]; ++j) {
          rhsX_(serial_[j].d) += serialSlope_[j] * gt_(k);
        }
      }
    } else {
      gts_.resize(K_ + A_);
      gts_ << gt_, ga_;
      gts_ = denseQ_ ? Vec(qDense_.solve(gts_)) : Vec(qFactor_.solve(gts_));  // now Q^-1 g_ts
      rhsX_.noalias() += B_.transpose() * gts_;
    }
    // H dx + Aeq' dnu = rhsX, Aeq dx = -rp: dnu = S^-1 (Aeq H^-1 rhsX + rp). Late
    // in the solve H is ill-conditioned (lambda/u of active constraints grows
    // without bound), so iterative refinement on the full system recovers the
    // digits the Schur complement loses.
    r1_ = rhsX_;
    if (me_) r2_ = -rp_;
    dx_.setZero(n_);
    dnu_.setZero(me_);
    const double target =
        1e-14 * (rhsX_.lpNorm<Eigen::Infinity>() + (me_ ? rp_.lpNorm<Eigen::Infinity>() : 0.0)) +
        1e-300;
    for (int refinement = 0; refinement < 3; ++refinement) {
      if (refinement > 0 && std::max(r1_.lpNorm<Eigen::Infinity>(),
                                     me_ ? r2_.lpNorm<Eigen::Infinity>() : 0.0) <= target) {
        break;
      }
      cx_ = r1_;
      hFactor_.solveInPlace(cx_);  // H^-1 r1
      if (me_) {
        cnu_.noalias() = f_.Aeq * cx_;
        cnu_ -= r2_;
        sFactor_.solveInPlace(cnu_);
        cx_.noalias() -= HinvAt_ * cnu_;
        dnu_ += cnu_;
      }
      dx_ += cx_;
      r1_ = rhsX_;
      r1_.noalias() -= H_ * dx_;
      if (me_) {
        r1_.noalias() -= f_.Aeq.transpose() * dnu_;
        r2_ = -rp_;
        r2_.noalias() -= f_.Aeq * dx_;
      }
    }
    if (!dx_.allFinite() || !dnu_.allFinite()) return false;
    if (separable_) {
      dt_ = -gt_;
      for (int e = 0; e < E_; ++e) dt_(edges_[e].k) -= hxt_[e] * dx_(edges_[e].d);
      if (!serial_.empty()) {
        serialDirectional(dx_, workK_);
        dt_.array() -= htt_.array() * workK_.array();
      }
      dt_.array() /= htt_.array();
      da_.resize(0);
    } else {
      // gts_ holds Q^-1 g_ts: d(t, s) = -(Q^-1 g_ts + Q^-1 B dx).
      Vec dts = -gts_;
      dts.noalias() -= QinvB_ * dx_;
      dt_ = dts.head(K_);
      da_ = dts.tail(A_);
    }
    return true;
  }

  // Largest step in (0, 1] keeping u and lambda positive.
  double maxStep() const {
    double a = 1.0;
    for (int i = 0; i < m_; ++i) {
      if (du_(i) < 0) a = std::min(a, -u_(i) / du_(i));
      if (dl_(i) < 0) a = std::min(a, -lambda_(i) / dl_(i));
    }
    // V/x is far from linear near x = 0: a used dimension may shrink by at most
    // a fixed factor per step, or the linearized model overshoots and iterates
    // bounce (measured on the 4D GPT-3 problem: 54 iterations without the limit,
    // 13 to 14 with any factor from 0.3 to 0.9).
    constexpr double shrink = 0.5;
    for (int d = 0; d < n_; ++d) {
      if (f_.used[d] && dx_(d) < 0) a = std::min(a, -shrink * x_(d) / dx_(d));
    }
    return a;
  }

  // du = -r_f - grad f . dz, dlambda = (lambda/u) (grad f . dz) + rho - lambda.
  void slackAndMultiplierSteps() {
    directional(g_);
    du_ = -rf_ - g_;
    dl_ = scale_.cwiseProduct(g_) + rho_ - lambda_;
  }

  bool step(double gap, double infeasibility) {
    if (!factor()) return false;
    const double mu = gap / m_;
    // Predictor (affine scaling): rho_i = lambda_i r_f,i / u_i.
    rho_ = scale_.cwiseProduct(rf_);
    if (!direction()) return false;
    slackAndMultiplierSteps();
    const double aAff = maxStep();
    const double muAff = (u_ + aAff * du_).dot(lambda_ + aAff * dl_) / m_;
    // Mehrotra's centring, but complementarity must not run far ahead of
    // feasibility or the iterates stall against the boundary.
    double sigma = std::max(std::pow(std::clamp(muAff / mu, 0.0, 1.0), 3),
                            std::min(0.5, 0.1 * infeasibility / mu));
    if (conservative_) sigma = std::max(sigma, 0.3);
    // Corrector: centre towards sigma*mu with the second-order term du_aff*dl_aff:
    // rho_i = (lambda_i r_f,i + sigma mu - du_i dl_i) / u_i.
    rho_ =
        (lambda_.cwiseProduct(rf_) - (conservative_ ? 0.0 : 1.0) * du_.cwiseProduct(dl_)).array() +
        sigma * mu;
    rho_.array() /= u_.array();
    if (!direction()) return false;
    slackAndMultiplierSteps();
    double a = std::min(1.0, (conservative_ ? 0.9 : 0.995) * maxStep());
    // V/x is convex, so a full step always leaves a residual in the epigraph rows
    // (the linearization error). When bandwidths differ by orders of magnitude
    // that error can exceed what the step fixed, and the iterates drift: shorten
    // the step while it would multiply the epigraph residual by more than 10.
    const double before = epigraphResidual(x_, t_);
    for (int halving = 0; halving < 6 && E_ > 0; ++halving) {
      trialX_ = x_ + a * dx_;
      trialT_ = t_ + a * dt_;
      trialU_ = u_ + a * du_;
      if (epigraphResidual(trialX_, trialT_, &trialU_) <=
          10 * before + 1e-14 * t_.cwiseAbs().maxCoeff())
        break;
      a *= 0.5;
    }
    if (trace_) std::fprintf(stderr, "    aAff %.3e sigma %.3e step %.3e\n", aAff, sigma, a);
    if (!(a > 1e-14)) {
      if (trace_) std::fprintf(stderr, "ipm: step %.3e too short\n", a);
      return false;
    }
    x_ += a * dx_;
    t_ += a * dt_;
    if (A_) a_ += a * da_;
    nu_ += a * dnu_;
    u_ += a * du_;
    lambda_ += a * dl_;
    return true;
  }

  const StandardForm& f_;
  bool conservative_ = false;
  int maxIterations_ = kMaxIterations;
  double seconds_ = 0;
  int n_ = 0, K_ = 0, A_ = 0, me_ = 0, mi_ = 0, m_ = 0, E_ = 0;
  bool separable_ = true;
  bool trace_ = false;
  const std::vector<Edge>& edges_;     // k-major (see StandardForm::edges)
  const std::vector<int>& edgeBegin_;  // edges of k are [edgeBegin_[k], edgeBegin_[k+1])
  const std::vector<Serial>& serial_;  // serial terms of k: [serialBegin_[k], serialBegin_[k+1])
  const std::vector<int>& serialBegin_;
  const std::vector<LinearRow>& rows_;
  std::vector<int> idle_;
  bool denseQ_ = false;  // StandardForm's whole sums, their (t, s) block factored densely
  // The (t, y, s) block with pieces: sparse, its pattern analyzed once per solve.
  Eigen::SparseMatrix<double> Q_;
  std::vector<Eigen::Triplet<double>> triplets_;
  Eigen::SimplicialLLT<Eigen::SparseMatrix<double>, Eigen::Lower> qFactor_;
  bool qAnalyzed_ = false;
  std::vector<Eigen::Index> qSlots_;  // each triplet's entry in Q_'s values
};

}  // namespace

namespace {

// One run of the interior point on this thread's workspace.
BackendResult runInteriorPoint(const StandardForm& form, bool conservative,
                               const SolveLimits& limits, const std::atomic<bool>* cancel) {
  thread_local Workspace spare;
  InteriorPoint ipm(form, conservative, limits, std::move(spare));
  BackendResult result = ipm.run(cancel);
  spare = ipm.release();
  return result;
}

}  // namespace

BackendResult solveNative(const StandardForm& form, const std::atomic<bool>* cancel,
                          const SolveLimits& limits) {
  BackendResult result = runInteriorPoint(form, false, limits, cancel);
  if (result.limitHit || (result.status == SolveStatus::Optimal && !result.atFloor)) return result;
  // Mehrotra's aggressive steps can lose their way on degenerate or badly scaled
  // problems (a bottleneck fixed by an equality with slack everywhere else,
  // collectives 1e7 apart in size). Run once more with steady centring (sigma
  // >= 0.3), no second-order correction and shorter steps: slower, but it keeps
  // feasibility and complementarity in step.
  SolveLimits rest = limits;
  rest.seconds = std::max(0.0, limits.seconds - result.seconds);
  BackendResult retry = runInteriorPoint(form, true, rest, cancel);
  retry.iterations += result.iterations;
  retry.seconds += result.seconds;
  if (result.status == SolveStatus::Optimal) {
    // An answer within the floor: the retry replaces it only where it meets
    // the tolerances.
    if (retry.status == SolveStatus::Optimal && !retry.atFloor) return retry;
    result.iterations = retry.iterations;
    result.seconds = retry.seconds;
    return result;
  }
  return retry.status == SolveStatus::Error ? result : retry;
}

}  // namespace libra::detail
