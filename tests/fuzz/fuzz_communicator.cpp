// libFuzzer target: a communicator file (LIBRA YAML) against the reference 4D
// network, then GPT-3's first layer under that communicator, validated and
// evaluated at the equal split.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libra/libra_format.hpp"

using namespace libra;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kSource = "fuzz-communicator.yml";
  static const Network network = fuzz::referenceNetwork4d();
  Communicator comm;
  if (!fuzz::loads(
          [&] {
            comm = readCommunicatorText(fuzz::asText(data, size), std::string(kSource), network);
          },
          kSource)) {
    return 0;
  }
  for (PhaseKind kind : kPhaseKinds) {
    const std::vector<int>& groups = comm.of(kind);
    LIBRA_FUZZ_CHECK(groups.size() == network.dims.size(),
                     "a communicator of " + std::to_string(groups.size()) + " dimensions loaded");
    for (std::size_t d = 0; d < groups.size(); ++d) {
      LIBRA_FUZZ_CHECK(groups[d] >= 1 && groups[d] <= network.dims[d].npus,
                       "group " + std::to_string(groups[d]) + " on dimension " + std::to_string(d));
    }
  }
  Workload workload;
  workload.name = "fuzz";
  workload.layers.push_back(fuzz::exampleLayer());
  workload.communicator = comm;
  fuzz::evaluateEqualSplit(fuzz::projectOf(network, workload, referenceCostModel()));
  return 0;
}
