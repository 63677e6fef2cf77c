// A Libra Studio project: everything needed to pose and solve one design problem.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "libra/cost.hpp"
#include "libra/network.hpp"
#include "libra/problem.hpp"
#include "libra/workload.hpp"

namespace libra {

struct Project {
  std::string name;
  Network network;
  CostModel costModel;
  std::vector<Workload> workloads;       // weighted sum when there are several
  ModelOptions model;                    // training loop and collective model
  BlockLimits limits;                    // what the building blocks can be
  std::vector<std::string> constraints;  // expressions, see constraints.hpp
  Objective objective = Objective::Performance;
  std::string uiState;  // opaque JSON text owned by the GUI (view state); may be empty

  bool operator==(const Project&) const = default;
};

// Model settings a command line or a study sets for one run over the
// project's own (spec/cli.md: --chunks, --latency).
struct ModelOverrides {
  std::optional<ChunkSetting> chunks;
  // Link latency in ns: empty keeps the project's, one value sets every
  // dimension, otherwise one value per dimension, innermost first.
  std::vector<double> latencyNs;

  bool empty() const { return !chunks && latencyNs.empty(); }
};
// Applies `overrides` to `project`. Throws InputError naming the flag (--chunks,
// --latency) when a value does not fit: a latency that is negative or not
// finite, or a list whose length is neither 1 nor the dimension count.
void applyModelOverrides(Project& project, const ModelOverrides& overrides);

// Validates the project and compiles it. `extraConstraints` are added to the
// project's own. Throws InputError (or ConstraintError) naming what is wrong.
Problem buildProblem(const Project& project, std::span<const std::string> extraConstraints = {});

// Throws InputError for an invalid project: network, prices, workloads (layers,
// communicators, phase groups, weights) and constraints ("constraints[2]: ...").
void validateProject(const Project& project);

}  // namespace libra
