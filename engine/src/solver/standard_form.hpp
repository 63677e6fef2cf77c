// The problem in the form both backends solve, and the presolve that classifies
// it first (internal header).
//
// Variables are scaled bandwidths x = bw / bwScale. Linear rows are scaled to unit
// infinity norm. The presolve is shared by both backends so that infeasible and
// unbounded problems get the same verdict and message whichever backend runs.
#pragma once

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "libra/problem.hpp"
#include "libra/solver.hpp"

namespace libra::detail {

struct StandardForm {
  int n = 0;  // dimensions
  Eigen::MatrixXd Aeq;
  Eigen::VectorXd beq;
  Eigen::MatrixXd Ain;  // Ain x <= bin
  Eigen::VectorXd bin;
  std::vector<bool> used;  // dimension carries traffic
  std::vector<bool>
      fixedZero;         // idle dimension the constraints force to 0 (an equality row holds it)
  double bwScale = 1;    // bw = bwScale * x
  double timeScale = 1;  // times are divided by this
  const TimeModel* time = nullptr;

  // Objective data in scaled units. tau_k(x) = max_d V(k,d) / x_d.
  Eigen::MatrixXd V;        // K x n, scaled traffic
  Eigen::VectorXd linearT;  // c_k: weight of tau_k in the separable part
  double constant = 0;      // constant part of the separable groups (scaled)
  // Groups with more than one piece (overlap loop): objective sum_g w_g s_g with
  // s_g >= a_j + W_j' tau for every piece j of group g.
  struct Piece {
    int group = 0;
    double constant = 0;                        // a_j (scaled)
    std::vector<std::pair<int, double>> terms;  // W_j
  };
  std::vector<double> groupWeights;
  std::vector<Piece> pieces;

  // The (k, d) pairs with V(k, d) > 0, k-major: the edges of collective k are
  // [edgeBegin[k], edgeBegin[k + 1]). Both backends write one epigraph
  // constraint per edge.
  struct Edge {
    int k;
    int d;
    double v;
  };
  std::vector<Edge> edges;
  std::vector<int> edgeBegin;

  Eigen::VectorXd start;  // feasible point (scaled), positive on used dimensions
};

struct Presolved {
  SolveStatus status = SolveStatus::Error;  // Optimal means "ready to solve"
  std::string message;
  StandardForm form;
  // Set when no dimension carries traffic: any feasible point is optimal.
  std::optional<Eigen::VectorXd> trivialSolution;
};

// Builds the standard form and checks feasibility and boundedness with small LPs.
// `costBudget` adds cost <= budget. `warmStart` (in GB/s) is used as the start
// point when it is feasible and positive on used dimensions.
Presolved presolve(const Problem& problem, std::optional<double> costBudget,
                   const std::vector<double>* warmStart = nullptr);

// Dimensions that carry no traffic do not affect the time: give them the cheapest
// bandwidth the constraints allow with the other dimensions fixed at `bw` (an
// exact LP, so both backends agree to the last digit). Returns `bw` unchanged
// when there are no such dimensions or the LP fails.
std::vector<double> polishIdleDimensions(const Problem& problem, std::optional<double> costBudget,
                                         std::vector<double> bw);

// The answer moved, by the least amount, onto the equality constraints and the
// inequalities that are tight at it, so that they hold to rounding rather than to
// the solver's tolerance. Returns `bw` unchanged if that would not improve them.
std::vector<double> projectOntoConstraints(const Problem& problem, std::optional<double> costBudget,
                                           std::vector<double> bw);

// Cost range over the feasible set: [min, max] in $; max may be +inf.
struct CostRange {
  SolveStatus status = SolveStatus::Error;
  std::string message;
  double min = 0;
  double max = 0;
};
CostRange costRange(const Problem& problem);

struct BackendResult {
  SolveStatus status = SolveStatus::Error;
  std::string message;
  Eigen::VectorXd x;  // scaled
  int iterations = 0;
};

BackendResult solveNative(const StandardForm& form, const std::atomic<bool>* cancel);
BackendResult solveIpopt(const StandardForm& form, const std::atomic<bool>* cancel);

}  // namespace libra::detail
