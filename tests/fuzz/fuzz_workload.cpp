// libFuzzer target: an ASTRA-sim 1.0 / LIBRA workload text, then, as
// `libra import-libra` does, a project on the reference 4D network with the
// communicator its header implies, validated and evaluated at the equal split;
// and the ASTRA-sim 1.0 text written back must read again.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libra/libra_format.hpp"
#include "text.hpp"

using namespace libra;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kSource = "fuzz-workload.txt";
  static const Network network = fuzz::referenceNetwork4d();
  WorkloadFile file;
  if (!fuzz::loads(
          [&] { file = readWorkloadText(fuzz::asText(data, size), std::string(kSource), "fuzz"); },
          kSource)) {
    return 0;
  }
  const Workload& loaded = file.workload;
  LIBRA_FUZZ_CHECK(!loaded.layers.empty(), "a workload without layers loaded");
  for (const Layer& layer : loaded.layers) {
    LIBRA_FUZZ_CHECK(fuzz::finite(layer.updateNs) && layer.updateNs >= 0, layer.name);
    for (PhaseKind kind : kPhaseKinds) {
      const Phase& p = layer.phase(kind);
      LIBRA_FUZZ_CHECK(fuzz::finite(p.computeNs) && p.computeNs >= 0 && fuzz::finite(p.sizeBytes) &&
                           p.sizeBytes >= 0,
                       layer.name);
    }
  }

  Workload workload = loaded;
  std::int64_t tp = file.modelParallelGroup.value_or(1);
  if (!file.modelParallelGroup && file.parallelism && text::iequals(*file.parallelism, "MODEL")) {
    tp = network.npuCount();
  }
  try {
    workload.communicator = deriveCommunicator(network, tp);
  } catch (const InputError& e) {
    fuzz::checkRefusal(e, "tensor-parallel degree");
    return 0;
  }
  fuzz::evaluateEqualSplit(fuzz::projectOf(network, workload, referenceCostModel()));

  if (astraSim1Limitation(workload, network)) return 0;
  AstraSim1Workload written;
  if (!fuzz::loads([&] { written = writeAstraSim1Workload(workload, network); }, "fuzz")) {
    return 0;
  }
  WorkloadFile again;
  const bool readsAgain = fuzz::loads(
      [&] { again = readWorkloadText(written.text, "written.txt", "again"); }, "written.txt");
  LIBRA_FUZZ_CHECK(readsAgain, "the written text does not read:\n" + written.text);
  LIBRA_FUZZ_CHECK(again.workload.layers.size() == workload.layers.size(), written.text);
  return 0;
}
