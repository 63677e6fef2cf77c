#include "libra/collective_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "libra/traffic.hpp"

namespace libra {

double DimTime::at(std::span<const double> bw) const {
  if (bytes <= 0) return constantNs;
  const double b = bw[dim];
  if (!(b > 0)) return std::numeric_limits<double>::infinity();
  return constantNs + bytes / b;
}

double TimeTerm::value(std::span<const double> bw) const {
  double t = 0;
  for (const DimTime& p : serial) t += p.at(bw);
  double worst = 0;
  for (const DimTime& p : pipelined) worst = std::max(worst, p.at(bw));
  return t + worst;
}

std::vector<double> TimeTerm::attribute(std::span<const double> bw, int dims) const {
  std::vector<double> out(dims, 0.0);
  if (!std::isfinite(value(bw))) return out;
  for (const DimTime& p : serial) out[p.dim] += p.at(bw);
  double worst = 0;
  for (const DimTime& p : pipelined) worst = std::max(worst, p.at(bw));
  if (worst > 0) {
    int pacing = 0;
    for (const DimTime& p : pipelined) pacing += p.at(bw) >= worst * (1 - 1e-6) ? 1 : 0;
    for (const DimTime& p : pipelined) {
      if (p.at(bw) >= worst * (1 - 1e-6)) out[p.dim] += worst / pacing;
    }
  }
  return out;
}

bool TimeTerm::uses(int dim) const {
  auto moves = [dim](const DimTime& p) { return p.dim == dim && p.bytes > 0; };
  return std::any_of(serial.begin(), serial.end(), moves) ||
         std::any_of(pipelined.begin(), pipelined.end(), moves);
}

TimeTerm collectiveTerm(CollectiveType type, double sizeBytes, std::span<const int> groupSizes,
                        const Network& network, const CollectiveModel& /*model*/) {
  (void)network;
  // LIBRA's model (model.md section 4): chunks pipeline through the dimensions,
  // so the slowest dimension sets the pace, tau = max_d V_d / bw_d.
  const std::vector<double> traffic = collectiveTraffic(type, sizeBytes, groupSizes);
  TimeTerm term;
  for (int d = 0; d < static_cast<int>(traffic.size()); ++d) {
    if (traffic[d] <= 0) continue;
    term.pipelined.push_back({d, 0.0, traffic[d]});
    term.occupancy.push_back({d, 0.0, traffic[d]});
  }
  return term;
}

}  // namespace libra
