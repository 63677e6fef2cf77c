// IPOPT backend for the performance problem: the same epigraph form as the native
// solver (standard_form.hpp), handed to IPOPT with exact derivatives. Each branch
// row c_e + v_e / x_d + sum_j r_j / x_dj - t_k <= 0 is written as one list of
// reciprocal terms a / x_d (duplicate dimensions merged). It is the
// cross-check of the native solver.
//
// Sparsity: the pieces of an overlapped loop come as StandardForm's linear rows
// over (t, y, s), chains of partial sums of a few terms each, so the Jacobian
// holds O(layers + collectives) nonzeros (the whole sums, written out, held
// O(layers^2) and coupled every t of a workload). Linear rows list only their
// nonzero coefficients.
//
// IPOPT 3.11 with MUMPS keeps global state and is not thread-safe, so every call
// holds one process-wide mutex.
#include <IpIpoptApplication.hpp>
#include <IpTNLP.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "standard_form.hpp"

// IPOPT 3.11 times every step of its algorithm (IpTimedTask.hpp, always on;
// the option to turn it off came in 3.12) through these two functions of
// IpUtils.hpp, each a getrusage system call: about half of a small solve's
// time, for statistics that are never printed here (print_level 0). They are
// called through the library's PLT, so these definitions replace them in the
// process. CpuTime is also what max_cpu_time counts against; this backend
// leaves that option at its default (1e6 s) and enforces its time limit in
// wall-clock time (intermediate_callback), so a monotonic clock keeps every
// use meaningful. Same answers; 2.4x faster on a perf-per-cost solve
// (docs/validation.md, section 6).
namespace Ipopt {
Number CpuTime() {
  return std::chrono::duration<Number>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
Number SysTime() {
  return 0;
}
}  // namespace Ipopt

namespace libra::detail {

namespace {

using Ipopt::Index;
using Ipopt::Number;

class EpigraphNlp : public Ipopt::TNLP {
 public:
  EpigraphNlp(const StandardForm& f, const std::atomic<bool>* cancel,
              std::chrono::steady_clock::time_point deadline)
      : f_(f), cancel_(cancel), deadline_(deadline), edges_(f.edges), rows_(f.rows) {
    n_ = f.n;
    K_ = f.K;
    rowTerms_.resize(edges_.size());
    for (std::size_t e = 0; e < edges_.size(); ++e) {
      const auto& edge = edges_[e];
      std::map<int, double> terms;
      if (edge.v > 0) terms[edge.d] += edge.v;
      for (int j = f.serialBegin[edge.k]; j < f.serialBegin[edge.k + 1]; ++j) {
        terms[f.serial[j].d] += f.serial[j].r;
      }
      rowTerms_[e].assign(terms.begin(), terms.end());
      nnzRows_ += static_cast<Index>(rowTerms_[e].size());
    }
    A_ = f.Y + f.M();
    me_ = static_cast<int>(f.Aeq.rows());
    mi_ = static_cast<int>(f.Ain.rows());
    for (int i = 0; i < me_; ++i) linearRows_.push_back(sparseRow(f.Aeq, i));
    for (int i = 0; i < mi_; ++i) linearRows_.push_back(sparseRow(f.Ain, i));
    for (const auto& row : linearRows_) nnzLinear_ += static_cast<Index>(row.size());
    for (const auto& row : rows_) nnzAux_ += static_cast<Index>(row.terms.size());
  }

  Eigen::VectorXd solution;
  Ipopt::SolverReturn status = Ipopt::INTERNAL_ERROR;

  // Variables: x (n_), then StandardForm's z = (t, y, s). Rows: equalities,
  // inequalities, branch rows, the linear rows over z (<= -constant).
  bool get_nlp_info(Index& n, Index& m, Index& nnzJac, Index& nnzHess,
                    IndexStyleEnum& style) override {
    n = n_ + K_ + A_;
    m = me_ + mi_ + static_cast<Index>(edges_.size()) + static_cast<Index>(rows_.size());
    nnzJac = nnzLinear_ + static_cast<Index>(edges_.size()) + nnzRows_ + nnzAux_;
    nnzHess = n_;
    style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Index n, Number* xl, Number* xu, Index m, Number* gl, Number* gu) override {
    const double inf = 2e19;  // IPOPT's default "infinity"
    for (Index i = 0; i < n; ++i) {
      xl[i] = i < n_ + K_ ? 0.0 : -inf;
      xu[i] = inf;
    }
    Index r = 0;
    for (int i = 0; i < me_; ++i, ++r) gl[r] = gu[r] = f_.beq(i);
    for (int i = 0; i < mi_; ++i, ++r) {
      gl[r] = -inf;
      gu[r] = f_.bin(i);
    }
    for (std::size_t e = 0; e < edges_.size(); ++e, ++r) {
      gl[r] = 0;
      gu[r] = inf;
    }
    for (const auto& row : rows_) {
      gl[r] = -inf;
      gu[r++] = -row.constant;
    }
    return r == m;
  }

