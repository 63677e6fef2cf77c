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
  CostScope costScope = CostScope::Network;  // what perf-per-cost and budgets count
  std::optional<double> npuPriceUsd;         // $ per NPU; overrides the device's list price
  std::string uiState;  // opaque JSON text owned by the GUI (view state); may be empty

  bool operator==(const Project&) const = default;
};

// Model settings a command line or a study sets for one run over the
// project's own (spec/cli.md: --chunks, --latency).
struct ModelOverrides {
  std::optional<ChunkSetting> chunks;
  std::optional<CostScope> costScope;  // --cost-scope
  std::optional<double> npuPriceUsd;   // --npu-price
  // Link latency in ns: empty keeps the project's, one value sets every
  // dimension, otherwise one value per dimension, innermost first.
  std::vector<double> latencyNs;

  bool empty() const { return !chunks && latencyNs.empty() && !costScope && !npuPriceUsd; }
};
// Applies `overrides` to `project`. Throws InputError naming the flag (--chunks,
// --latency) when a value does not fit: a latency that is negative or not
// finite, or a list whose length is neither 1 nor the dimension count.
void applyModelOverrides(Project& project, const ModelOverrides& overrides);

// The price of one NPU for the system cost scope and where it comes from: the
// project's npu_price_usd, else the list price of the device its workloads were
// generated for (presets.hpp). nullopt when neither is known. Throws InputError
// when the workloads name devices of different prices.
struct NpuPrice {
  double usd = 0;
  std::string source;  // "npu_price_usd" or "list price of <device name> (<source>)"
};
std::optional<NpuPrice> npuPrice(const Project& project);
// What the NPUs add to every cost: N * npuPrice in the system cost scope, 0 in
// the network scope (Problem::fixedCostUsd). Throws InputError when the scope
// is system and no price is known, or the product is too large.
double npuCostUsd(const Project& project);

// The name a project's content suggests: its workloads (preset names, else the
// workload names, joined by " + ") on its network, "GPT-3 175B on a 4D network
// (Ring 4 x FC 8 x Ring 4 x Switch 32)".
std::string describedName(const Project& project);
// The naming rule of an edit from `before` to `after`: a project whose name was
// empty or its described name (nobody chose it) follows its content, so
// `after` gets its own described name; a name the user chose is kept.
void followDescribedName(const Project& before, Project& after);

// Validates the project and compiles it. `extraConstraints` are added to the
// project's own. Throws InputError (or ConstraintError) naming what is wrong.
Problem buildProblem(const Project& project, std::span<const std::string> extraConstraints = {});

// Throws InputError for an invalid project: network, prices, workloads (layers,
// communicators, phase groups, weights) and constraints ("constraints[2]: ...").
void validateProject(const Project& project);

}  // namespace libra
