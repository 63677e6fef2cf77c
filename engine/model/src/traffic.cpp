#include "libra/traffic.hpp"

namespace libra {

std::vector<double> collectiveTraffic(CollectiveType type, double sizeBytes,
                                      std::span<const int> groupSizes) {
  const int dims = static_cast<int>(groupSizes.size());
  std::vector<double> v(dims, 0.0);
  if (type == CollectiveType::None || sizeBytes <= 0) return v;
  switch (type) {
    case CollectiveType::AllReduce:
    case CollectiveType::ReduceScatter: {
      const double factor = type == CollectiveType::AllReduce ? 2.0 : 1.0;
      double s = sizeBytes;
      for (int d = 0; d < dims; ++d) {
        const int g = groupSizes[d];
        if (g <= 1) continue;
        v[d] = factor * s * (g - 1) / g;
        s /= g;
      }
      break;
    }
    case CollectiveType::AllGather: {
      double s = sizeBytes;
      for (int d = dims - 1; d >= 0; --d) {
        const int g = groupSizes[d];
        if (g <= 1) continue;
        v[d] = s * (g - 1);
        s *= g;
      }
      break;
    }
    case CollectiveType::AllToAll:
      for (int d = 0; d < dims; ++d) {
        const int g = groupSizes[d];
        if (g > 1) v[d] = sizeBytes * (g - 1) / g;
      }
      break;
    case CollectiveType::SendRecv:
      // Neighbours in a group spanning several dimensions are numbered with the
      // innermost dimension varying fastest; the boundary where every coordinate
      // changes (e.g. the last pipeline stage of one node to the first of the
      // next) crosses every used dimension with the whole buffer, and the
      // slowest boundary sets the pace (docs/workloads.md section 2.4).
      for (int d = 0; d < dims; ++d) {
        if (groupSizes[d] > 1) v[d] = sizeBytes;
      }
      break;
    case CollectiveType::None:
      break;
  }
  return v;
}

}  // namespace libra
