// The iteration time as a function of the bandwidth vector, compiled from the
// workloads and the model options into a form both solvers share:
//
//   tau_k(bw) = the k-th distinct collective's TimeTerm (collective_model.hpp)
//   T(bw)     = sum over groups g of  w_g * max over pieces j of g of
//                                     ( a_j + sum_k W_jk * tau_k(bw) )
//
// Identical collectives share one k. The no-overlap and recompute loops give one
// piece per workload; the overlap loop gives one piece per point where the
// weight-gradient queue can start to wait (see docs/workloads.md, section 5). T is convex in bw.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "libra/collective_model.hpp"
#include "libra/network.hpp"
#include "libra/workload.hpp"

namespace libra {

// What turns a workload into time: the training loop (how phases and
// collectives follow each other) and the collective model (how long one
// collective takes). They travel together.
struct ModelOptions {
  TrainingLoop trainingLoop = TrainingLoop::NoOverlap;
  CollectiveModel collectives;

  bool operator==(const ModelOptions&) const = default;
};

struct Evaluation {
  double iterationNs = 0;      // T
  double computeNs = 0;        // compute part of T (weighted)
  double communicationNs = 0;  // T - compute: communication not hidden by compute
  std::vector<double> busyNs;  // per dimension: how long it is busy (each term's occupancy)
  // Exposed communication per dimension: each collective's time is split over
  // the dimensions by TimeTerm::attribute (the pacing dimension(s) of LIBRA's
  // model), scaled so the values add up to communicationNs.
  std::vector<double> communicationByDimNs;
  // T by the convex form the solvers minimize; equals iterationNs for LIBRA's
  // ideal model, differs for a chunked one (the surrogate's gap).
  double surrogateIterationNs = 0;
  double costUsd = 0;         // the cost in the problem's scope (network, or NPUs + network)
  double networkCostUsd = 0;  // the network's part of it
  bool finite = true;         // false when a dimension that carries traffic has bw 0
};

struct TimeModel {
  // A piece a_j + sum_k W_jk tau_k. Pieces of the overlap loop differ from one
  // another in a few terms only, so such a piece names an earlier piece of
  // its group (`previous`) and lists W_j - W_previous (terms may then be
  // negative): the model is linear in the number of layers, where the whole
  // sums were quadratic (3,000 layers held 13 million terms).
  struct Piece {
    double constantNs = 0;
    std::vector<std::pair<int, double>> terms;  // (k, W_jk), or the difference from `previous`
    int previous = -1;                          // index of an earlier piece of the group, or -1
  };
  struct Group {
    std::string name;
    double weight = 1;
    double computeNs = 0;  // compute time of one iteration of this workload
    std::vector<Piece> pieces;
    // a_j + W_j . times of every piece, in order (times: one per collective).
    std::vector<double> pieceValues(std::span<const double> times) const;
    // The same into `values`, with `sums` (the W_j . times) as its workspace.
    void pieceValues(std::span<const double> times, std::vector<double>& values,
                     std::vector<double>& sums) const;
    // How often each distinct collective runs in one iteration (for busy times).
    std::vector<std::pair<int, double>> occurrences;
  };

  int dims = 0;
  std::vector<TimeTerm> terms;  // K distinct collectives
  std::vector<Group> groups;

  int collectiveCount() const { return static_cast<int>(terms.size()); }
  // True when every group has one piece, so T = constant + sum_k c_k tau_k.
  bool isSeparable() const;
  // The dimensions over which some collective moves bytes.
  std::vector<bool> usedDims() const;

  // The reported (exact) time of collective k.
  double collectiveTime(int k, std::span<const double> bw) const { return terms[k].exact(bw); }
  // The same model with every "auto" chunk count fixed at its best for `bw`.
  TimeModel fixedAt(std::span<const double> bw) const;
  // True when some term chooses its chunk count at the design point ("auto"):
  // the solvers then fix the counts at a point, solve, and repeat at the answer.
  bool isAdaptive() const;
  // Evaluates T and its breakdown; costUsd is left 0 (see Problem::evaluate).
  Evaluation evaluate(std::span<const double> bw) const;
};

// Throws InputError when the communicator does not fit the network: wrong list
// lengths, or group sizes outside 1..n_d. `where` prefixes the message.
void validateCommunicator(const Communicator& communicator, const Network& network,
                          const std::string& where);

// The largest weighted total a time model accepts: the compute time of one
// iteration (ns, summed over the workloads by weight), and per dimension the
// bytes the collectives move and their link latency (ns) in one iteration.
// Finite values whose sums overflow (two layers of 1e308 ns) would make every
// time infinite whatever the bandwidths; under this limit a time stays finite
// for any bandwidth above 1e-200 GB/s.
inline constexpr double kMaxIterationTotal = 1e100;

// Compiles the workloads. Throws InputError naming the workload (and layer) for
// a communicator that does not fit, a weight, compute time or size that is not
// a finite number >= 0, and totals above kMaxIterationTotal.
TimeModel buildTimeModel(const Network& network, std::span<const Workload> workloads,
                         const ModelOptions& options);
// The time model of one tallied workload (its order does not matter: one piece,
// compute plus every collective times its count), under the no-overlap loop.
TimeModel buildTimeModel(const Network& network, const WorkloadTally& tally,
                         const CollectiveModel& collectives);

}  // namespace libra
