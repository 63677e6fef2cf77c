// The project's functions that need the workload presets: its problem
// (buildProblem), its described name, its NPU price, validation, and a new
// project from a preset (makeProject). Moved here from problem.cpp and
// generator.cpp so that the model and the presets stay below the project.
#include "libra/project.hpp"

#include <algorithm>
#include <cmath>

#include "libra/error.hpp"
#include "libra/presets.hpp"
#include "text.hpp"

namespace libra {

namespace {

void addBound(Problem& p, int d, Relation rel, double value, const char* what) {
  LinearConstraint c;
  c.coefficients.assign(p.dims(), 0.0);
  c.coefficients[d] = 1;
  c.relation = rel;
  c.rhs = value;
  c.text = "bw[" + p.dimNames[d] + "] " + std::string(toString(rel)) + " " +
           text::formatNumber(value) + " (" + what + " of dimension '" + p.dimNames[d] + "')";
  p.constraints.push_back(std::move(c));
}

}  // namespace

std::optional<NpuPrice> npuPrice(const Scenario& project) {
  if (project.npuPriceUsd) return NpuPrice{*project.npuPriceUsd, "npu_price_usd"};
  const Device* device = nullptr;
  for (const Workload& w : project.workloads) {
    if (!w.origin || w.origin->device.empty()) continue;
    const Device& d = findDevice(w.origin->device);
    if (device && d.listPriceUsd != device->listPriceUsd) {
      throw InputError("cost scope system: the workloads run on devices of different prices (" +
                       device->id + ", " + d.id + "); set npu_price_usd or give --npu-price");
    }
    device = &d;
  }
  if (!device || device->listPriceUsd <= 0) return std::nullopt;
  return NpuPrice{device->listPriceUsd,
                  "list price of the " + device->name + " (" + device->priceSource + ")"};
}

double npuCostUsd(const Scenario& project) {
  if (project.costScope == CostScope::Network) return 0;
  if (project.npuPriceUsd && (!std::isfinite(*project.npuPriceUsd) || *project.npuPriceUsd < 0)) {
    throw InputError("npu_price_usd: " + text::formatNumber(*project.npuPriceUsd) +
                     " must be a finite number >= 0 ($ per NPU)");
  }
  const std::optional<NpuPrice> price = npuPrice(project);
  if (!price) {
    throw InputError(
        "cost scope system: the price of an NPU is not known (no workload names a device "
        "with a list price); set npu_price_usd in the project or give --npu-price USD");
  }
  const double usd = static_cast<double>(project.network.npuCount()) * price->usd;
  if (!(usd <= kMaxCostPerBandwidth)) {
    throw InputError("cost scope system: the NPUs cost " + text::formatNumber(usd) +
                     " $, more than " + text::formatNumber(kMaxCostPerBandwidth) +
                     "; give a smaller npu_price_usd");
  }
  return usd;
}

namespace {

// Everything of buildProblem but the time model: costs, bounds, constraints.
Problem problemWithTime(const Scenario& project, TimeModel time,
                        std::span<const std::string> extraConstraints);

}  // namespace

Problem buildProblem(const Scenario& project, std::span<const std::string> extraConstraints) {
  project.network.validate();
  if (project.workloads.empty()) throw InputError("project: it has no workload");
  // Compiling the time model checks communicators, phase groups, compute times,
  // collective sizes and weights, with messages naming the workload and layer.
  return problemWithTime(project, buildTimeModel(project.network, project.workloads, project.model),
                         extraConstraints);
}

Problem buildProblem(const Scenario& project, TimeModel time) {
  project.network.validate();
  return problemWithTime(project, std::move(time), {});
}

namespace {

Problem problemWithTime(const Scenario& project, TimeModel time,
                        std::span<const std::string> extraConstraints) {
  Problem p;
  p.dimNames = project.network.names();
  p.costPerBandwidth = costPerBandwidth(project.network, project.costModel);
  p.fixedCostUsd = npuCostUsd(project);
  p.time = std::move(time);
  for (int d = 0; d < project.network.size(); ++d) {
    const Dimension& dim = project.network.dims[d];
    if (dim.fixedBandwidth) addBound(p, d, Relation::Equal, *dim.fixedBandwidth, "fixed bandwidth");
    if (dim.minBandwidth) addBound(p, d, Relation::GreaterEqual, *dim.minBandwidth, "minimum");
    if (dim.maxBandwidth) addBound(p, d, Relation::LessEqual, *dim.maxBandwidth, "maximum");
  }
  for (std::size_t i = 0; i < project.constraints.size(); ++i) {
    try {
      p.constraints.push_back(p.compile(project.constraints[i]));
    } catch (const InputError& e) {
      throw InputError("constraints[" + std::to_string(i) + "]: " + e.what());
    }
  }
  for (const auto& text : extraConstraints) {
    p.constraints.push_back(p.compile(text));
  }
  return p;
}

}  // namespace

std::string describedName(const Project& project) {
  std::vector<std::string> labels;
  for (const Workload& w : project.workloads) {
    std::string label = w.name;
    if (w.origin) {
      try {
        if (const auto choice = presetChoiceOf(w)) label = modelOf(*choice).name;
      } catch (const InputError&) {
        // A preset this build does not know: the workload's own name.
      }
    }
    // Two workloads of one model (pipeline slots) are named once.
    if (!label.empty() && std::find(labels.begin(), labels.end(), label) == labels.end())
      labels.push_back(std::move(label));
  }
  std::string workloads;
  for (const std::string& label : labels) workloads += (workloads.empty() ? "" : " + ") + label;
  const Network& n = project.network;
  std::string network =
      n.dims.empty() ? std::string("an empty network")
                     : "a " + std::to_string(n.dims.size()) + "D network (" + shapeLabel(n) + ")";
  return (workloads.empty() ? std::string("No workload") : workloads) + " on " + network;
}

void followDescribedName(const Project& before, Project& after) {
  if (after.name != before.name) return;  // this edit names the project
  if (!before.name.empty() && before.name != describedName(before)) return;
  after.name = describedName(after);
}

void applyModelOverrides(Scenario& project, const ModelOverrides& overrides) {
  if (overrides.chunks) project.model.collectives.chunks = *overrides.chunks;
  if (overrides.costScope) project.costScope = *overrides.costScope;
  if (overrides.npuPriceUsd) {
    const double usd = *overrides.npuPriceUsd;
    if (!std::isfinite(usd) || usd < 0) {
      throw InputError("--npu-price: " + text::formatNumber(usd) +
                       " must be a finite number >= 0 ($ per NPU)");
    }
    project.npuPriceUsd = usd;
  }
  if (overrides.endpointDelayNs) {
    const double ns = *overrides.endpointDelayNs;
    if (!std::isfinite(ns) || ns < 0) {
      throw InputError("--endpoint-delay: " + text::formatNumber(ns) +
                       " must be a finite number >= 0 ns");
    }
    project.network.endpointDelayNs = ns;
  }
  const std::vector<double>& lat = overrides.latencyNs;
  if (lat.empty()) return;
  const int dims = project.network.size();
  if (lat.size() != 1 && static_cast<int>(lat.size()) != dims) {
    throw InputError("--latency: " + std::to_string(lat.size()) +
                     " values given, but the network has " + std::to_string(dims) +
                     " dimensions; give one value for all or one per dimension");
  }
  for (std::size_t i = 0; i < lat.size(); ++i) {
    if (!std::isfinite(lat[i]) || lat[i] < 0) {
      throw InputError("--latency: value " + std::to_string(i + 1) + " is " +
                       text::formatNumber(lat[i]) + "; a latency is a finite number >= 0 ns");
    }
  }
  for (int d = 0; d < dims; ++d) {
    project.network.dims[d].latencyNs = lat.size() == 1 ? lat[0] : lat[d];
  }
}

void validateProject(const Project& project) {
  validateScenarioNames(project);
  if (project.otherScenarios.empty()) {
    (void)buildProblem(project);
    return;
  }
  const std::vector<NamedScenario> list = scenarios(project);
  for (std::size_t i = 0; i < list.size(); ++i) {
    try {
      (void)buildProblem(list[i].scenario);
    } catch (const InputError& e) {
      throw InputError("scenarios[" + std::to_string(i) + "] ('" + text::abbreviate(list[i].name) +
                       "'): " + e.what());
    }
  }
}

Network projectNetwork(const Network& network, const ProjectOptions& options) {
  Network out = network;
  if (options.defaultLatencies) {
    for (Dimension& d : out.dims) {
      if (d.latencyNs == 0) d.latencyNs = defaultLinkLatencyNs(d.block);
    }
    if (out.endpointDelayNs == 0) out.endpointDelayNs = defaultEndpointDelayNs();
  }
  return out;
}

Project makeProject(const Preset& preset, const Parallelism& parallelism, const Device& device,
                    const Network& network, const ProjectOptions& options) {
  Parallelism p = parallelism;
  TrainingLoop loop = options.trainingLoop;
  if (loop == TrainingLoop::Recompute) {
    // Realized by the generator so that ZeRO-3 gathers are not repeated (section 5).
    p.recompute = true;
    loop = TrainingLoop::NoOverlap;
  }
  Project project;
  project.network = projectNetwork(network, options);
  project.model.collectives = options.collectives;
  project.costModel = options.costModel;
  project.workloads.push_back(
      generateWorkload(preset, p, device, project.network, options.generator));
  project.model.trainingLoop = loop;
  project.constraints = options.constraints;
  project.objective = options.objective;
  project.name = options.name.empty() ? describedName(project) : options.name;
  validateProject(project);
  return project;
}

}  // namespace libra
