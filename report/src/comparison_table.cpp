#include "libra/report/comparison_table.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "libra/display_text.hpp"
#include "libra/report/units.hpp"

namespace libra::report {

namespace {

// Digits after the point for values up to `largest`: about four significant ones.
int decimalsFor(double largest) {
  if (!(largest > 0) || !std::isfinite(largest)) return 2;
  return std::clamp(3 - static_cast<int>(std::floor(std::log10(largest))), 0, 3);
}

std::string capitalized(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

// One unit per group of rows, from the largest value in it (units.hpp).
struct Scales {
  Unit time, cost;
  int timeDecimals = 2, costDecimals = 2, perfDecimals = 2, perfPerCostDecimals = 2;
  bool tokens = false;
  bool anySystem = false;
};

Scales scalesOf(const Comparison& c) {
  Scales s;
  s.tokens = c.measure == PerformanceMeasure::TokensPerSecond;
  double maxTime = 0, maxCost = 0, maxPerf = 0;
  for (const DesignComparison& d : c.designs) {
    s.anySystem = s.anySystem || d.analysis.costScope == CostScope::System;
    if (!d.ok()) continue;
    const Evaluation& e = d.analysis.design.eval;
    if (std::isfinite(e.iterationNs)) maxTime = std::max(maxTime, std::fabs(e.iterationNs));
    for (double usd : {e.costUsd, e.networkCostUsd})
      if (std::isfinite(usd)) maxCost = std::max(maxCost, std::fabs(usd));
    if (d.performance) maxPerf = std::max(maxPerf, *d.performance);
  }
  s.time = timeUnitFor(maxTime);
  s.cost = costUnitFor(maxCost);
  s.timeDecimals = decimalsFor(s.time.of(maxTime));
  s.costDecimals = decimalsFor(s.cost.of(maxCost));
  s.perfDecimals = s.tokens ? (maxPerf >= 100 ? 0 : 2) : decimalsFor(maxPerf);
  double maxPerfPerCost = 0;
  for (const DesignComparison& d : c.designs)
    if (d.perfPerCost) maxPerfPerCost = std::max(maxPerfPerCost, *d.perfPerCost * s.cost.size);
  s.perfPerCostDecimals = decimalsFor(maxPerfPerCost);
  return s;
}

// Builds the rows: a heading, or a row of cell(design, index) per design.
class Rows {
 public:
  using CellOf = std::function<ComparisonCell(const DesignComparison&, std::size_t)>;

  Rows(const Comparison& c, const ComparisonTableOptions& o) : c_(c), o_(o) {}

  void heading(std::string label) { rows_.push_back({{}, std::move(label), false, {}}); }
  void row(std::string key, std::string label, bool indented, const CellOf& cell) {
    ComparisonRow r{std::move(key), std::move(label), indented, {}};
    for (std::size_t i = 0; i < c_.designs.size(); ++i) r.cells.push_back(cell(c_.designs[i], i));
    rows_.push_back(std::move(r));
  }
  ComparisonCell missing(std::optional<double> value = std::nullopt) const {
    return {std::string(o_.missing), value, {}};
  }
  // `value` / `unit` with `decimals`, for a design with a result.
  ComparisonCell number(const DesignComparison& d, double value, double unit, int decimals) const {
    if (!d.ok()) return missing();
    return {formatGrouped(value / unit, decimals), value, {}};
  }

  const Comparison& comparison() const { return c_; }
  const ComparisonTableOptions& options() const { return o_; }
  std::vector<ComparisonRow> take() { return std::move(rows_); }

 private:
  const Comparison& c_;
  const ComparisonTableOptions& o_;
  std::vector<ComparisonRow> rows_;
};

// Status, why not, objective, network and NPUs.
void addDesignRows(Rows& rows) {
  const Comparison& c = rows.comparison();
  if (rows.options().fileRow) {
    rows.row("file", "File", false, [](const DesignComparison& d, std::size_t) {
      return ComparisonCell{d.input.file, std::nullopt, {}};
    });
  }
  rows.row("status", "Status", false, [](const DesignComparison& d, std::size_t) {
    return ComparisonCell{statusWord(d.analysis), std::nullopt,
                          d.ok() ? std::string() : capitalized(d.analysis.message)};
  });
  // Why a design has no result, in the table and not only in a tooltip: short
  // in the cell (a column as wide as the message pushes the others out of
  // sight), whole in the detail.
  if (rows.options().reasonRow && !c.complete()) {
    rows.row("reason", "Why not solved", false, [](const DesignComparison& d, std::size_t) {
      if (d.ok()) return ComparisonCell{};
      constexpr std::size_t kShownChars = 48;
      const std::string why = capitalized(d.analysis.message);
      return ComparisonCell{displayText(why, kShownChars), std::nullopt, why};
    });
  }
  rows.row("objective", "Objective", false, [](const DesignComparison& d, std::size_t) {
    return ComparisonCell{
        d.analysis.objective == Objective::Performance ? "performance" : "perf per cost",
        std::nullopt,
        {}};
  });
  rows.row("network", "Network", false, [](const DesignComparison& d, std::size_t) {
    return ComparisonCell{shapeLabel(d.input.project.network), std::nullopt, {}};
  });
  rows.row("npus", "NPUs", false, [](const DesignComparison& d, std::size_t) {
    const auto n = static_cast<double>(d.input.project.network.npuCount());
    return ComparisonCell{formatCount(n), n, {}};
  });
}

// The split: one row per dimension name when every design has the same
// dimensions, else one per position with the name in the cell.
void addBandwidthRows(Rows& rows) {
  std::vector<std::string> names;
  bool sameDims = true;
  std::size_t widest = 0;
  for (const DesignComparison& d : rows.comparison().designs) {
    if (!d.ok() || !d.analysis.problem) continue;
    const std::vector<std::string>& n = d.analysis.problem->dimNames;
    if (names.empty()) names = n;
    sameDims = sameDims && n == names;
    widest = std::max(widest, n.size());
  }
  rows.heading("Bandwidth per NPU (GB/s)");
  for (std::size_t k = 0; k < widest; ++k) {
    const std::string label = sameDims && k < names.size()
                                  ? displayName(names[k])
                                  : "dimension " + std::to_string(k);  // as bw[k] and bw_k_gbps
    rows.row("bandwidth_gbps/" + std::to_string(k), label, true,
             [&rows, k, sameDims](const DesignComparison& d, std::size_t) {
               const DesignResult& r = d.analysis.design;
               if (!d.ok() || k >= r.bandwidth.size()) return rows.missing();
               std::string text = formatGrouped(r.bandwidth[k], 1);
               if (!sameDims && d.analysis.problem)
                 text = displayName(d.analysis.problem->dimNames[k]) + " " + text;
               return ComparisonCell{text, r.bandwidth[k], {}};
             });
  }
  rows.row("total_bandwidth_gbps", "total", true, [&rows](const DesignComparison& d, std::size_t) {
    return rows.number(d, d.analysis.design.totalBandwidth(), 1, 1);
  });
}

// Times, performance, training and memory, in the comparison's units.
void addTimeRows(Rows& rows, const Scales& s) {
  rows.heading("Time per iteration (" + s.time.name + ")");
  const auto time = [&rows, &s](const DesignComparison& d, double ns) {
    return rows.number(d, ns, s.time.size, s.timeDecimals);
  };
  rows.row("iteration_time_ns", "iteration", true, [&](const DesignComparison& d, std::size_t) {
    return time(d, d.analysis.design.eval.iterationNs);
  });
  rows.row("compute_time_ns", "compute", true, [&](const DesignComparison& d, std::size_t) {
    return time(d, d.analysis.design.eval.computeNs);
  });
  rows.row("communication_time_ns", "exposed communication", true,
           [&](const DesignComparison& d, std::size_t) {
             return time(d, d.analysis.design.eval.communicationNs);
           });
  rows.row(
      "performance", s.tokens ? "Throughput (tokens/s)" : "Iterations per second", false,
      [&](const DesignComparison& d, std::size_t) {
        if (!d.performance) return rows.missing();
        return ComparisonCell{formatGrouped(*d.performance, s.perfDecimals), d.performance, {}};
      });
  rows.row("mfu", "MFU", false, [&](const DesignComparison& d, std::size_t) {
    const auto& mfu = d.analysis.design.throughput.mfu;
    if (!d.ok() || !mfu) return rows.missing();
    return ComparisonCell{formatFixed(100 * *mfu, 1) + " %", mfu, {}};
  });
  rows.row("memory_per_npu_bytes", "Memory per NPU", false,
           [&](const DesignComparison& d, std::size_t) {
             const MemoryEstimate& m = d.analysis.training.memory;
             if (!m.use) return ComparisonCell{std::string(rows.options().missing), {}, m.note};
             std::string text = formatBytes(m.use->total());
             if (m.capacityBytes > 0) text += " of " + formatBytes(m.capacityBytes);
             if (!m.fits()) text += " (does not fit)";
             return ComparisonCell{text, m.use->total(), m.describe()};
           });
}

// Network and system cost, and perf per cost, in the comparison's cost unit.
void addCostRows(Rows& rows, const Scales& s) {
  rows.heading("Cost (" + s.cost.name + ")");
  rows.row("network_cost_usd", "network", true, [&](const DesignComparison& d, std::size_t) {
    return rows.number(d, d.analysis.design.eval.networkCostUsd, s.cost.size, s.costDecimals);
  });
  if (s.anySystem) {
    rows.row("cost_usd", "system (NPUs + network)", true,
             [&](const DesignComparison& d, std::size_t) {
               if (d.analysis.costScope != CostScope::System)
                 return ComparisonCell{"(network only)", std::nullopt,
                                       "This design counts the network's cost only"};
               return rows.number(d, d.analysis.design.eval.costUsd, s.cost.size, s.costDecimals);
             });
  }
  rows.row(
      "perf_per_cost",
      std::string(s.tokens ? "Perf per cost (tokens/s per " : "Perf per cost (iterations/s per ") +
          s.cost.name + ")",
      false, [&](const DesignComparison& d, std::size_t) {
        if (!d.perfPerCost) return rows.missing();
        return ComparisonCell{
            formatGrouped(*d.perfPerCost * s.cost.size, s.perfPerCostDecimals), d.perfPerCost, {}};
      });
}

// Each design against the baseline: "1.136× faster", "baseline".
void addRatioRows(Rows& rows) {
  const Comparison& c = rows.comparison();
  const bool tokens = c.measure == PerformanceMeasure::TokensPerSecond;
  rows.heading("Against the baseline, " + displayName(c.baselineDesign().input.name));
  const auto ratio =
      [&rows, &c](const DesignComparison& d, std::size_t i, const std::optional<double>& value,
                  const std::optional<double>& better, std::string_view up, std::string_view down) {
        if (i == c.baseline)
          return d.ok() ? ComparisonCell{"baseline", value, {}} : rows.missing(value);
        if (!value || !better || !(*better > 0)) return rows.missing(value);
        return ComparisonCell{ratioWords(*better, up, down, rows.options().times), value, {}};
      };
  rows.row("speedup", tokens ? "throughput" : "speed", true,
           [&](const DesignComparison& d, std::size_t i) {
             return ratio(d, i, d.speedup, d.speedup, "faster", "slower");
           });
  rows.row("cost_ratio", "cost", true, [&](const DesignComparison& d, std::size_t i) {
    // costRatio > 1 is dearer; ratioWords takes a ratio where > 1 is better.
    const std::optional<double> cheaper =
        d.costRatio && *d.costRatio > 0 ? std::optional<double>(1 / *d.costRatio) : std::nullopt;
    return ratio(d, i, d.costRatio, cheaper, "cheaper", "more expensive");
  });
  rows.row("perf_per_cost_ratio", "perf per cost", true,
           [&](const DesignComparison& d, std::size_t i) {
             return ratio(d, i, d.perfPerCostRatio, d.perfPerCostRatio, "better", "worse");
           });
}

}  // namespace

std::vector<ComparisonRow> comparisonRows(const Comparison& comparison,
                                          const ComparisonTableOptions& options) {
  Rows rows(comparison, options);
  const Scales scales = scalesOf(comparison);
  addDesignRows(rows);
  addBandwidthRows(rows);
  addTimeRows(rows, scales);
  addCostRows(rows, scales);
  addRatioRows(rows);
  return rows.take();
}

}  // namespace libra::report
