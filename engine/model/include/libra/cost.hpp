// The cost model: unit prices per cost level, in $ per GB/s.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libra/network.hpp"

namespace libra {

struct CostLevel {
  std::optional<double> link;
  std::optional<double> switchPrice;
  std::optional<double> nic;

  bool operator==(const CostLevel&) const = default;
};

struct CostModel {
  std::map<std::string, CostLevel> levels;

  bool operator==(const CostModel&) const = default;
};

// Unit prices published with LIBRA (ISPASS 2024, Table "network cost model"):
// chiplet links $2, package and node links $4 and switches $13, pod links $7.8,
// switches $18 and NICs $31.6, all per GB/s. Levels are keyed by the names the
// reference files use (InterChiplet, InterPackage, InterNode, InterPod) and the
// shorter names of the earlier json format (Tile, Package, Node, Pod).
CostModel referenceCostModel();

// price_d in $ per GB/s of one NPU's bandwidth into dimension d: Link for Ring and
// FullyConnected, Link + Switch + Nic for Switch. Throws InputError naming the
// dimension and level when a needed price is missing or negative.
std::vector<double> unitPrices(const Network& network, const CostModel& model);

// The largest N * price_d accepted ($ per GB/s of every NPU's bandwidth): far
// beyond any real network, far enough below the largest double that no cost
// at a bandwidth the solvers reach overflows.
inline constexpr double kMaxCostPerBandwidth = 1e100;

// cost($) = N * sum_d price_d * bw_d; this returns N * price_d per dimension.
// Throws InputError naming the level and dimension when one exceeds
// kMaxCostPerBandwidth (or overflows).
std::vector<double> costPerBandwidth(const Network& network, const CostModel& model);

}  // namespace libra