  bool get_starting_point(Index, bool initX, Number* z, bool, Number*, Number*, Index, bool,
                          Number*) override {
    if (!initX) return true;
    for (int d = 0; d < n_; ++d) z[d] = f_.start(d);
    for (int k = 0; k < K_; ++k) z[n_ + k] = 0;
    for (std::size_t e = 0; e < edges_.size(); ++e) {
      const int k = edges_[e].k;
      z[n_ + k] = std::max(z[n_ + k], rowValue(e, f_.start.data()));
    }
    for (int k = 0; k < K_; ++k) z[n_ + k] = 1.5 * z[n_ + k] + 1e-3;
    // Each auxiliary variable at the least its rows allow (earlier rows set the
    // others), the group maxima s a little above.
    for (int a = 0; a < A_; ++a) z[n_ + K_ + a] = -std::numeric_limits<double>::infinity();
    for (const auto& row : rows_) {
      double v = row.constant;
      for (const auto& [i, c] : row.terms) {
        if (i != row.target) v += c * z[n_ + i];
      }
      z[n_ + row.target] = std::max(z[n_ + row.target], v);
    }
    for (int a = 0; a < A_; ++a) {
      Number& v = z[n_ + K_ + a];
      if (!std::isfinite(v)) v = 0;
      if (a >= f_.Y) v += 0.1 * (1 + std::abs(v));
    }
    return true;
  }

  bool eval_f(Index, const Number* z, bool, Number& obj) override {
    obj = f_.constant;
    for (int k = 0; k < K_; ++k) obj += f_.linearT(k) * z[n_ + k];
    for (int g = 0; g < f_.M(); ++g) obj += f_.groupWeights[g] * z[s(g)];
    return true;
  }

  bool eval_grad_f(Index n, const Number*, bool, Number* grad) override {
    for (Index i = 0; i < n; ++i) grad[i] = 0;
    for (int k = 0; k < K_; ++k) grad[n_ + k] = f_.linearT(k);
    for (int g = 0; g < f_.M(); ++g) grad[s(g)] = f_.groupWeights[g];
    return true;
  }

  bool eval_g(Index, const Number* z, bool, Index, Number* g) override {
    Index r = 0;
    for (const auto& row : linearRows_) {
      double v = 0;
      for (const auto& [d, a] : row) v += a * z[d];
      g[r++] = v;
    }
    for (std::size_t e = 0; e < edges_.size(); ++e) g[r++] = z[n_ + edges_[e].k] - rowValue(e, z);
    for (const auto& row : rows_) {
      double v = 0;
      for (const auto& [i, c] : row.terms) v += c * z[n_ + i];
      g[r++] = v;
    }
    return true;
  }

  bool eval_jac_g(Index, const Number* z, bool, Index, Index, Index* iRow, Index* jCol,
                  Number* values) override {
    Index nz = 0;
    Index r = 0;
    if (values == nullptr) {
      auto add = [&](Index row, Index column) {
        iRow[nz] = row;
        jCol[nz++] = column;
      };
      for (const auto& row : linearRows_) {
        for (const auto& [d, a] : row) add(r, d);
        ++r;
      }
      for (std::size_t e = 0; e < edges_.size(); ++e) {
        for (const auto& [d, a] : rowTerms_[e]) add(r, d);
        add(r++, n_ + edges_[e].k);
      }
      for (const auto& row : rows_) {
        for (const auto& term : row.terms) add(r, n_ + term.first);
        ++r;
      }
      return true;
    }
    for (const auto& row : linearRows_) {
      for (const auto& [d, a] : row) values[nz++] = a;
    }
    for (const auto& terms : rowTerms_) {
      for (const auto& [d, a] : terms) values[nz++] = a / (z[d] * z[d]);
      values[nz++] = 1.0;
    }
    for (const auto& row : rows_) {
      for (const auto& term : row.terms) values[nz++] = term.second;
    }
    return true;
  }

