#include "libra/cost.hpp"

#include <cmath>

#include "libra/error.hpp"
#include "text.hpp"

namespace libra {

CostModel referenceCostModel() {
  CostModel m;
  const CostLevel chiplet{2.0, std::nullopt, std::nullopt};
  const CostLevel package{4.0, 13.0, std::nullopt};
  const CostLevel node{4.0, 13.0, std::nullopt};
  const CostLevel pod{7.8, 18.0, 31.6};
  m.levels["InterChiplet"] = chiplet;
  m.levels["InterPackage"] = package;
  m.levels["InterNode"] = node;
  m.levels["InterPod"] = pod;
  m.levels["Tile"] = chiplet;
  m.levels["Package"] = package;
  m.levels["Node"] = node;
  m.levels["Pod"] = pod;
  return m;
}

std::vector<double> unitPrices(const Network& network, const CostModel& model) {
  std::vector<double> prices;
  prices.reserve(network.dims.size());
  for (int i = 0; i < network.size(); ++i) {
    const Dimension& d = network.dims[i];
    const std::string where = "dimension " + std::to_string(i) + " ('" + d.name + "')";
    auto it = model.levels.find(d.costLevel);
    if (it == model.levels.end()) {
      throw InputError("cost model: " + where + " uses cost level '" + d.costLevel +
                       "', which the cost model does not define");
    }
    const CostLevel& level = it->second;
    auto need = [&](const std::optional<double>& v, const char* key) {
      if (!v) {
        throw InputError("cost model: level '" + d.costLevel + "' has no " + key + " price, but " +
                         where + " is a " + std::string(toString(d.block)) + " and needs one");
      }
      if (!std::isfinite(*v) || *v < 0) {
        throw InputError("cost model: level '" + d.costLevel + "': " + key + " price " +
                         text::formatNumber(*v) + " must be a finite number >= 0");
      }
      return *v;
    };
    double price = need(level.link, "Link");
    if (d.block == BuildingBlock::Switch) {
      price += need(level.switchPrice, "Switch");
      price += need(level.nic, "Nic");
    }
    prices.push_back(price);
  }
  return prices;
}

std::vector<double> costPerBandwidth(const Network& network, const CostModel& model) {
  std::vector<double> prices = unitPrices(network, model);
  const double n = static_cast<double>(network.npuCount());
  for (int i = 0; i < network.size(); ++i) {
    double& p = prices[i];
    p *= n;
    // Finite prices whose sum or product with the NPU count overflows (a price of
    // 1e308) would make every cost infinite: refuse them here, where the cost
    // model is compiled, rather than print "inf".
    if (!std::isfinite(p) || p > kMaxCostPerBandwidth) {
      const Dimension& d = network.dims[i];
      throw InputError("cost model: level '" + text::abbreviate(d.costLevel) +
                       "': the price per GB/s of dimension " + std::to_string(i) + " ('" +
                       text::abbreviate(d.name) + "') times " + text::formatNumber(n) +
                       " NPUs exceeds " + text::formatNumber(kMaxCostPerBandwidth) +
                       " $; costs would overflow");
    }
  }
  return prices;
}

}  // namespace libra
