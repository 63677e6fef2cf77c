// A Libra Studio project: everything needed to pose and solve one design problem.
#pragma once

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
  std::vector<std::string> constraints;  // expressions, see constraints.hpp
  Objective objective = Objective::Performance;
  std::string uiState;  // opaque JSON text owned by the GUI (view state); may be empty

  bool operator==(const Project&) const = default;
};

// Validates the project and compiles it. `extraConstraints` are added to the
// project's own. Throws InputError (or ConstraintError) naming what is wrong.
Problem buildProblem(const Project& project, std::span<const std::string> extraConstraints = {});

// Throws InputError for an invalid project: network, prices, workloads (layers,
// communicators, phase groups, weights) and constraints ("constraints[2]: ...").
void validateProject(const Project& project);

}  // namespace libra
