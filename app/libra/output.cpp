#include "output.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli.hpp"
#include "libra/display_text.hpp"
#include "libra/result_json.hpp"

namespace libra::cli {

std::string messageLine(std::string_view message) {
  std::string line(message);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return displayText(line);
}

namespace {

// Whatever its length: "%.0f" of 1e63 or more needs more than 64 characters.
std::string printfDouble(const char* format, double value) {
  char buffer[64];
  const int n = std::snprintf(buffer, sizeof buffer, format, value);
  if (n <= 0) return std::string();
  if (static_cast<std::size_t>(n) < sizeof buffer) return std::string(buffer, n);
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, value);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string ansi(bool on, const char* code, std::string_view text) {
  if (!on) return std::string(text);
  return std::string("\x1b[") + code + "m" + std::string(text) + "\x1b[0m";
}

std::string padded(const std::string& text, std::size_t width, Table::Align align) {
  const std::size_t shown = displayWidth(text);
  if (shown >= width) return text;
  const std::string pad(width - shown, ' ');
  return align == Table::Align::Left ? text + pad : pad + text;
}

}  // namespace

std::string Style::bold(std::string_view text) const {
  return ansi(color, "1", text);
}
std::string Style::good(std::string_view text) const {
  return ansi(color, "32", text);
}
std::string Style::bad(std::string_view text) const {
  return ansi(color, "31", text);
}

std::string formatUsd(double usd) {
  if (!std::isfinite(usd)) return formatFixed(usd, 0);  // "∞", "-∞", "-"
  const bool negative = usd < 0;
  const double a = std::abs(usd);
  std::string body;
  if (a >= 1e12) {
    const int exponent = static_cast<int>(std::floor(std::log10(a) / 3)) * 3;
    body = printfDouble("%.3f", a / std::pow(10.0, exponent)) + "e+" + std::to_string(exponent);
  } else if (a >= 1000) {
    body = report::formatCount(a);
  } else {
    body = printfDouble("%.2f", a);
  }
  return (negative ? "-$" : "$") + body;
}

std::string formatDuration(double ns) {
  if (!std::isfinite(ns)) return formatFixed(ns, 0);
  const double a = std::abs(ns);
  if (a == 0) return "0 ns";
  if (a < 1e3) return formatFixed(ns, 3) + " ns";
  if (a < 1e6) return formatFixed(ns / 1e3, 3) + " us";
  if (a < 1e9) return formatFixed(ns / 1e6, 3) + " ms";
  return formatFixed(ns / 1e9, 4) + " s";
}

std::string formatExact(double value) {
  if (!std::isfinite(value)) return formatFixed(value, 0);
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : printfDouble("%.17g", value);
}

void Table::addColumn(std::string_view header, Align align) {
  columns_.push_back({displayText(header, kTableCellLimit), align});
}

void Table::addRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  for (std::string& cell : cells) cell = displayText(cell, kTableCellLimit);
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out, const Style& style, std::string_view indent) const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = displayWidth(columns_[c].header);
    for (const auto& row : rows_) width[c] = std::max(width[c], displayWidth(row[c]));
  }
  // Padding is computed on the plain text; styling wraps the padded cell, so
  // escape codes never disturb the alignment.
  auto line = [&](auto cellText, bool header) {
    std::string text(indent);
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) text += "  ";
      const bool last = c + 1 == columns_.size();
      std::string cell = padded(cellText(c), width[c], columns_[c].align);
      if (last && columns_[c].align == Align::Left) {
        cell = cellText(c);  // no trailing blanks
      }
      text += header ? style.bold(cell) : cell;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  line([&](std::size_t c) { return columns_[c].header; }, true);
  for (const auto& row : rows_) line([&](std::size_t c) { return row[c]; }, false);
}

void printFields(std::ostream& out, const Style& style,
                 const std::vector<std::pair<std::string, std::string>>& fields) {
  // Labels can be names from files (compare's failures); values are composed
  // by the callers (styled, so not escaped here), who show the names and
  // messages in them with displayName and messageLine.
  std::vector<std::string> labels;
  std::size_t width = 0;
  for (const auto& field : fields) {
    labels.push_back(displayName(field.first));
    width = std::max(width, displayWidth(labels.back()));
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    out << style.bold(labels[i]) << std::string(width - displayWidth(labels[i]) + 2, ' ')
        << fields[i].second << '\n';
  }
}

