// The frozen regression problems and the failed RapidCheck seeds of
// tests/data/regressions (README.md and seeds.tsv there).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "libra/project.hpp"
#include "libra/project_io.hpp"

namespace libra::test {

inline const std::string kRegressions = LIBRA_SOURCE_DIR "/tests/data/regressions/";

// A frozen regression problem (tests/data/regressions/README.md says what failed on it).
inline Project regression(const std::string& file) {
  return loadProject(kRegressions + file);
}

// The seeds of tests/data/regressions/seeds.tsv that once failed `property`.
inline std::vector<std::uint64_t> regressionSeeds(const std::string& property) {
  std::ifstream in(kRegressions + "seeds.tsv");
  EXPECT_TRUE(in) << "cannot read " << kRegressions << "seeds.tsv";
  std::vector<std::uint64_t> seeds;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields(line);
    std::string name, seed;
    std::getline(fields, name, '\t');
    std::getline(fields, seed, '\t');
    if (name == property) seeds.push_back(std::stoull(seed));
  }
  EXPECT_FALSE(seeds.empty()) << "no seed of " << property << " in seeds.tsv";
  return seeds;
}

}  // namespace libra::test
