// libFuzzer target: a network file (LIBRA YAML or SC22 JSON, chosen by content),
// then a project on the network that loaded (one data-parallel AllReduce, every
// cost level priced), validated and evaluated at the equal split.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libra/libra_format.hpp"

using namespace libra;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kSource = "fuzz-network.yml";
  NetworkFile file;
  if (!fuzz::loads([&] { file = readNetworkText(fuzz::asText(data, size), std::string(kSource)); },
                   kSource)) {
    return 0;
  }
  const Network& network = file.network;
  LIBRA_FUZZ_CHECK(!network.dims.empty(), "a network without dimensions loaded");
  LIBRA_FUZZ_CHECK(network.npuCount() >= 2, "npus " + std::to_string(network.npuCount()));
  for (const Dimension& d : network.dims) {
    LIBRA_FUZZ_CHECK(d.npus >= 2 && !d.name.empty() && !d.costLevel.empty(), d.name);
  }
  if (file.totalBandwidth) {
    LIBRA_FUZZ_CHECK(fuzz::finite(*file.totalBandwidth) && *file.totalBandwidth > 0,
                     "total bandwidth " + std::to_string(*file.totalBandwidth));
  }

  Workload workload;
  workload.name = "fuzz";
  workload.layers.push_back(fuzz::exampleLayer());
  for (const Dimension& d : network.dims) {
    workload.communicator.of(PhaseKind::Forward).push_back(1);
    workload.communicator.of(PhaseKind::InputGrad).push_back(1);
    workload.communicator.of(PhaseKind::WeightGrad).push_back(d.npus);
  }
  CostModel prices;
  for (const Dimension& d : network.dims) prices.levels[d.costLevel] = CostLevel{1.5, 10.0, 20.0};
  fuzz::evaluateEqualSplit(fuzz::projectOf(network, workload, prices));
  return 0;
}