std::string comparison(double ratio, std::string_view better, std::string_view worse) {
  return report::ratioWords(ratio, better, worse);
}

std::string modelDescription(const Analysis& a) {
  const ChunkSetting& chunks = a.model.collectives.chunks;
  if (chunks.isIdeal()) return "ideal (LIBRA: infinitely many chunks, no latency)";
  std::string text = chunks.kind == ChunkSetting::Kind::Auto
                         ? std::string("chunks chosen per collective (auto)")
                         : std::to_string(chunks.count) + " chunks per collective";
  std::string latency;
  for (double ns : a.latencyNs) latency += (latency.empty() ? "" : " / ") + formatFixed(ns, 0);
  text += ", link latency " + (latency.empty() ? "0" : latency) + " ns";
  if (a.endpointDelayNs > 0)
    text += ", endpoint delay " + formatFixed(a.endpointDelayNs, 0) + " ns";
  return text;
}

std::string formatLongDuration(double seconds) {
  if (!std::isfinite(seconds)) return formatFixed(seconds, 0);
  const double a = std::abs(seconds);
  if (a < 120) return formatFixed(seconds, 1) + " s";
  if (a < 7200) return formatFixed(seconds / 60, 1) + " min";
  if (a < 172800) return formatFixed(seconds / 3600, 1) + " h";
  return formatFixed(seconds / 86400, 1) + " days";
}

std::string batchText(const BatchPlan& b) {
  const bool tokens = b.sequenceLength > 1;
  std::string out =
      formatCount(b.tokensPerIteration()) + (tokens ? " tokens" : " samples") + " per iteration";
  std::string detail;
  if (tokens) {
    detail = std::to_string(b.globalBatch) + " x " + std::to_string(b.sequenceLength) + "; ";
  }
  detail += "micro-batch " + std::to_string(b.microBatch) + " x " + std::to_string(b.microBatches) +
            " on each of " + std::to_string(b.replicas) +
            (b.replicas == 1 ? " replica" : " replicas");
  return out + " (" + detail + ")";
}

std::string throughputText(const Throughput& t) {
  if (!t.tokensPerSecond) return "-";
  std::string out = printfDouble("%.4g", *t.tokensPerSecond) + " tokens/s";
  if (t.modelTflopsPerNpu)
    out += ", " + printfDouble("%.1f", *t.modelTflopsPerNpu) + " TFLOP/s per NPU";
  if (t.mfu) out += ", MFU " + printfDouble("%.1f", 100 * *t.mfu) + " %";
  return out;
}

Json trainingSummaryJson(const TrainingFacts& f) {
  Json j;
  j["tokens_per_iteration"] = result_json::optionalNumber(f.tokensPerIteration);
  if (f.batch) j["batch"] = result_json::batchJson(*f.batch);
  j["train_tokens"] = result_json::optionalNumber(f.trainTokens);
  j.update(result_json::memoryKeys(f.memory));
  j["memory_fits"] = f.memory.fits();
  return j;
}

