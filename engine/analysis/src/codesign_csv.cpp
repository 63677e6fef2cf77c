// The co-design's CSV writers (codesign.hpp): the designs listed and every design
// solved share the columns that say what a design is.
#include <algorithm>
#include <cmath>
#include <string>

#include "libra/codesign.hpp"
#include "libra/result_json.hpp"
#include "text.hpp"

namespace libra {

namespace {

using result_json::csvField;

// Shortest text that reads back to the same double; empty when not finite.
std::string csvNumber(double v) {
  return std::isfinite(v) ? text::formatNumber(v) : std::string();
}

constexpr const char* kDesignColumns =
    "shape,total_npus,npus,blocks,tp,pp,dp,ep,expert_tp,cp,virtual_stages,micro_batch,zero,"
    "recompute,sequence_parallel,placement,bandwidth_gbps,iteration_time_ns,time_to_train_s";

// The kDesignColumns of one design.
std::string designFields(const std::string& label, std::int64_t totalNpus, const Network& network,
                         const Execution& execution, const std::vector<double>& bandwidth,
                         double iterationNs, double timeToTrainS) {
  const Parallelism& p = execution.parallelism;
  std::string npus, blocks, bw;
  for (const Dimension& dim : network.dims) {
    npus += (npus.empty() ? "" : "x") + std::to_string(dim.npus);
    blocks += (blocks.empty() ? "" : ";") + std::string(toString(dim.block));
  }
  for (double b : bandwidth) bw += (bw.empty() ? "" : ";") + csvNumber(b);
  std::string out = csvField(label);
  for (const std::string& field :
       {std::to_string(totalNpus), npus, blocks, std::to_string(p.tp), std::to_string(p.pp),
        std::to_string(p.dp), std::to_string(p.ep), std::to_string(p.etp()), std::to_string(p.cp),
        std::to_string(execution.virtualStages), std::to_string(execution.microBatch),
        std::to_string(p.zero()), std::string(toString(execution.recomputation())),
        std::string(p.sequenceParallel ? "1" : "0"), csvField(placementText(network, p)), bw,
        csvNumber(iterationNs), csvNumber(timeToTrainS)}) {
    out += "," + field;
  }
  return out;
}

// Whether a solved point has the time and cost of a design on the front.
bool solvedOnFront(const CodesignResult& result, const CodesignPoint& point) {
  return std::any_of(result.pareto.begin(), result.pareto.end(), [&](int k) {
    return sameTimeAndCost(point, result.designs[static_cast<std::size_t>(k)]);
  });
}

}  // namespace

std::string placementText(const Network& network, const Parallelism& parallelism) {
  std::string out;
  for (ParallelAxis a : kParallelAxes) {
    const std::vector<int>& groups = parallelism.groupsOf(a);
    std::string where;
    for (std::size_t k = 0; k < groups.size() && k < network.dims.size(); ++k) {
      if (groups[k] < 2) continue;
      const Dimension& dim = network.dims[k];
      const bool whole = groups[k] == dim.npus;
      where += (where.empty() ? "" : " x ") + dim.name + " (" + std::to_string(groups[k]) +
               (whole ? "" : " of " + std::to_string(dim.npus)) + ")";
    }
    if (!where.empty())
      out += (out.empty() ? "" : "; ") + std::string(shortName(a)) + " on " + where;
  }
  return out.empty() ? "one NPU" : out;
}

std::string codesignCsv(const CodesignResult& result) {
  std::string out = std::string("rank,pareto,") + kDesignColumns +
                    ",tokens_per_second,mfu,memory_per_npu_bytes,network_cost_usd,"
                    "system_cost_usd\n";
  for (std::size_t k = 0; k < result.designs.size(); ++k) {
    const CodesignDesign& d = result.designs[k];
    const auto optional = [](const std::optional<double>& v) {
      return v ? csvNumber(*v) : std::string();
    };
    out += std::to_string(k + 1) + (result.onFront(k) ? ",1," : ",0,") +
           designFields(d.label, d.npus, d.network, d.execution, d.solution.bandwidth,
                        d.solution.eval.iterationNs, d.timeToTrainS()) +
           "," + optional(d.throughput.tokensPerSecond) + "," + optional(d.throughput.mfu) + "," +
           (d.memory.use ? csvNumber(d.memory.use->total()) : std::string()) + "," +
           csvNumber(d.networkCostUsd) + "," + csvNumber(d.systemCostUsd) + "\n";
  }
  return out;
}

std::string designSpaceCsv(const CodesignResult& result) {
  std::string out = std::string("pareto,") + kDesignColumns + ",cost_usd,network_cost_usd\n";
  for (const CodesignPoint& p : result.points) {
    out += std::string(solvedOnFront(result, p) ? "1," : "0,") +
           designFields(p.label, p.npus, p.network, p.execution, p.bandwidth, p.iterationNs,
                        p.timeToTrainS) +
           "," + csvNumber(p.costUsd) + "," + csvNumber(p.networkCostUsd) + "\n";
  }
  return out;
}

}  // namespace libra
