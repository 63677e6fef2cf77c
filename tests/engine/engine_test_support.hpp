// Small builders and checks shared by the engine correctness tests
// (test_model, test_constraints, test_solver, test_solver_properties).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "libra/constraints.hpp"
#include "libra/cost.hpp"
#include "libra/error.hpp"
#include "libra/network.hpp"
#include "libra/problem.hpp"
#include "libra/project.hpp"
#include "libra/solver.hpp"
#include "libra/time_model.hpp"
#include "libra/traffic.hpp"
#include "libra/workload.hpp"

namespace libra::test {

inline Dimension makeDim(std::string name, BuildingBlock block, int npus, std::string level) {
  Dimension d;
  d.name = std::move(name);
  d.block = block;
  d.npus = npus;
  d.costLevel = std::move(level);
  return d;
}

inline Phase makePhase(double computeNs, CollectiveType type = CollectiveType::None,
                       double sizeBytes = 0, std::vector<int> groups = {}) {
  Phase p;
  p.computeNs = computeNs;
  p.collective = type;
  p.sizeBytes = sizeBytes;
  p.groups = std::move(groups);
  return p;
}

inline Layer makeLayer(std::string name, Phase forward, Phase inputGrad, Phase weightGrad) {
  Layer l;
  l.name = std::move(name);
  l.phases = {std::move(forward), std::move(inputGrad), std::move(weightGrad)};
  return l;
}

inline Communicator makeCommunicator(std::vector<int> forward, std::vector<int> inputGrad,
                                     std::vector<int> weightGrad) {
  Communicator c;
  c.groups = {std::move(forward), std::move(inputGrad), std::move(weightGrad)};
  return c;
}

// A communicator that uses every dimension fully for every phase.
inline Communicator fullCommunicator(const Network& network) {
  std::vector<int> g;
  for (const auto& d : network.dims) g.push_back(d.npus);
  return makeCommunicator(g, g, g);
}

// Cost model with one level per entry: name -> (Link, Switch, Nic), all present.
inline CostModel makeCostModel(std::initializer_list<std::pair<std::string, CostLevel>> levels) {
  CostModel m;
  for (const auto& [name, level] : levels) m.levels[name] = level;
  return m;
}

inline Project makeProject(Network network, CostModel costModel, std::vector<Workload> workloads,
                           TrainingLoop loop, std::vector<std::string> constraints) {
  Project p;
  p.name = "test";
  p.network = std::move(network);
  p.costModel = std::move(costModel);
  p.workloads = std::move(workloads);
  p.model.trainingLoop = loop;
  p.constraints = std::move(constraints);
  return p;
}

// |a - b| / max(|a|, |b|): the relative difference (0 for two zeros).
inline double relDiff(double a, double b) {
  return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-300});
}

// |a - b| <= rel * max(|a|, |b|) (and exact equality of infinities).
inline ::testing::AssertionResult relNear(double actual, double expected, double rel) {
  if (actual == expected) return ::testing::AssertionSuccess();
  const double scale = std::max(std::abs(actual), std::abs(expected));
  if (std::isfinite(actual) && std::isfinite(expected) &&
      std::abs(actual - expected) <= rel * scale) {
    return ::testing::AssertionSuccess();
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "actual %.17g, expected %.17g, relative error %.3g > %.3g", actual,
                expected, std::abs(actual - expected) / scale, rel);
  return ::testing::AssertionFailure() << buf;
}

inline ::testing::AssertionResult vecRelNear(std::span<const double> actual,
                                             std::span<const double> expected, double rel,
                                             double absFloor = 0) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << "sizes differ: " << actual.size() << " vs " << expected.size();
  }
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double scale = std::max(std::abs(actual[i]), std::abs(expected[i]));
    if (!(std::abs(actual[i] - expected[i]) <= std::max(rel * scale, absFloor))) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "element %zu: actual %.17g, expected %.17g", i, actual[i],
                    expected[i]);
      return ::testing::AssertionFailure() << buf;
    }
  }
  return ::testing::AssertionSuccess();
}

inline std::string formatVector(std::span<const double> v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s%.17g", i ? ", " : "", v[i]);
    out += buf;
  }
  return out + "]";
}

// Shortest text that reads back as exactly `value` (for building constraint strings).
inline std::string exactNumber(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Runs `f`, expecting it to throw E; returns the message (empty and a test
// failure when it does not throw).
template <typename E, typename F>
std::string thrownMessage(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw the wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

inline constexpr Backend kBackends[] = {Backend::Native, Backend::Ipopt};

inline SolveOptions withBackend(Backend b) {
  SolveOptions o;
  o.backend = b;
  return o;
}

}  // namespace libra::test