std::vector<std::pair<std::string, std::string>> trainingFields(const Style& style,
                                                                const Analysis& a) {
  const TrainingFacts& f = a.training;
  std::vector<std::pair<std::string, std::string>> out;
  if (f.batch) out.emplace_back("Work", batchText(*f.batch));
  const Throughput& t = a.design.throughput;
  if (t.tokensPerSecond) {
    out.emplace_back("Throughput", throughputText(t));
  } else if (!f.note.empty()) {
    out.emplace_back("Throughput", "unknown: " + f.note);
  }
  if (t.timeToTrainS && f.trainTokens) {
    out.emplace_back("Time to train", formatLongDuration(*t.timeToTrainS) + " for " +
                                          printfDouble("%.4g", *f.trainTokens) + " tokens");
  } else if (t.tokensPerSecond && !f.trainNote.empty()) {
    out.emplace_back("Time to train", "unknown: " + f.trainNote);
  }
  if (f.pipelineBubble && *f.pipelineBubble > 0) {
    out.emplace_back("Pipeline bubble",
                     printfDouble("%.1f", 100 * *f.pipelineBubble) +
                         " % of the ideal time ((PP - 1) / micro-batches, 1F1B)");
  }
  if (f.memory.use) {
    std::string text = f.memory.describe();
    if (!f.memory.fits()) text = style.bad("does not fit: ") + text;
    out.emplace_back("Memory", text);
  } else if (!f.memory.note.empty()) {
    out.emplace_back("Memory", "unknown: " + f.memory.note);
  }
  if (!a.dimensionsWithoutTraffic.empty()) {
    std::string list;
    for (const std::string& d : a.dimensionsWithoutTraffic) list += (list.empty() ? "" : ", ") + d;
    out.emplace_back("No traffic on", list + " (no collective uses it, so it needs no bandwidth)");
  }
  return out;
}

