// libFuzzer target: a constraint expression, compiled against a three-dimension
// network (parseConstraint), analyzed with and without the names
// (analyzeConstraint) and rewritten through two dimension edits
// (rewriteDimensionReferences): the identity, which must change nothing, and
// a reorder with renames, whose result must compile to the same constraint.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libra/constraints.hpp"

using namespace libra;

namespace {

bool near(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> names{"package", "node", "pod"};
  static const std::vector<double> prices{2.00001 * 4096, 17.00005 * 4096, 57.40008 * 4096};
  const std::string_view text = fuzz::asText(data, size);

  // Every message points at the expression (ConstraintError) or names a dimension.
  LinearConstraint compiled;
  const bool compiles =
      fuzz::loads([&] { compiled = parseConstraint(text, names, prices, 1e6); }, "");
  ConstraintStructure structure;
  const bool analyzes = fuzz::loads([&] { structure = analyzeConstraint(text); }, "");
  ConstraintStructure resolved;
  const bool resolves = fuzz::loads([&] { resolved = analyzeConstraint(text, names); }, "");
  LIBRA_FUZZ_CHECK(!resolves || analyzes, "resolved but has no structure");
  LIBRA_FUZZ_CHECK(!compiles || resolves, "compiled but does not resolve");
  if (analyzes) {
    LIBRA_FUZZ_CHECK(fuzz::finite(structure.rhs) && fuzz::finite(structure.totalCoefficient) &&
                         fuzz::finite(structure.costCoefficient),
                     "a structure with a number that is not finite");
    for (const DimensionReference& r : structure.references) {
      LIBRA_FUZZ_CHECK(
          r.offset + r.length <= text.size() && r.keyOffset + r.keyLength <= r.offset + r.length &&
              text.substr(r.keyOffset, r.keyLength) == r.key && fuzz::finite(r.coefficient),
          "reference '" + r.key + "'");
    }
  }
  if (!compiles) return 0;
  LIBRA_FUZZ_CHECK(compiled.coefficients.size() == names.size(), compiled.text);
  LIBRA_FUZZ_CHECK(fuzz::finite(compiled.rhs), compiled.text);
  for (double c : compiled.coefficients) LIBRA_FUZZ_CHECK(fuzz::finite(c), compiled.text);

  // The identity edit changes nothing.
  const RewrittenConstraint same =
      rewriteDimensionReferences(text, DimensionMapping::identity(names));
  LIBRA_FUZZ_CHECK(same.removedDimensions.empty() && same.text == text, same.text);

  // Reorder to pod, package, node and rename node to "fast lane" (not writable
  // in bw[...], so references to it become an index).
  DimensionMapping mapping;
  mapping.oldNames = names;
  mapping.newIndex = {1, 2, 0};
  mapping.newNames = {"pod", "package", "fast lane"};
  const RewrittenConstraint moved = rewriteDimensionReferences(text, mapping);
  LIBRA_FUZZ_CHECK(moved.removedDimensions.empty(), moved.text);
  const std::vector<double> movedPrices{prices[2], prices[0], prices[1]};
  LinearConstraint recompiled;
  const bool recompiles = fuzz::loads(
      [&] { recompiled = parseConstraint(moved.text, mapping.newNames, movedPrices, 1e6); }, "");
  LIBRA_FUZZ_CHECK(
      recompiles, "'" + std::string(text) + "' rewritten to '" + moved.text + "' does not compile");
  LIBRA_FUZZ_CHECK(recompiled.relation == compiled.relation && near(recompiled.rhs, compiled.rhs),
                   moved.text);
  for (std::size_t d = 0; d < names.size(); ++d) {
    const auto to = static_cast<std::size_t>(*mapping.newIndex[d]);
    LIBRA_FUZZ_CHECK(near(recompiled.coefficients[to], compiled.coefficients[d]),
                     "'" + std::string(text) + "' rewritten to '" + moved.text + "'");
  }
  return 0;
}
