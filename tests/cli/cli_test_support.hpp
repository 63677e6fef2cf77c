// Shared pieces of the command-line tests: running the built `libra`, fixture
// paths, a scratch directory per test, and the model formulas of spec/model.md
// written out independently of the engine (the expected numbers come from here,
// never from the program's own output).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "process.hpp"

namespace libra::testing {

namespace fs = std::filesystem;
using nlohmann::json;

inline std::string libraExe() {
  return LIBRA_CLI_EXE;
}
inline std::string dataFile(const std::string& name) {
  return (fs::path(LIBRA_CLI_DATA_DIR) / name).string();
}

// A model config under tests/data/models (Hugging Face config.json or libra's model file).
inline std::string modelFile(const std::string& name) {
  return std::string(LIBRA_SOURCE_DIR) + "/tests/data/models/" + name;
}

// Runs `libra args` in this process (runInProcess): the same code, streams
// and exit code as the program, without its start (under the ci preset's
// sanitizers 0.1 s a start, and test_cli runs libra some 700 times). The
// tests of what needs a process of its own (Ctrl-C, mpirun, limits) start
// libraExe() instead.
inline ProcessResult runLibra(const std::vector<std::string>& args) {
  return runInProcess(libra::cli::runCommandLine, libraExe(), args);
}

// Everything a failed expectation needs to explain itself.
inline std::string describe(const std::vector<std::string>& args, const ProcessResult& r) {
  std::string cmd = "libra";
  for (const auto& a : args) cmd += " '" + a + "'";
  return cmd + "\n  exit " + std::to_string(r.exitCode) + (r.timedOut ? " (timed out)" : "") +
         "\n  stdout: " + r.out.substr(0, 2000) + "\n  stderr: " + r.err.substr(0, 2000);
}

inline json parseJson(const std::string& text) {
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

inline std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline double relativeDifference(double a, double b) {
  const double scale = std::max({std::abs(a), std::abs(b), 1e-300});
  return std::abs(a - b) / scale;
}

#define EXPECT_REL_NEAR(actual, expected, tolerance)                                 \
  EXPECT_LE(::libra::testing::relativeDifference((actual), (expected)), (tolerance)) \
      << #actual " = " << (actual) << ", expected " << (expected)

// A fresh scratch directory per test, removed afterwards.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name();
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') c = '_';
    }
    tmp_ =
        fs::temp_directory_path() / ("libra-cli-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }

  std::string tmp(const std::string& name) const { return (tmp_ / name).string(); }

  // Writes a variant of a fixture project: `edit` changes the parsed JSON.
  template <typename Edit>
  std::string variant(const std::string& fixture, const std::string& name, Edit edit) const {
    json doc = json::parse(readText(dataFile(fixture)));
    edit(doc);
    const std::string path = tmp(name);
    writeText(path, doc.dump(2));
    return path;
  }

  fs::path tmp_;
};

// --- the model of spec/model.md, sections 4 and 6 ---------------------------

enum class Coll { AllReduce, ReduceScatter, AllGather, AllToAll };

// Traffic V_d (bytes) of one collective of size S over group sizes g_d (1 = unused).
inline std::vector<double> traffic(Coll type, double size, const std::vector<int>& groups) {
  const int dims = static_cast<int>(groups.size());
  std::vector<double> v(dims, 0.0);
  double s = size;
  switch (type) {
    case Coll::AllReduce:
    case Coll::ReduceScatter: {
      const double factor = type == Coll::AllReduce ? 2.0 : 1.0;
      for (int d = 0; d < dims; ++d) {
        const double g = groups[d];
        if (g <= 1) continue;
        v[d] = factor * s * (g - 1) / g;
        s /= g;
      }
      break;
    }
    case Coll::AllGather:
      for (int d = dims - 1; d >= 0; --d) {
        const double g = groups[d];
        if (g <= 1) continue;
        v[d] = s * (g - 1);
        s *= g;
      }
      break;
    case Coll::AllToAll:
      for (int d = 0; d < dims; ++d) {
        const double g = groups[d];
        if (g > 1) v[d] = size * (g - 1) / g;
      }
      break;
  }
  return v;
}

// Collective time: the slowest used dimension, max_d V_d / bw_d.
inline double collectiveTime(const std::vector<double>& v, const std::vector<double>& bw) {
  double t = 0;
  for (std::size_t d = 0; d < v.size(); ++d) {
    if (v[d] > 0) t = std::max(t, v[d] / bw[d]);
  }
  return t;
}

// Network cost: N * sum_d price_d * bw_d.
inline double networkCost(double npus, const std::vector<double>& price,
                          const std::vector<double>& bw) {
  double c = 0;
  for (std::size_t d = 0; d < bw.size(); ++d) c += price[d] * bw[d];
  return npus * c;
}

// data/one_collective.json (also the model of data/scenarios.json): dims chip
// Ring(4), node FullyConnected(2), pod Switch(8); prices $2, $4 and $7.8 + $18 +
// $31.6 per GB/s; one weight-gradient AllReduce of 1e9 bytes over every NPU;
// compute 1000 + 2000 + 3000 ns; total == 500. Under total == B alone the closed
// form is bw_d = B V_d / sum V and T = compute + sum V / B.
struct OneCollective {
  static constexpr double kNpus = 4 * 2 * 8;
  static constexpr double kBudget = 500;
  static constexpr double kComputeNs = 1000 + 2000 + 3000;
  const std::vector<double> price{2, 4, 7.8 + 18 + 31.6};
  const std::vector<double> v = traffic(Coll::AllReduce, 1e9, {4, 2, 8});
  double sumV() const { return std::accumulate(v.begin(), v.end(), 0.0); }
  std::vector<double> optimalBandwidth(double budget = kBudget) const {
    std::vector<double> bw;
    for (double vd : v) bw.push_back(budget * vd / sumV());
    return bw;
  }
  double time(double budget) const { return kComputeNs + sumV() / budget; }
  double cost(double budget) const { return networkCost(kNpus, price, optimalBandwidth(budget)); }
};

// How closely the solvers' optimum matches a closed form (relative).
constexpr double kSolverTolerance = 1e-6;

// Every usage or input error: exit 2, nothing on stdout, exactly one line on
// stderr that starts with "libra: error: " and mentions each of `mentions`.
inline void expectUsageError(const std::vector<std::string>& args,
                             const std::vector<std::string>& mentions) {
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  EXPECT_FALSE(r.timedOut);
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.out, "");
  const auto lines = r.errLines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("libra: error: ", 0), 0u);
  EXPECT_FALSE(r.err.empty() || r.err.back() != '\n') << "stderr must end with a newline";
  for (const std::string& m : mentions) EXPECT_TRUE(contains(lines[0], m)) << "missing: " << m;
}

}  // namespace libra::testing
