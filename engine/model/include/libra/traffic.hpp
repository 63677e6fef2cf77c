// Per-dimension traffic of one collective under the hierarchical (multi-rail)
// algorithm of model.md section 4.
#pragma once

#include <span>
#include <vector>

#include "libra/workload.hpp"

namespace libra {

// V_d in bytes for a collective of `sizeBytes` over group sizes g_d (1 = unused):
//   AllReduce      inner to outer  2 s (g-1)/g, s <- s/g
//   ReduceScatter  inner to outer    s (g-1)/g, s <- s/g
//   AllGather      outer to inner    s (g-1),   s <- s*g  (s starts at the shard)
//   AllToAll       every used dim    S (g-1)/g
//   SendRecv       every used dim    S          (point to point to a neighbour)
std::vector<double> collectiveTraffic(CollectiveType type, double sizeBytes,
                                      std::span<const int> groupSizes);

}  // namespace libra
