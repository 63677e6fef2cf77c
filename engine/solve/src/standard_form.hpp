// The problem in the form both backends solve, and the presolve that classifies
// it first (internal header).
//
// Variables are scaled bandwidths x = bw / bwScale. Linear rows are scaled to unit
// infinity norm. The presolve is shared by both backends so that infeasible and
// unbounded problems get the same verdict and message whichever backend runs.
#pragma once

#include <Eigen/Dense>
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "libra/problem.hpp"
#include "libra/solver.hpp"
#include "libra/solver_detail.hpp"

namespace libra::detail {

// When a solve must stop: its time limit from when it started, or a cancel
// request. The presolve checks it between its stages and in its loops of LPs.
struct Deadline {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* cancel = nullptr;
  double seconds = 0;  // the limit it was made from, for messages

  static Deadline in(double seconds, const std::atomic<bool>* cancel) {
    Deadline d;
    d.cancel = cancel;
    d.seconds = seconds;
    const auto now = std::chrono::steady_clock::now();
    if (seconds < std::chrono::duration<double>(d.at - now).count()) {
      d.at = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(seconds));
    }
    return d;
  }
  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  bool passed() const { return cancelled() || std::chrono::steady_clock::now() >= at; }
};

// The performance problem in the epigraph form both backends solve. Every
// collective k (after merging proportional ones) has an epigraph variable t_k
// and one row per branch e of its max (TimeTerm::pipelined):
//
//   c_e + v_e / x_{d_e} + sum_{j in serial(k)} r_j / x_{d_j} - t_k <= 0
//
// so t_k is the whole TimeTerm (serial sum plus max). Both backends read these
// rows through the functions below and know nothing of collectives.
struct StandardForm {
  // The variables: the problem's dimensions without those the constraints fix at
  // 0 (idle ones only; they are constants). dims[j] is variable j's dimension.
  int n = 0;
  std::vector<int> dims;
  // Per dimension of the problem: its bandwidth in GB/s when the constraints fix
  // it (an equality on it alone, or an idle one held at 0).
  std::vector<std::optional<double>> fixed;
  Eigen::MatrixXd Aeq;
  Eigen::VectorXd beq;
  Eigen::MatrixXd Ain;  // Ain x <= bin
  Eigen::VectorXd bin;
  std::vector<bool> used;  // variable's dimension carries traffic
  double bwScale = 1;      // bw = bwScale * x
  double timeScale = 1;    // times are divided by this

  int K = 0;                // epigraph variables t_k (merged collectives)
  Eigen::VectorXd linearT;  // c_k: weight of t_k in the separable part
  double constant = 0;      // constant part of the separable groups (scaled)
  // Groups with more than one piece (the overlap loop): the objective adds
  // sum_g w_g s_g, and linear rows over the epigraph variables
  //   z = (t_0 .. t_{K-1}, y_0 .. y_{Y-1}, s_0 .. s_{M-1})
  // keep s_g >= a_j + W_j' t for every piece j of group g. Each row reads
  //   constant + sum_i coef_i z_i <= 0
  // and bounds its `target` (a y or an s, coefficient -1) from below by
  // variables that earlier rows bound. The y are partial sums: y_j >= y_p +
  // (W_j - W_p)' t chains a piece to the one it differs from
  // (TimeModel::Piece::previous), and a sum of more than kRowTerms terms is
  // split into rows of at most that many; a piece's row is a_j + y_j - s_g <= 0.
  // So the rows hold O(layers + K) terms and their Newton block is sparse.
  // (At an optimum every y equals its sum where its piece matters: minimizing
  // s_g pushes the chain down; the inequalities imply y_j >= W_j' t.)
  struct LinearRow {
    double constant = 0;
    std::vector<std::pair<int, double>> terms;  // (index into z, coefficient), target included
    int target = 0;
  };
  static constexpr int kRowTerms = 16;
  int Y = 0;
  std::vector<double> groupWeights;  // w_g, one per s_g
  std::vector<LinearRow> rows;
  // The same pieces as rows a_j + W_j' t - s_g <= 0 over z = (t, s) (no y; s_g
  // is z_{K+g}), while their (t, s) block is small enough to factor densely
  // (K + M up to kDenseEpigraph, sum_j |W_j|^2 up to 2e8): better conditioned,
  // and what the native solver uses then. Empty otherwise.
  static constexpr int kDenseEpigraph = 2000;
  std::vector<LinearRow> wholeRows;
  int M() const { return static_cast<int>(groupWeights.size()); }
  int zSize() const { return K + Y + M(); }