  bool eval_h(Index, const Number* z, bool, Number, Index, const Number* lambda, bool, Index,
              Index* iRow, Index* jCol, Number* values) override {
    if (values == nullptr) {
      for (int d = 0; d < n_; ++d) {
        iRow[d] = d;
        jCol[d] = d;
      }
      return true;
    }
    for (int d = 0; d < n_; ++d) values[d] = 0;
    const Index base = me_ + mi_;
    for (std::size_t i = 0; i < edges_.size(); ++i) {
      for (const auto& [d, a] : rowTerms_[i]) {
        const double x = z[d];
        values[d] += lambda[base + i] * (-2.0 * a / (x * x * x));
      }
    }
    return true;
  }

  bool intermediate_callback(Ipopt::AlgorithmMode, Index iteration, Number, Number, Number, Number,
                             Number, Number, Number, Number, Index, const Ipopt::IpoptData*,
                             Ipopt::IpoptCalculatedQuantities*) override {
    iterations = iteration;
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) return false;
    // The time limit in wall-clock time, as the native solver counts it.
    // IPOPT's own max_cpu_time reads the process's user time, which a short
    // solve may not advance at all (it moves in scheduler ticks): a limit of
    // 1e-9 s then let IPOPT answer, on a loaded machine.
    timedOut = std::chrono::steady_clock::now() > deadline_;
    return !timedOut;
  }

  void finalize_solution(Ipopt::SolverReturn s, Index, const Number* z, const Number*,
                         const Number*, Index, const Number*, const Number*, Number,
                         const Ipopt::IpoptData*, Ipopt::IpoptCalculatedQuantities*) override {
    status = s;
    solution = Eigen::Map<const Eigen::VectorXd>(z, n_);
  }

  int iterations = 0;
  bool timedOut = false;

 private:
  using Terms = std::vector<std::pair<int, double>>;

