// Comparing designs: the optimum of each of several designs (scenarios of a
// project, or projects) side by side, with ratios against one of them, the
// baseline. `libra compare` and the GUI's comparison read a Comparison; the
// numbers of each design are its Analysis' (analysis.hpp), the ratios are
// computed here and nowhere else.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "libra/analysis.hpp"
#include "libra/project.hpp"

namespace libra {

// One design to compare: its active scenario is what is solved.
struct DesignInput {
  std::string name;      // unique among the compared designs; the legend and column title
  std::string file;      // where it came from (for the JSON and CSV), may be empty
  std::string scenario;  // its scenario's name, may be empty
  Project project;
};

// Every scenario of `project` as a design, in order, named by the scenario (a
// lone unnamed scenario by the project's name, else "Scenario 1").
std::vector<DesignInput> scenarioDesigns(const Project& project, const std::string& file = {});

// How the designs' performance is measured: training throughput (tokens, or
// samples for CNN and DLRM, per second) when every design with a result knows
// it (its workload comes from a preset), else iterations per second
// (1 / iteration time), which compares like with like only when the designs
// train the same work per iteration.
enum class PerformanceMeasure { TokensPerSecond, IterationsPerSecond };
std::string_view toString(PerformanceMeasure measure);  // "tokens_per_second", ...

// A design's performance in `measure` (its throughput's tokens/s, or 1e9 / its
// iteration time) and that per $ of its cost in the cost scope; nullopt where
// either is missing, not finite or not positive. One rule for `compare`, the
// report's tables and the window.
std::optional<double> performanceIn(PerformanceMeasure measure, const Throughput& throughput,
                                    const Evaluation& eval);
std::optional<double> perfPerCostIn(PerformanceMeasure measure, const Throughput& throughput,
                                    const Evaluation& eval);

struct ComparisonOptions {
  // The same for every design: objective, extra constraints (or
  // projectConstraints = false), model overrides, backend, Pareto points (the
  // GUI overlays the fronts). Its onDesign is not called; see onAnalysis.
  AnalysisOptions analysis;
  std::string baseline;  // the design the ratios are against; empty: the first
  // Called after each design is analyzed, in order (progress for the GUI).
  std::function<void(std::size_t index, const Analysis&)> onAnalysis;
};

struct DesignComparison {
  DesignInput input;  // its project included
  // The analysis of the design. A design whose input is bad (a constraint
  // naming a dimension it does not have, an NPU price it does not know) has
  // status Error and the message of that error: one design's failure is not the
  // comparison's.
  Analysis analysis;
  bool refused = false;  // the engine refused its input (InputError): status Error

  // Performance in the comparison's measure and performance per cost (per $ of
  // the cost in the design's scope, network or system); nullopt without a
  // result, or when the time or cost is zero or not finite.
  std::optional<double> performance;
  std::optional<double> perfPerCost;
  // Against the baseline (1 for the baseline itself); nullopt where either
  // side is unknown:
  std::optional<double> speedup;           // performance / baseline's (> 1: faster)
  std::optional<double> costRatio;         // cost / baseline's (> 1: dearer)
  std::optional<double> perfPerCostRatio;  // perf per cost / baseline's (> 1: better)

  bool ok() const { return analysis.ok(); }
};

struct Comparison {
  std::vector<DesignComparison> designs;  // in the order given
  std::size_t baseline = 0;               // index into designs
  PerformanceMeasure measure = PerformanceMeasure::IterationsPerSecond;
  // Sentences a reader of the numbers needs: the measure when it is not the
  // throughput, cost scopes that differ, a baseline without a result.
  std::vector<std::string> notes;

  // Every design has a result.
  bool complete() const;
  const DesignComparison& baselineDesign() const { return designs[baseline]; }
};

// Analyzes each design (analyze(), with `options.analysis`) and compares them.
// Throws InputError when there is no design, two designs share a name, or
// options.baseline names none of them.
Comparison compareDesigns(std::span<const DesignInput> designs,
                          const ComparisonOptions& options = {});
// Compares designs that are analyzed already (each with its input, analysis
// and refused flag set; the rest is filled in): the measure, the ratios and the
// notes, as compareDesigns does after analyzing. For a caller that holds an
// analysis (the GUI's shown result) and must not solve it again. Throws
// InputError as compareDesigns does.
Comparison compareAnalyzed(std::vector<DesignComparison> designs, const std::string& baseline = {});

// `compare --json`: {"status", "baseline", "performance_measure",
// "perf_per_cost_unit", "designs": [...], "notes"}; every design object has
// the same keys, null where unknown (compare.cpp lists them).
std::string comparisonJson(const Comparison& comparison);
// `compare --csv`: one row per design, the keys of the JSON design objects
// that are single values, bw_0_gbps... for the widest design, then message.
std::string comparisonCsv(const Comparison& comparison);

}  // namespace libra
