// libFuzzer target: a project file (JSON), then what every command does with a
// project that loads: validation, compilation, the evaluation of the equal split
// and the JSON writer. A project that loads must also survive its own round
// trip: projectToJson reads back to the same project.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libra/project_io.hpp"

using namespace libra;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::string_view kSource = "fuzz-project.json";
  Project project;
  if (!fuzz::loads(
          [&] { project = projectFromJson(fuzz::asText(data, size), std::string(kSource)); },
          kSource)) {
    return 0;
  }
  fuzz::evaluateEqualSplit(project);

  const std::string saved = projectToJson(project);
  Project again;
  const bool readsAgain =
      fuzz::loads([&] { again = projectFromJson(saved, "saved.json"); }, "saved.json");
  LIBRA_FUZZ_CHECK(readsAgain, "the saved project does not read:\n" + saved);
  LIBRA_FUZZ_CHECK(again == project, "the saved project reads back different:\n" + saved);
  return 0;
}