  static Terms sparseRow(const Eigen::MatrixXd& A, int i) {
    Terms row;
    for (int d = 0; d < A.cols(); ++d) {
      if (A(i, d) != 0) row.emplace_back(d, A(i, d));
    }
    return row;
  }
  Index s(int g) const { return n_ + K_ + f_.Y + g; }
  // c_e + sum of the row's reciprocal terms (without -t_k).
  double rowValue(std::size_t e, const Number* z) const {
    double v = edges_[e].c;
    for (const auto& [d, a] : rowTerms_[e]) v += a / z[d];
    return v;
  }
  const StandardForm& f_;
  const std::atomic<bool>* cancel_;
  std::chrono::steady_clock::time_point deadline_;
  int n_ = 0, K_ = 0, A_ = 0, me_ = 0, mi_ = 0;
  const std::vector<StandardForm::Edge>& edges_;
  const std::vector<StandardForm::LinearRow>& rows_;
  std::vector<Terms> rowTerms_;    // per branch row: (d, a) of a / x_d
  std::vector<Terms> linearRows_;  // equalities, then inequalities: (d, a) of a x_d
  Index nnzRows_ = 0, nnzLinear_ = 0, nnzAux_ = 0;
};

std::mutex& ipoptMutex() {
  static std::mutex mutex;
  return mutex;
}

// What an ApplicationReturnStatus other than success means, in words a user
// can act on (IPOPT 3.11's codes, IpReturnCodes_inc.h).
std::string describeIpoptStatus(Ipopt::ApplicationReturnStatus status) {
  switch (status) {
    case Ipopt::Search_Direction_Becomes_Too_Small:
      return "IPOPT stopped: its search direction became too small (the problem is badly scaled)";
    case Ipopt::Feasible_Point_Found:
      return "IPOPT stopped at a feasible point without proving it optimal";
    case Ipopt::Restoration_Failed:
      return "IPOPT failed to restore feasibility (restoration phase failed)";
    case Ipopt::Error_In_Step_Computation:
      return "IPOPT failed to compute a step (the linear system is singular or badly scaled)";
    case Ipopt::Not_Enough_Degrees_Of_Freedom:
      return "IPOPT refused the problem: more equality constraints than free variables";
    case Ipopt::Invalid_Problem_Definition:
    case Ipopt::Invalid_Option:
      return "IPOPT refused the problem definition (internal error)";
    case Ipopt::Invalid_Number_Detected:
      return "IPOPT met a number that is not finite (an overflow in the problem's terms: check "
             "for extreme sizes or prices)";
    case Ipopt::Insufficient_Memory:
      return "IPOPT ran out of memory";
    default:
      return "IPOPT failed with an internal error (status " +
             std::to_string(static_cast<int>(status)) + ")";
  }
}

}  // namespace

BackendResult solveIpopt(const StandardForm& form, const std::atomic<bool>* cancel,
                         const SolveLimits& limits) {
  std::lock_guard<std::mutex> lock(ipoptMutex());
  const auto started = std::chrono::steady_clock::now();
  BackendResult result;
  const auto deadline =
      started +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(limits.seconds > 0 ? std::min(limits.seconds, 1e9) : 0.0));
  Ipopt::SmartPtr<EpigraphNlp> nlp = new EpigraphNlp(form, cancel, deadline);
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
  const int maxIterations = limits.iterations > 0 ? limits.iterations : 3000;
  app->Options()->SetIntegerValue("print_level", 0);
  app->Options()->SetStringValue("sb", "yes");
  app->Options()->SetNumericValue("tol", 1e-11);
  app->Options()->SetNumericValue("constr_viol_tol", 1e-11);
  app->Options()->SetNumericValue("bound_relax_factor", 0.0);
  app->Options()->SetIntegerValue("max_iter", maxIterations);
  app->Options()->SetStringValue("mu_strategy", "adaptive");
  // MUMPS's working space: IPOPT's default is 1000 % above MUMPS's own
  // estimate, megabytes allocated and released at every factorization of
  // these small systems. 5 % is enough here; where it is not, MUMPS reports it
  // and IPOPT factors again with more (IpMumpsSolverInterface). Same answers,
  // 19 % less time on the bundled example (docs/validation.md).
  app->Options()->SetIntegerValue("mumps_mem_percent", 5);
  // No options file: IPOPT would otherwise read ipopt.opt from the working
  // directory, and a stray one would change the answers (or, with a
  // print_level, write IPOPT's log into the JSON on stdout).
  if (app->Initialize(std::string()) != Ipopt::Solve_Succeeded) {
    result.message = "IPOPT failed to initialize";
    return result;
  }
  const Ipopt::ApplicationReturnStatus status = app->OptimizeTNLP(nlp);
  result.iterations = nlp->iterations;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char buffer[160];
  switch (status) {
    case Ipopt::Solve_Succeeded:
    case Ipopt::Solved_To_Acceptable_Level:
      result.status = SolveStatus::Optimal;
      result.x = nlp->solution;
      break;
    case Ipopt::User_Requested_Stop:
      if (nlp->timedOut) {
        result.status = SolveStatus::Error;
        result.limitHit = true;
        std::snprintf(buffer, sizeof buffer,
                      "IPOPT stopped after %.3g s (time limit) at iteration %d", result.seconds,
                      result.iterations);
        result.message = buffer;
      } else {
        result.status = SolveStatus::Cancelled;
        result.message = "cancelled";
      }
      break;
    case Ipopt::Infeasible_Problem_Detected:
      result.status = SolveStatus::Infeasible;
      result.message = "IPOPT found the problem infeasible";
      break;
    case Ipopt::Diverging_Iterates:
      result.status = SolveStatus::Unbounded;
      result.message = "IPOPT iterates diverged: the problem is unbounded";
      break;
    case Ipopt::Maximum_Iterations_Exceeded:
      result.status = SolveStatus::Error;
      result.limitHit = true;
      std::snprintf(buffer, sizeof buffer,
                    "IPOPT stopped after %d iteration%s (iteration limit) in %.3g s", maxIterations,
                    maxIterations == 1 ? "" : "s", result.seconds);
      result.message = buffer;
      break;
    default:
      result.status = SolveStatus::Error;
      result.message = describeIpoptStatus(status);
      break;
  }
  return result;
}

}  // namespace libra::detail
