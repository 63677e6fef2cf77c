// IPOPT backend for the performance problem: the same epigraph form as the native
// solver (standard_form.hpp), handed to IPOPT with exact derivatives. Each branch
// row c_e + v_e / x_d + sum_j r_j / x_dj - t_k <= 0 is written as one list of
// reciprocal terms a / x_d (duplicate dimensions merged). It is the
// cross-check of the native solver.
//
// Sparsity: the pieces of an overlapped loop, s_g >= a_j + W_j' t, are sums over
// the collectives queued behind a layer, so consecutive pieces share all but a
// few terms and written out they hold O(layers^2) nonzeros that couple every t
// of a workload: the KKT matrix had a dense block as large as the number of
// collectives, and IPOPT took 21 s on a 210 KB project. Each piece instead gets
// a variable y_j = W_j' t, defined from the previous piece's by the difference
// of their sums (y_j = y_{j-1} + (W_j - W_{j-1})' t, when that is shorter than
// W_j): O(layers) nonzeros and a banded chain. Linear rows list only their
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

namespace libra::detail {

namespace {

using Ipopt::Index;
using Ipopt::Number;

class EpigraphNlp : public Ipopt::TNLP {
 public:
  EpigraphNlp(const StandardForm& f, const std::atomic<bool>* cancel,
              std::chrono::steady_clock::time_point deadline)
      : f_(f), cancel_(cancel), deadline_(deadline), edges_(f.edges), pieces_(f.pieces) {
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
    M_ = static_cast<int>(f.groupWeights.size());
    me_ = static_cast<int>(f.Aeq.rows());
    mi_ = static_cast<int>(f.Ain.rows());
    P_ = static_cast<int>(pieces_.size());
    for (int i = 0; i < me_; ++i) linearRows_.push_back(sparseRow(f.Aeq, i));
    for (int i = 0; i < mi_; ++i) linearRows_.push_back(sparseRow(f.Ain, i));
    for (const auto& row : linearRows_) nnzLinear_ += static_cast<Index>(row.size());
    // The definition of each piece's y: the difference from the previous piece of
    // its group when that is shorter than the piece's own sum.
    definitions_.resize(P_);
    for (int j = 0; j < P_; ++j) {
      Definition& def = definitions_[j];
      const auto& terms = pieces_[j].terms;
      def.terms = terms;
      if (j > 0 && pieces_[j - 1].group == pieces_[j].group) {
        std::vector<std::pair<int, double>> diff;
        const auto& prev = pieces_[j - 1].terms;
        std::size_t a = 0, b = 0;
        while (a < terms.size() || b < prev.size()) {
          if (b == prev.size() || (a < terms.size() && terms[a].first < prev[b].first)) {
            diff.push_back(terms[a++]);
          } else if (a == terms.size() || prev[b].first < terms[a].first) {
            diff.emplace_back(prev[b].first, -prev[b].second);
            ++b;
          } else {
            if (terms[a].second != prev[b].second) {
              diff.emplace_back(terms[a].first, terms[a].second - prev[b].second);
            }
            ++a, ++b;
          }
        }
        if (diff.size() + 1 < terms.size()) {
          def.previous = j - 1;
          def.terms = std::move(diff);
        }
      }
      nnzDefinitions_ += 1 + (def.previous >= 0 ? 1 : 0) + static_cast<Index>(def.terms.size());
    }
  }

  Eigen::VectorXd solution;
  Ipopt::SolverReturn status = Ipopt::INTERNAL_ERROR;

  // Variables: x (n_), t (K_), s (M_), y (P_). Rows: equalities, inequalities,
  // branch rows, piece rows s_g - y_j >= a_j, definitions of y (== 0).
  bool get_nlp_info(Index& n, Index& m, Index& nnzJac, Index& nnzHess,
                    IndexStyleEnum& style) override {
    n = n_ + K_ + M_ + P_;
    m = me_ + mi_ + static_cast<Index>(edges_.size()) + 2 * P_;
    nnzJac = nnzLinear_ + static_cast<Index>(edges_.size()) + nnzRows_ + 2 * P_ + nnzDefinitions_;
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
    for (const auto& p : pieces_) {
      gl[r] = p.constant;
      gu[r++] = inf;
    }
    for (; r < m; ++r) gl[r] = gu[r] = 0;
    return true;
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
    for (int g = 0; g < M_; ++g) z[n_ + K_ + g] = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < P_; ++j) {
      const Piece& p = pieces_[j];
      z[y(j)] = value(p, z) - p.constant;
      z[n_ + K_ + p.group] = std::max(z[n_ + K_ + p.group], value(p, z));
    }
    for (int g = 0; g < M_; ++g) z[n_ + K_ + g] += 0.1 * (1 + std::abs(z[n_ + K_ + g]));
    return true;
  }