  // Branch rows, k-major: the edges of collective k are [edgeBegin[k],
  // edgeBegin[k + 1]), in increasing d. v may be 0 (a branch that is a constant).
  struct Edge {
    int k;
    int d;
    double v;  // scaled bytes of the branch's own dimension
    double c;  // scaled constant, serial constants included
  };
  std::vector<Edge> edges;
  std::vector<int> edgeBegin;
  // Serial reciprocal terms r_j / x_{d_j} shared by all edges of collective k:
  // [serialBegin[k], serialBegin[k + 1]).
  struct Serial {
    int d;
    double r;  // scaled bytes
  };
  std::vector<Serial> serial;
  std::vector<int> serialBegin;

  Eigen::VectorXd start;  // feasible point (scaled), positive on used dimensions

  // Bandwidth per dimension of the problem (GB/s) at the scaled variables x.
  std::vector<double> bandwidth(const Eigen::VectorXd& x) const {
    std::vector<double> bw(fixed.size(), 0.0);
    for (std::size_t d = 0; d < fixed.size(); ++d) bw[d] = fixed[d].value_or(0.0);
    for (int j = 0; j < n; ++j) bw[dims[j]] = x(j) * bwScale;
    return bw;
  }
  // sum_j r_j / x_{d_j} of collective k.
  double serialValue(int k, const double* x) const {
    double s = 0;
    for (int j = serialBegin[k]; j < serialBegin[k + 1]; ++j) s += serial[j].r / x[serial[j].d];
    return s;
  }
  // The branch's part of its row without the serial sum and t: c + v / x_d.
  double branchValue(const Edge& e, const double* x) const {
    return e.v > 0 ? e.c + e.v / x[e.d] : e.c;
  }
};

// The constraints and an optional cost budget as rows in GB/s, each scaled to
// unit size, `>=` turned into `<=`, without the rows that others imply by
// their form. Each row's source is the index of its constraint in
// Problem::constraints, kBudgetRow or kArtificialRow (the messages name it).
struct ConstraintRows {
  Eigen::MatrixXd Aeq, Ain;
  Eigen::VectorXd beq, bin;
  std::vector<int> eqSource, inSource;
};
constexpr int kBudgetRow = -1;
constexpr int kArtificialRow = -2;

struct Presolved {
  SolveStatus status = SolveStatus::Error;  // Optimal means "ready to solve"
  std::string message;
  StandardForm form;
  // The rows of the problem and its budget, for what is done with the answer
  // (projectOntoConstraints, polishIdleDimensions).
  ConstraintRows rows;
  // Set when no dimension carries traffic: any feasible point is optimal.
  std::optional<Eigen::VectorXd> trivialSolution;
};

// Builds the standard form and checks feasibility and boundedness with small LPs.
// `costBudget` adds cost <= budget. `warmStart` (in GB/s) is used as the start
// point when it is feasible and positive on used dimensions. Rows that others
// imply by their form are dropped first, in O(m log m); more than
// kMaxConstraintRows rows left is an error. Past `deadline` it stops with
// status Error (Cancelled on a cancel request) and a message that says so.
constexpr long kMaxConstraintRows = 1000;
Presolved presolve(const Problem& problem, std::optional<double> costBudget,
                   const std::vector<double>* warmStart = nullptr, Deadline deadline = {});

// Dimensions that carry no traffic do not affect the time: give them the cheapest
// bandwidth the constraints allow with the other dimensions at least at `bw`
// (more bandwidth never slows a collective, so the time cannot grow), else with
// them fixed at `bw` (exact LPs, so both backends agree to the last digit).
// Returns `bw` unchanged when there are no such dimensions or both LPs fail.
std::vector<double> polishIdleDimensions(const Problem& problem, const ConstraintRows& rows,
                                         std::vector<double> bw);

// The answer moved, by the least amount, onto the equality constraints and the
// inequalities that are tight at it, so that they hold to rounding rather than to
// the solver's tolerance. Returns `bw` unchanged if that would not improve them.
std::vector<double> projectOntoConstraints(const Problem& problem, std::optional<double> costBudget,
                                           std::vector<double> bw);
std::vector<double> projectOntoConstraints(const Problem& problem, const ConstraintRows& rows,
                                           std::vector<double> bw);

struct BackendResult {
  SolveStatus status = SolveStatus::Error;
  std::string message;
  Eigen::VectorXd x;  // scaled
  int iterations = 0;
  bool limitHit = false;  // a time or iteration limit ended the run
  double seconds = 0;     // how long the run took
  // Native: the answer met the tolerances only within the 100x floor of
  // double precision (its iterates stalled there).
  bool atFloor = false;
};

// Both stop at SolveLimits (status Error, a message naming the limit); `limitHit`
// tells the caller that a limit, not a failure of the method, ended the run.
BackendResult solveNative(const StandardForm& form, const std::atomic<bool>* cancel,
                          const SolveLimits& limits = {});
BackendResult solveIpopt(const StandardForm& form, const std::atomic<bool>* cancel,
                         const SolveLimits& limits = {});

}  // namespace libra::detail