namespace {

// "+2.155 ms" where more makes it worse, "-1.2 us" where more helps.
std::string signedDuration(double ns) {
  return (ns > 0 ? "+" : "") + formatDuration(ns);
}

// One direction's rate: "-1.2 us per GB/s", "0", or "infeasible".
std::string rateText(const std::optional<double>& rate, const std::string& unit) {
  if (!rate) return "infeasible";
  if (*rate == 0) return "0";
  if (unit == "$") return signedDuration(*rate * 1e6) + " per $1 M";
  return signedDuration(*rate) + " per " + unit;
}

void printSensitivity(std::ostream& out, const Style& style, const Sensitivity& s) {
  out << '\n';
  if (!s.computed) {
    printFields(out, style, {{"Sensitivity", "not computed: " + s.note}});
    return;
  }
  out << style.bold(s.objective == Objective::Performance
                        ? "Sensitivity: iteration time per unit of each constraint's right-hand "
                          "side, re-solved one step up and one step down"
                        : "Sensitivity: time x cost per unit of each constraint's right-hand "
                          "side, over the cost (ns at the optimum's cost), re-solved one step "
                          "up and one step down")
      << '\n';
  if (!s.constraints.empty()) {
    Table table;
    table.addColumn("constraint", Table::Align::Left);
    table.addColumn("binding", Table::Align::Left);
    table.addColumn("one unit more", Table::Align::Left);
    table.addColumn("one unit less", Table::Align::Left);
    for (const ConstraintSensitivity& c : s.constraints) {
      table.addRow({c.constraint, c.binding ? "yes" : "no", rateText(c.nsPerUnit, c.unit),
                    rateText(c.nsPerUnitDown, c.unit)});
    }
    table.print(out, style, "  ");
  }
  std::string perDim;
  for (const DimensionSensitivity& d : s.dims) {
    perDim += (perDim.empty() ? "" : ", ") + displayName(d.name) + " " +
              (d.nsPerGbps ? signedDuration(*d.nsPerGbps) : std::string("infeasible"));
    if (directionsDiffer(d.nsPerGbps, d.nsPerGbpsDown)) {
      perDim += " (one less: " +
                (d.nsPerGbpsDown ? signedDuration(*d.nsPerGbpsDown) : std::string("none to take")) +
                ")";
    }
  }
  std::vector<std::pair<std::string, std::string>> fields{
      {"  one more GB/s on one dimension alone", perDim}};
  const std::vector<std::string> bottlenecks = s.bottlenecks();
  std::string list;
  for (const std::string& b : bottlenecks) list += (list.empty() ? "" : ", ") + b;
  fields.emplace_back("  bottleneck" + std::string(bottlenecks.size() > 1 ? "s" : ""),
                      list.empty() ? "none (more bandwidth on one dimension alone does not help)"
                      : bottlenecks.size() == s.dims.size() && s.dims.size() > 1
                          ? list + " (balanced: a GB/s is worth the same on each)"
                          : list);
  printFields(out, style, fields);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> projectFields(const Analysis& a) {
  std::vector<std::pair<std::string, std::string>> fields{
      {"Project",
       a.projectName.empty() ? "(unnamed)" : displayText(a.projectName, kDisplayTitleLimit)}};
  if (!a.scenarioName.empty()) fields.emplace_back("Scenario", displayName(a.scenarioName));
  return fields;
}

namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

// One row per dimension: its bandwidth, busy and exposed time, cost share.
void printDimensions(std::ostream& out, const Style& style, const DesignResult& d) {
  Table table;
  table.addColumn("#");
  table.addColumn("name", Table::Align::Left);
  table.addColumn("block", Table::Align::Left);
  table.addColumn("NPUs");
  table.addColumn("bandwidth (GB/s)");
  table.addColumn("busy time (ms)");
  table.addColumn("exposed (ms)");
  table.addColumn("cost share");
  auto ms = [](double ns) {
    const double v = ns / 1e6;
    return v != 0 && std::abs(v) < 1e-3 ? printfDouble("%.3e", v) : formatFixed(v, 3);
  };
  for (std::size_t i = 0; i < d.dims.size(); ++i) {
    const DimensionResult& dim = d.dims[i];
    table.addRow({std::to_string(i), dim.name, std::string(toString(dim.block)),
                  std::to_string(dim.npus), formatFixed(dim.bandwidthGbps, 3), ms(dim.busyNs),
                  ms(dim.exposedNs),
                  d.eval.networkCostUsd > 0 ? formatFixed(100 * dim.costShare, 1) + " %" : "-"});
  }
  table.addRow({"", "total", "", "", formatFixed(d.totalBandwidth(), 3), "", "", ""});
  table.print(out, style);
  out << '\n';
}

// The equal split of the same total and how the design compares with it.
void addBaselineFields(Fields& totals, const Style& style, const Baseline& b) {
  const double each = b.design.bandwidth.empty() ? 0.0 : b.design.bandwidth.front();
  std::string line = formatFixed(each, 3) + " GB/s on each dimension (same total): " +
                     formatDuration(b.design.eval.iterationNs) + ", " +
                     formatUsd(b.design.eval.costUsd);
  if (!b.satisfiesConstraints()) {
    std::string list;
    for (const auto& text : b.violated) list += (list.empty() ? "" : "; ") + text;
    line += "; " + style.bad("breaks ") + list;
  }
  totals.emplace_back("Equal split", line);
  if (b.speedup) {
    totals.emplace_back("  this design is", comparison(*b.speedup) + " per iteration");
  }
  if (b.communicationSpeedup) {
    totals.emplace_back("  communication", comparison(*b.communicationSpeedup));
  }
  if (b.timeCostGain) {
    totals.emplace_back("  time x cost", comparison(*b.timeCostGain, "better", "worse"));
  }
}

// Iteration time and its parts, costs, and the solver's surrogate.
Fields timeAndCostFields(const Analysis& a) {
  const Evaluation& e = a.design.eval;
  Fields totals{
      {"Iteration time", formatDuration(e.iterationNs)},
      {"  compute", formatDuration(e.computeNs)},
      {"  exposed communication", formatDuration(e.communicationNs)},
      {"Network cost", formatUsd(e.networkCostUsd)},
  };
  if (a.costScope == CostScope::System) {
    totals.emplace_back("System cost", formatUsd(e.costUsd) + " (NPUs " + formatUsd(a.npuCostUsd) +
                                           " + network; cost scope system)");
  }
  if (a.costBudgetUsd) totals.emplace_back("Cost budget", formatUsd(*a.costBudgetUsd));
  if (!a.model.collectives.chunks.isIdeal()) {
    // The solvers minimize a convex surrogate of the chunked schedule; every
    // time above is the exact schedule's.
    const auto gap = surrogateGap(e);
    totals.emplace_back("Solver's surrogate", formatDuration(e.surrogateIterationNs) +
                                                  (gap ? " (" + printfDouble("%+.2f", 100 * *gap) +
                                                             " % of the exact time)"
                                                       : std::string()));
  }
  if (const auto tc = a.design.timeCost(); tc && a.objective == Objective::PerfPerCost) {
    totals.emplace_back("Time x cost", printfDouble("%.4e", *tc * 1e-9) + " s*$");
  }
  return totals;
}

}  // namespace

void printAnalysis(std::ostream& out, const Style& style, const Analysis& a) {
  Fields head = projectFields(a);
  if (a.evaluated) {
    head.emplace_back("Design", "given bandwidths, evaluated (not optimized)");
  } else {
    head.emplace_back("Objective", std::string(toString(a.objective)));
    head.emplace_back("Solver", std::string(toString(a.backend)) + ", " +
                                    std::to_string(a.iterations) + " iteration" +
                                    (a.iterations == 1 ? "" : "s") + ", " +
                                    formatDuration(a.solveNs));
  }
  head.emplace_back("Collective model", modelDescription(a));
  head.emplace_back("Status", style.good(statusWord(a)));
  printFields(out, style, head);
  out << '\n';
  printDimensions(out, style, a.design);

  Fields totals = timeAndCostFields(a);
  if (a.baseline) addBaselineFields(totals, style, *a.baseline);
  for (auto& field : trainingFields(style, a)) totals.push_back(std::move(field));
  if (!a.design.eval.finite) {
    totals.emplace_back(
        "Note", "a dimension that carries traffic has no bandwidth, so the time is infinite");
  }
  for (const std::string& v : a.limitViolations) {
    totals.emplace_back("Not buildable", style.bad(v));
  }
  if (a.evaluated) {
    if (a.violated.empty()) {
      totals.emplace_back("Constraints", a.constraints.empty() ? "none" : "all satisfied");
    } else {
      std::string list;
      for (const auto& text : a.violated) list += (list.empty() ? "" : "; ") + text;
      totals.emplace_back("Constraints", style.bad("violated: ") + list);
    }
  }
  printFields(out, style, totals);
  if (!a.evaluated) printSensitivity(out, style, a.sensitivity);
}

int reportNoSolution(std::ostream& out, std::ostream& err, const std::string& status,
                     const std::string& message, const std::string& failureJsonText, bool json) {
  if (json) out << failureJsonText << std::endl;
  err << "libra: " << status << ": "
      << (message.empty() ? "the solver stopped without saying why" : messageLine(message))
      << std::endl;
  return kExitNoSolution;
}

const char* const kConstraintHelp =
    "Constraints are linear (in)equalities over the bandwidths, one per --constraint:\n"
    "  total == 500          sum of all bandwidths, GB/s\n"
    "  bw[0] == 500          by index (0 = innermost) or by name: bw[pod] <= 50\n"
    "  bw[0] >= bw[1]        orderings\n"
    "  bw[2] + bw[3] == 200  sums, and 2*bw[1] - bw[2] >= 0\n"
    "  cost <= 4.5e7         network cost in US dollars\n"
    "Operators ==, <=, >=; numbers may have exponents.";

void printWrittenProject(std::ostream& out, const std::string& output, const Project& project,
                         bool json, const Json& extra, const std::string& detail) {
  std::size_t layers = 0;
  for (const Workload& w : project.workloads) layers += w.layers.size();
  if (json) {
    Json j;
    j["status"] = "written";
    j["output"] = output;
    j["project"] = project.name;
    for (const auto& [key, value] : extra.items()) j[key] = value;
    j["dimensions"] = project.network.names();
    j["npus"] = project.network.npuCount();
    j["layers"] = layers;
    j["constraints"] = project.constraints;
    j["objective"] = std::string(toString(project.objective));
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return;
  }
  std::string dims;
  for (const std::string& n : project.network.names()) {
    dims += (dims.empty() ? "" : ", ") + displayName(n);
  }
  std::string constraints;
  for (const std::string& c : project.constraints) {
    constraints += (constraints.empty() ? "" : "; ") + echoText(c);
  }
  out << "wrote " << output << ": project " << quotedText(project.name) << ", "
      << (detail.empty() ? "" : detail + ", ") << project.network.size() << " dimensions (" << dims
      << "), " << project.network.npuCount() << " NPUs, " << layers
      << (layers == 1 ? " layer" : " layers")
      << ", constraints: " << (constraints.empty() ? "none" : constraints) << '\n';
}

}  // namespace libra::cli
