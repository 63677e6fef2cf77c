// `libra evaluate` against ASTRA-sim 2 on whole workloads (built only when the
// LIBRA reference inputs are present): tests/data/astra-sim/workloads.json holds,
// for the reference problems, the bandwidth splits (LIBRA's optimum, this
// model's optimum at C chunks, the equal split) and the iteration times the
// simulator gave them (compute + every collective simulated on its dimensions,
// see tests/data/astra-sim/README.md). The test imports each problem from the
// reference inputs, evaluates every recorded split at its C and latency and
// compares with the SIMULATED times. The simulator is not needed.
#include <set>

#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

// Measured on the data set (astra_workloads.py check), worst over every
// simulated problem, split, C and latency: iteration time 2.72e-4, its
// communication part 1.70e-3 (both ResNet_50 3d, C = 64, zero latency, the
// model's split: 64 chunks of 797 KB pay ASTRA-sim's 1 ns endpoint delay per
// message bundle, which the model leaves out); with 500 ns links at most
// 1.8e-4 and 6.1e-4. The tolerances leave room for the last-digit changes of a
// rebuilt solver, not for a different model.
constexpr double kIterationTolerance = 1e-3;
constexpr double kCommunicationTolerance = 3e-3;

fs::path workloadsFile() {
  return fs::path(LIBRA_SOURCE_DIR) / "tests" / "data" / "astra-sim" / "workloads.json";
}

const json& workloads() {
  static const json doc = json::parse(readText(workloadsFile()), nullptr, false);
  return doc;
}

std::vector<std::string> problemNames(bool simulatedOnly = false) {
  std::vector<std::string> names;
  const json& doc = workloads();
  if (doc.is_object() && doc.contains("problems")) {
    for (const json& p : doc["problems"]) {
      if (simulatedOnly && !p.value("simulated", false)) continue;
      names.push_back(p["name"].get<std::string>());
    }
  }
  return names;
}

// The problems the simulator ran: the one it cannot run (its reason is checked
// by DataSetCoversTheReferenceProblems) is not registered rather than skipped.
std::vector<std::string> simulatedProblemNames() {
  return problemNames(true);
}

const json& problem(const std::string& name) {
  for (const json& p : workloads()["problems"]) {
    if (p["name"] == name) return p;
  }
  throw std::runtime_error("no problem " + name);
}

std::string formatDouble(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

std::string joinDoubles(const json& values) {
  std::string out;
  for (const json& v : values) {
    if (!out.empty()) out += ",";
    out += formatDouble(v.get<double>());
  }
  return out;
}

TEST(WorkloadValidation, DataSetCoversTheReferenceProblems) {
  const json& doc = workloads();
  ASSERT_TRUE(doc.is_object()) << workloadsFile();
  const std::vector<std::string> names = problemNames();
  EXPECT_EQ(names.size(), 8u);
  int simulated = 0;
  std::size_t leftOut = 0;
  for (const std::string& name : names) {
    const json& p = problem(name);
    if (p["simulated"].get<bool>()) {
      ++simulated;
    } else {
      EXPECT_TRUE(p["not_simulated_reason"].is_string()) << name;
    }
    std::set<int> chunks;
    for (const json& s : p["sets"]) {
      chunks.insert(s["chunks"].get<int>());
      if (p["simulated"].get<bool>() && !s["simulated"].get<bool>()) ++leftOut;
    }
    EXPECT_EQ(chunks, (std::set<int>{4, 16, 64})) << name;
  }
  EXPECT_EQ(simulated, 7);
  // Sets left out for time are listed, so the README can say which.
  EXPECT_EQ(leftOut, doc["metadata"]["not_simulated_sets"].size());
}

class WorkloadValidationTest : public CliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(WorkloadValidationTest, EvaluateMatchesTheSimulatedIterationTime) {
  const json& p = problem(GetParam());
  ASSERT_TRUE(p["simulated"].get<bool>()) << GetParam();
  const fs::path inputs = fs::path(LIBRA_REFERENCE_DIR) / "libra-inputs";
  const std::string project = tmp("project.json");
  const std::vector<std::string> importArgs{
      "import-libra",
      "--network",
      (inputs / p["inputs"]["network"].get<std::string>()).string(),
      "--workload",
      (inputs / p["inputs"]["workload"].get<std::string>()).string(),
      "--communicator",
      (inputs / p["inputs"]["communicator"].get<std::string>()).string(),
      "--cost-model",
      (inputs / p["inputs"]["cost_model"].get<std::string>()).string(),
      "--constraint",
      "total == 500",
      "-o",
      project};
  const ProcessResult imported = runLibra(importArgs);
  ASSERT_EQ(imported.exitCode, 0) << describe(importArgs, imported);

  int checked = 0;
  for (const json& set : p["sets"]) {
    // A set the generation did not simulate (time budget, see
    // metadata.not_simulated_sets) has no simulated times to compare with.
    if (!set["simulated"].get<bool>()) continue;
    const int chunks = set["chunks"].get<int>();
    const double latency = set["latency_ns"].get<double>();
    for (const auto& [split, entry] : set["splits"].items()) {
      std::vector<std::string> args{"evaluate",
                                    project,
                                    "--bandwidth=" + joinDoubles(entry["bandwidth_gbps"]),
                                    "--chunks",
                                    std::to_string(chunks),
                                    "--json"};
      if (latency > 0) {
        args.insert(args.end(), {"--latency", formatDouble(latency)});
      }
      const ProcessResult r = runLibra(args);
      SCOPED_TRACE(split + " split, C = " + std::to_string(chunks) +
                   ", latency = " + formatDouble(latency));
      SCOPED_TRACE(describe(args, r));
      ASSERT_EQ(r.exitCode, 0);
      const json j = parseJson(r.out);
      ASSERT_TRUE(j.is_object());
      const double simulated = entry["simulated_iteration_time_ns"].get<double>();
      const double compute = j["compute_time_ns"].get<double>();
      EXPECT_EQ(compute, entry["compute_time_ns"].get<double>());
      EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>(), simulated, kIterationTolerance);
      EXPECT_REL_NEAR(j["iteration_time_ns"].get<double>() - compute, simulated - compute,
                      kCommunicationTolerance);
      ++checked;
    }
  }
  EXPECT_GE(checked, 3) << "no simulated set for " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Reference, WorkloadValidationTest,
                         ::testing::ValuesIn(simulatedProblemNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace libra::testing