  bool eval_f(Index, const Number* z, bool, Number& obj) override {
    obj = f_.constant;
    for (int k = 0; k < K_; ++k) obj += f_.linearT(k) * z[n_ + k];
    for (int g = 0; g < M_; ++g) obj += f_.groupWeights[g] * z[n_ + K_ + g];
    return true;
  }

  bool eval_grad_f(Index n, const Number*, bool, Number* grad) override {
    for (Index i = 0; i < n; ++i) grad[i] = 0;
    for (int k = 0; k < K_; ++k) grad[n_ + k] = f_.linearT(k);
    for (int g = 0; g < M_; ++g) grad[n_ + K_ + g] = f_.groupWeights[g];
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
    for (int j = 0; j < P_; ++j) g[r++] = z[n_ + K_ + pieces_[j].group] - z[y(j)];
    for (int j = 0; j < P_; ++j) {
      const Definition& def = definitions_[j];
      double v = z[y(j)];
      if (def.previous >= 0) v -= z[y(def.previous)];
      for (const auto& [k, w] : def.terms) v -= w * z[n_ + k];
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
      for (int j = 0; j < P_; ++j) {
        add(r, n_ + K_ + pieces_[j].group);
        add(r++, y(j));
      }
      for (int j = 0; j < P_; ++j) {
        const Definition& def = definitions_[j];
        add(r, y(j));
        if (def.previous >= 0) add(r, y(def.previous));
        for (const auto& term : def.terms) add(r, n_ + term.first);
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
    for (int j = 0; j < P_; ++j) {
      values[nz++] = 1.0;
      values[nz++] = -1.0;
    }
    for (const Definition& def : definitions_) {
      values[nz++] = 1.0;
      if (def.previous >= 0) values[nz++] = -1.0;
      for (const auto& term : def.terms) values[nz++] = -term.second;
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
  using Piece = StandardForm::Piece;
  using Terms = std::vector<std::pair<int, double>>;

  // y_j = y_previous + terms' t (previous -1: y_j = terms' t).
  struct Definition {
    int previous = -1;
    Terms terms;
  };

  static Terms sparseRow(const Eigen::MatrixXd& A, int i) {
    Terms row;
    for (int d = 0; d < A.cols(); ++d) {
      if (A(i, d) != 0) row.emplace_back(d, A(i, d));
    }
    return row;
  }
  Index y(int j) const { return n_ + K_ + M_ + j; }
  // c_e + sum of the row's reciprocal terms (without -t_k).
  double rowValue(std::size_t e, const Number* z) const {
    double v = edges_[e].c;
    for (const auto& [d, a] : rowTerms_[e]) v += a / z[d];
    return v;
  }
  double value(const Piece& p, const Number* z) const {
    double v = p.constant;
    for (const auto& [k, w] : p.terms) v += w * z[n_ + k];
    return v;
  }

  const StandardForm& f_;
  const std::atomic<bool>* cancel_;
  std::chrono::steady_clock::time_point deadline_;
  int n_ = 0, K_ = 0, M_ = 0, me_ = 0, mi_ = 0, P_ = 0;
  const std::vector<StandardForm::Edge>& edges_;
  const std::vector<Piece>& pieces_;
  std::vector<Terms> rowTerms_;    // per branch row: (d, a) of a / x_d
  std::vector<Terms> linearRows_;  // equalities, then inequalities: (d, a) of a x_d
  std::vector<Definition> definitions_;
  Index nnzRows_ = 0, nnzLinear_ = 0, nnzDefinitions_ = 0;
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
  if (app->Initialize() != Ipopt::Solve_Succeeded) {
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
