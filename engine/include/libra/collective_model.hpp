// How long one collective takes, as a function of the bandwidth vector: the one
// place where a collective model is defined. The evaluator and both solver
// backends read the TimeTerm it produces and nothing else, so a new collective
// model (chunks, latency, another algorithm) is a new way of filling a TimeTerm
// plus its tests; the solvers do not change.
#pragma once

#include <span>
#include <vector>

#include "libra/network.hpp"
#include "libra/workload.hpp"

namespace libra {

// A time spent on one dimension: constantNs + bytes / bw_dim (bw in GB/s = bytes/ns).
struct DimTime {
  int dim = 0;
  double constantNs = 0;
  double bytes = 0;

  // +inf when bytes > 0 and the dimension has no bandwidth.
  double at(std::span<const double> bw) const;
  bool operator==(const DimTime&) const = default;
};

// The time of one collective, in the one convex form the solvers accept:
//
//   tau(bw) = sum over `serial` parts + max over `pipelined` parts
//
// Every part is constant + bytes / bw_d, convex and decreasing in bw_d, so tau
// is convex. LIBRA's model (infinitely many chunks, no latency) is one pipelined
// part per used dimension with its traffic V_d and no serial part.
// `occupancy` is how long each dimension is busy with the collective (what the
// per-dimension breakdown reports); it does not enter the objective.
struct TimeTerm {
  std::vector<DimTime> serial;
  std::vector<DimTime> pipelined;
  std::vector<DimTime> occupancy;

  double value(std::span<const double> bw) const;
  // The value split over the dimensions: serial parts go to their dimension, the
  // max to the part(s) that set it (shared equally on ties within 1e-6). Adds up
  // to value(bw); zeros when the value is not finite.
  std::vector<double> attribute(std::span<const double> bw, int dims) const;
  // True when a part moves bytes over `dim`.
  bool uses(int dim) const;
  bool empty() const { return serial.empty() && pipelined.empty(); }
  bool operator==(const TimeTerm&) const = default;
};

// Which collective model turns traffic into time. Only LIBRA's ideal model exists
// today; chunked and latency-aware models are added here.
struct CollectiveModel {
  bool operator==(const CollectiveModel&) const = default;
};

// The TimeTerm of a collective of `sizeBytes` over group sizes g_d (1 = unused) on
// `network` (model.md section 4 for the traffic). Empty when it moves nothing.
TimeTerm collectiveTerm(CollectiveType type, double sizeBytes, std::span<const int> groupSizes,
                        const Network& network, const CollectiveModel& model);

}  // namespace libra
