// Runs a RapidCheck property inside a GoogleTest test with its own number of
// cases, so that cheap properties can run many cases and the IPOPT ones few,
// without RC_PARAMS. The seed and other settings still come from RC_PARAMS (a
// failure prints the seed to rerun with), and `max_success` in RC_PARAMS, when
// given, overrides the count chosen here.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace libra::test {

// `shrink` false: report the first failing case as drawn (for properties whose
// every shrink step is expensive, e.g. IPOPT solves).
// `seed`, when given, replaces RC_PARAMS's (a seed that once failed, kept as a
// regression case).
template <typename Testable>
void checkProperty(int maxSuccess, Testable&& testable, bool shrink = true,
                   std::optional<std::uint64_t> seed = std::nullopt) {
  using namespace rc::detail;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + std::string(info->name());
  metadata.description = std::string(info->name());
  TestParams params = configuration().testParams;
  const char* env = std::getenv("RC_PARAMS");
  if (env == nullptr || std::strstr(env, "max_success") == nullptr) params.maxSuccess = maxSuccess;
  if (!shrink) params.disableShrinking = true;
  if (seed) params.seed = *seed;
  const auto result = checkTestable(std::forward<Testable>(testable), metadata, params);
  if (result.template is<SuccessResult>()) {
    const auto& success = result.template get<SuccessResult>();
    if (!success.distribution.empty()) {
      printResultMessage(result, std::cout);
      std::cout << std::endl;
    }
  } else {
    std::ostringstream ss;
    printResultMessage(result, ss);
    ss << "\n(seed " << params.seed << "; rerun with RC_PARAMS=\"seed=" << params.seed << "\")";
    FAIL() << ss.str() << std::endl;
  }
}

}  // namespace libra::test
