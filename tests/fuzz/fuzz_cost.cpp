// libFuzzer target: a cost model file (LIBRA YAML or SC22 JSON), then a network
// of up to four dimensions over its first cost levels, priced by it, validated
// and evaluated at the equal split.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libra/libra_format.hpp"

using namespace libra;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kSource = "fuzz-cost.yml";
  CostModel model;
  if (!fuzz::loads(
          [&] { model = readCostModelText(fuzz::asText(data, size), std::string(kSource)); },
          kSource)) {
    return 0;
  }
  for (const auto& [name, level] : model.levels) {
    for (const auto& price : {level.link, level.switchPrice, level.nic}) {
      LIBRA_FUZZ_CHECK(!price || (fuzz::finite(*price) && *price >= 0),
                       "level " + name + " has price " + std::to_string(price.value_or(0)));
    }
  }
  if (model.levels.empty()) return 0;

  // Ring, FullyConnected, Ring, Switch over the first levels (as the reference 4D).
  Network network;
  const BuildingBlock blocks[] = {BuildingBlock::Ring, BuildingBlock::FullyConnected,
                                  BuildingBlock::Ring, BuildingBlock::Switch};
  const int npus[] = {4, 8, 4, 32};
  for (const auto& [name, level] : model.levels) {
    const std::size_t d = network.dims.size();
    if (d == 4) break;
    Dimension dim;
    dim.name = "d" + std::to_string(d);
    dim.block = blocks[d];
    dim.npus = npus[d];
    dim.costLevel = name;
    network.dims.push_back(dim);
  }
  Workload workload;
  workload.name = "fuzz";
  workload.layers.push_back(fuzz::exampleLayer());
  for (const Dimension& d : network.dims) {
    workload.communicator.of(PhaseKind::Forward).push_back(1);
    workload.communicator.of(PhaseKind::InputGrad).push_back(1);
    workload.communicator.of(PhaseKind::WeightGrad).push_back(d.npus);
  }
  fuzz::evaluateEqualSplit(fuzz::projectOf(network, workload, model));
  return 0;
}
