#include "libra/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>

#include "libra/cost.hpp"
#include "libra/display_text.hpp"
#include "libra/presets.hpp"
#include "libra/report/comparison_table.hpp"
#include "libra/report/units.hpp"
#include "libra/training.hpp"

namespace libra::report {

namespace {

// The GUI's colours (ui/charts/charts.cpp), so the report reads like the window.
constexpr const char* kFrontColor = "#1f77b4";
constexpr const char* kOptimumColor = "#d62728";
constexpr const char* kPerfPerCostColor = "#2ca02c";
constexpr const char* kEqualSplitColor = "#7f7f7f";
constexpr const char* kEqualSplitBarColor = "#a5a5a5";
constexpr const char* kBudgetColor = "#8c564b";
constexpr const char* kComputeColor = "#c7c7c7";
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
const char* paletteColor(std::size_t i) {
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

std::string esc(std::string_view text) {
  return escapeXml(text);
}

std::string fixed(double v, int decimals) {
  return formatFixed(v, decimals);
}

// A rate as the GUI shows it: with thousands separators from 1,000
// ("1,371,105 tokens/s", not "1.371e+06"), three decimals below.
std::string rate(double v) {
  if (!std::isfinite(v)) return "-";
  return std::fabs(v) >= 1000 ? formatCount(v) : formatFixed(v, 3);
}

// report::ratioWords of a ratio that may be missing ("-").
std::string ratioWords(const std::optional<double>& ratio, std::string_view better,
                       std::string_view worse) {
  return ratio ? report::ratioWords(*ratio, better, worse) : std::string("-");
}

std::string signedTime(double ns) {
  return (ns > 0 ? "+" : "") + formatTime(ns);
}

std::string joined(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

// --- HTML pieces ---------------------------------------------------------------------

struct Cell {
  std::string html;  // already escaped
  bool number = false;
  std::string cls;
};
Cell text(std::string_view t) {
  return {esc(t), false, {}};
}
// A row label; "  label" is a row under the group above it (indented).
Cell rowLabel(std::string_view t) {
  if (t.rfind("  ", 0) == 0) return {esc(t.substr(2)), false, "sub"};
  return text(t);
}
Cell number(std::string_view t) {
  return {esc(t), true, {}};
}

class HtmlTable {
 public:
  explicit HtmlTable(std::vector<Cell> header) : header_(std::move(header)) {}
  void row(std::vector<Cell> cells) { rows_.push_back(std::move(cells)); }
  std::string html(const std::string& cls = {}) const {
    // A full-width table also says so as an attribute, which QTextDocument reads.
    std::string out = "<table" + (cls.empty() ? "" : " class=\"" + cls + "\"") +
                      (cls == "full" ? " width=\"100%\"" : "") + ">\n<tr>";
    for (const Cell& c : header_) out += cell("th", c);
    out += "</tr>\n";
    for (const std::vector<Cell>& r : rows_) {
      out += "<tr>";
      for (const Cell& c : r) out += cell("td", c);
      out += "</tr>\n";
    }
    return out + "</table>\n";
  }

 private:
  static std::string cell(const char* tag, const Cell& c) {
    std::string cls = c.cls;
    if (c.number) cls += cls.empty() ? "num" : " num";
    return std::string("<") + tag + (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + c.html +
           "</" + tag + ">";
  }
  std::vector<Cell> header_;
  std::vector<std::vector<Cell>> rows_;
};

constexpr const char* kStyle =
    R"(body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 10pt; color: #222222; margin: 0; }
html { max-width: 760px; margin: 0 auto; padding: 16px 12px; }
h1 { font-size: 18pt; margin: 0 0 4px 0; }
h2 { font-size: 14pt; margin: 22px 0 6px 0; padding-bottom: 2px; border-bottom: 1px solid #bbbbbb; }
h3 { font-size: 11pt; margin: 14px 0 4px 0; }
h1, h2, h3 { page-break-after: avoid; break-after: avoid; }
p { margin: 4px 0 8px 0; }
p.meta { color: #555555; margin: 0 0 12px 0; }
p.headline { font-size: 11pt; }
p.note { color: #555555; }
table { border-collapse: collapse; margin: 4px 0 10px 0; }
table.full { width: 100%; }
th { border: 1px solid #cccccc; padding: 2px 6px; text-align: left; vertical-align: top; background-color: #f0f0f0; }
td { border: 1px solid #cccccc; padding: 2px 6px; text-align: left; vertical-align: top; }
td.num { text-align: right; }
th.num { text-align: right; }
td.group { background-color: #f7f7f7; font-weight: bold; }
td.sub { padding-left: 18px; }
.bad { color: #b00000; }
div.chart { margin: 6px 0 12px 0; page-break-inside: avoid; }
svg { max-width: 100%; height: auto; }
div.design { page-break-before: always; }
@page { size: A4; margin: 14mm; }
@media print { html { max-width: none; padding: 0; } }
)";

// --- what the report says about one design ---------------------------------------------

struct Context {
  const Comparison& comparison;
  const ReportOptions& options;
  Report& report;
  bool several = false;
};

std::string chart(Context& ctx, const std::string& title, std::string svg, ChartSize size) {
  ReportChart c;
  c.id = "libra-chart:" + std::to_string(ctx.report.charts.size());
  c.title = title;
  c.svg = std::move(svg);
  c.size = size;
  std::string out = "<div class=\"chart\">";
  if (ctx.options.charts == ChartEmbedding::Inline) {
    out += c.svg;
  } else {
    out += "<img src=\"" + c.id + "\" width=\"" + std::to_string(size.width) + "\" height=\"" +
           std::to_string(size.height) + "\" alt=\"" + esc(title) + "\"/>";
  }
  out += "</div>\n";
  ctx.report.charts.push_back(std::move(c));
  return out;
}

std::string heading(int level, std::string_view title) {
  const std::string tag = "h" + std::to_string(level);
  return "<" + tag + ">" + esc(title) + "</" + tag + ">\n";
}

std::string modelText(const Analysis& a) {
  const ChunkSetting& chunks = a.model.collectives.chunks;
  if (chunks.isIdeal()) return "ideal (LIBRA: infinitely many chunks, no latency)";
  return chunks.kind == ChunkSetting::Kind::Auto
             ? std::string("chunked, chunk count chosen per collective (auto)")
             : "chunked, " + std::to_string(chunks.count) + " chunks per collective";
}

std::string costScopeText(const Analysis& a) {
  if (a.costScope == CostScope::Network) return "network only (LIBRA's cost)";
  std::string out = "system: NPUs " + formatCost(a.npuCostUsd) + " + network";
  if (!a.npuPriceSource.empty()) out += " (NPU price: " + a.npuPriceSource + ")";
  return out;
}

std::string parallelismText(const PresetChoice& c) {
  const Parallelism& p = c.parallelism;
  std::vector<std::string> parts{"TP " + std::to_string(p.tp)};
  if (p.pp > 1) parts.push_back("PP " + std::to_string(p.pp));
  if (p.ep > 1) parts.push_back("EP " + std::to_string(p.ep));
  parts.push_back(p.dp > 0 ? "DP " + std::to_string(p.dp) : "DP derived");
  std::string out = joined(parts, " x ");
  std::vector<std::string> extras;
  if (p.sequenceParallel) extras.emplace_back("sequence parallel");
  if (p.zero() > 0) extras.push_back("ZeRO-" + std::to_string(p.zero()));
  if (p.recompute) extras.emplace_back("full recompute");
  if (p.selectiveRecompute) extras.emplace_back("selective recompute");
  if (!extras.empty()) out += " (" + joined(extras) + ")";
  return out;
}

// The settings of the project and of its analysis.
std::string settingsTable(const DesignComparison& d) {
  const Project& project = d.input.project;
  const Analysis& a = d.analysis;
  HtmlTable settings({text("setting"), text("value")});
  if (!d.input.file.empty()) settings.row({text("file"), text(d.input.file)});
  if (!d.input.scenario.empty()) settings.row({text("scenario"), text(echoText(d.input.scenario))});
  settings.row({text("objective"), text(toString(a.objective))});
  settings.row({text("cost counts"), text(costScopeText(a))});
  settings.row({text("training loop"),
                text(toString(a.ok() ? a.model.trainingLoop : project.model.trainingLoop))});
  if (a.problem) settings.row({text("collective model"), text(modelText(a))});
  const std::vector<std::string>& constraints = a.problem ? a.constraints : project.constraints;
  settings.row(
      {text("constraints"),
       {constraints.empty() ? std::string("none") : esc(joined(constraints, "; ")), false, {}}});
  settings.row(
      {text("NPUs"), number(formatCount(static_cast<double>(project.network.npuCount())))});
  return settings.html();
}

// One row per dimension: block, NPUs, latency, unit price, bandwidth limits.
std::string networkTable(const Project& project, const Analysis& a) {
  std::vector<double> prices;
  try {
    prices = unitPrices(project.network, project.costModel);
  } catch (const std::exception&) {
    prices.clear();  // the design was refused; the message says why
  }
  HtmlTable net({text("#"), text("dimension"), text("block"), number("NPUs"),
                 number("latency (ns)"), number("$ per GB/s per NPU"), text("bandwidth limits")});
  for (std::size_t i = 0; i < project.network.dims.size(); ++i) {
    const Dimension& dim = project.network.dims[i];
    const double latency = i < a.latencyNs.size() ? a.latencyNs[i] : dim.latencyNs;
    std::vector<std::string> limits;
    if (dim.fixedBandwidth) limits.push_back("fixed " + formatBandwidth(*dim.fixedBandwidth));
    if (dim.minBandwidth) limits.push_back(">= " + formatBandwidth(*dim.minBandwidth));
    if (dim.maxBandwidth) limits.push_back("<= " + formatBandwidth(*dim.maxBandwidth));
    net.row({number(std::to_string(i)), text(displayName(dim.name)), text(toString(dim.block)),
             number(std::to_string(dim.npus)), number(shortNumber(latency)),
             number(i < prices.size() ? fixed(prices[i], 2) : "-"), text(joined(limits))});
  }
  return net.html("full");
}

// One row per workload: what it was generated from, where it was.
std::string workloadTable(const Project& project) {
  HtmlTable work({text("workload"), number("weight"), text("model"), text("device"),
                  text("parallelism"), number("layers")});
  for (const Workload& w : project.workloads) {
    std::string model = "-", device = "-", parallel = "-";
    if (const std::optional<PresetChoice> c = presetChoiceOf(w)) {
      try {
        model = findPreset(c->preset).name;
      } catch (const std::exception&) {
        model = c->preset;
      }
      if (!c->device.empty()) {
        try {
          device = findDevice(c->device).name;
        } catch (const std::exception&) {
          device = c->device;
        }
      }
      parallel = parallelismText(*c);
    }
    work.row({text(displayName(w.name)), number(shortNumber(w.weight)), text(model), text(device),
              text(parallel), number(std::to_string(w.layers.size()))});
  }
  return work.html("full");
}

// The batch and the training budget, as a sentence (empty when unknown).
std::string batchAndBudget(const TrainingFacts& f) {
  std::vector<std::string> facts;
  if (f.batch) {
    const BatchPlan& b = *f.batch;
    const bool tokens = b.sequenceLength > 1;
    std::string line = formatCount(b.tokensPerIteration()) + (tokens ? " tokens" : " samples") +
                       " per iteration (";
    if (tokens)
      line += std::to_string(b.globalBatch) + " x " + std::to_string(b.sequenceLength) + "; ";
    line += "micro-batch " + std::to_string(b.microBatch) + " x " + std::to_string(b.microBatches) +
            " on each of " + std::to_string(b.replicas) +
            (b.replicas == 1 ? " replica)" : " replicas)");
    facts.push_back(line);
  } else if (f.tokensPerIteration) {
    facts.push_back(formatCount(*f.tokensPerIteration) + " tokens per iteration");
  }
  if (f.trainTokens) facts.push_back("training budget " + formatCount(*f.trainTokens) + " tokens");
  return facts.empty() ? std::string() : "<p>" + esc(joined(facts, "; ")) + ".</p>\n";
}

std::string inputs(const DesignComparison& d, int level) {
  const Project& project = d.input.project;
  std::string out = heading(level, "Inputs");
  out += settingsTable(d);
  out += heading(level + 1, "Network: " + shapeLabel(project.network));
  out += networkTable(project, d.analysis);
  out += heading(level + 1, "Workloads");
  out += workloadTable(project);
  out += batchAndBudget(d.analysis.training);
  return out;
}

// The optimum, the front's best perf per cost and the equal split side by side.
// What the optimum's table leaves out: ratios against the equal split, memory,
// the pipeline bubble, idle dimensions, limits and an infinite time.
std::string optimumNotes(const Analysis& a, const Baseline* base) {
  const DesignResult& r = a.design;
  std::string out;
  if (base) {
    std::vector<std::string> ratios;
    if (base->speedup)
      ratios.push_back(ratioWords(base->speedup, "faster", "slower") + " per iteration");
    if (base->communicationSpeedup) {
      ratios.push_back("communication " +
                       ratioWords(base->communicationSpeedup, "faster", "slower"));
    }
    if (base->timeCostGain) {
      ratios.push_back("time x cost " + ratioWords(base->timeCostGain, "better", "worse"));
    }
    if (!ratios.empty()) {
      out += "<p>Against the equal split: " + esc(joined(ratios)) + ".</p>\n";
    }
    if (!base->satisfiesConstraints()) {
      out += "<p class=\"bad\">The equal split breaks " + esc(joined(base->violated, "; ")) +
             ".</p>\n";
    }
  }
  const MemoryEstimate& m = a.training.memory;
  if (m.use) {
    out += std::string("<p") + (m.fits() ? "" : " class=\"bad\"") +
           ">Memory per NPU: " + (m.fits() ? "" : "does not fit: ") + esc(m.describe()) + ".</p>\n";
  }
  if (a.training.pipelineBubble && *a.training.pipelineBubble > 0) {
    out += "<p>Pipeline bubble: " + fixed(100 * *a.training.pipelineBubble, 1) +
           " % of the ideal time.</p>\n";
  }
  if (!a.dimensionsWithoutTraffic.empty()) {
    out += "<p class=\"note\">No collective uses " + esc(joined(a.dimensionsWithoutTraffic)) +
           ", so it needs no bandwidth.</p>\n";
  }
  for (const std::string& v : a.limitViolations) {
    out += "<p class=\"bad\">Not buildable: " + esc(v) + ".</p>\n";
  }
  if (!r.eval.finite) {
    out +=
        "<p class=\"bad\">A dimension that carries traffic has no bandwidth: the time is "
        "infinite.</p>\n";
  }
  return out;
}

// The table of the optimum (or evaluated design) beside the front's best perf
// per cost and the equal split, where there are those.
class OptimumTable {
 public:
  explicit OptimumTable(const DesignComparison& d)
      : d_(d),
        a_(d.analysis),
        r_(a_.design),
        base_(a_.baseline ? &*a_.baseline : nullptr),
        best_(a_.hasFront() && a_.front.perfPerCostOptimum.ok() ? &a_.front.perfPerCostOptimum
                                                                : nullptr),
        table_(header()) {}

  std::string html() {
    addBandwidth();
    addTimes();
    addCosts();
    addTraining();
    return table_.html();
  }

 private:
  std::vector<Cell> header() const {
    std::vector<Cell> head{text("")};
    head.push_back(text(a_.evaluated ? "design" : "optimum"));
    if (best_) head.push_back(text("best perf per cost (front)"));
    if (base_) head.push_back(text("equal split"));
    return head;
  }
  void row(const std::string& label, const std::string& mine, const std::string& front,
           const std::string& equal) {
    std::vector<Cell> cells{rowLabel(label), number(mine)};
    if (best_) cells.push_back(number(front));
    if (base_) cells.push_back(number(equal));
    table_.row(std::move(cells));
  }
  void group(const std::string& label) {
    std::vector<Cell> cells{{esc(label), false, "group"}, {"", false, "group"}};
    if (best_) cells.push_back({"", false, "group"});
    if (base_) cells.push_back({"", false, "group"});
    table_.row(std::move(cells));
  }
  // A row of each column's evaluation, formatted by `format`.
  template <class Format>
  void evalRow(const std::string& label, Format format) {
    row(label, format(r_.eval), best_ ? format(best_->eval) : "-",
        base_ ? format(base_->design.eval) : "-");
  }
  void addBandwidth() {
    const std::vector<std::string>& names = a_.problem->dimNames;
    group("bandwidth per NPU");
    for (std::size_t k = 0; k < names.size(); ++k) {
      row("  " + names[k], formatBandwidth(r_.bandwidth[k]),
          best_ && k < best_->bandwidth.size() ? formatBandwidth(best_->bandwidth[k]) : "-",
          base_ && k < base_->design.bandwidth.size() ? formatBandwidth(base_->design.bandwidth[k])
                                                      : "-");
    }
    DesignResult bestDesign;  // for its total, by the engine's definition
    if (best_) bestDesign.bandwidth = best_->bandwidth;
    row("  total", formatBandwidth(r_.totalBandwidth()),
        best_ ? formatBandwidth(bestDesign.totalBandwidth()) : "-",
        base_ ? formatBandwidth(base_->design.totalBandwidth()) : "-");
  }
  void addTimes() {
    group("time per iteration");
    evalRow("  iteration", [](const Evaluation& e) { return formatTime(e.iterationNs); });
    evalRow("  compute", [](const Evaluation& e) { return formatTime(e.computeNs); });
    evalRow("  exposed communication",
            [](const Evaluation& e) { return formatTime(e.communicationNs); });
  }
  void addCosts() {
    group("cost");
    evalRow("  network", [](const Evaluation& e) { return formatCost(e.networkCostUsd); });
    if (a_.costScope == CostScope::System) {
      evalRow("  system (NPUs + network)",
              [](const Evaluation& e) { return formatCost(e.costUsd); });
    }
  }
  void addTraining() {
    // The front's best point has no throughput of its own: the engine's rule
    // (throughputAt) gives it from its iteration time.
    const Throughput& th = r_.throughput;
    const Throughput bestTh =
        best_ ? throughputAt(a_.training, best_->eval.iterationNs) : Throughput{};
    const Throughput noTh;
    const Throughput& bth = base_ ? base_->design.throughput : noTh;
    auto trainingRow = [&](const std::string& name, std::optional<double> Throughput::*field,
                           auto format) {
      auto cell = [&](const Throughput& t) { return t.*field ? format(*(t.*field)) : "-"; };
      row(name, cell(th), cell(bestTh), cell(bth));
    };
    if (th.tokensPerSecond) {
      group("training");
      trainingRow("  throughput (tokens/s)", &Throughput::tokensPerSecond,
                  [](double v) { return rate(v); });
      trainingRow("  model TFLOP/s per NPU", &Throughput::modelTflopsPerNpu,
                  [](double v) { return fixed(v, 1); });
      trainingRow("  MFU", &Throughput::mfu, [](double v) { return fixed(100 * v, 1) + " %"; });
      trainingRow("  time to train", &Throughput::timeToTrainS,
                  [](double v) { return fixed(v / 86400, 1) + " days"; });
    }
    if (!d_.perfPerCost) return;
    // The front's best and the equal split by the same rule as the design's
    // (perfPerCostIn).
    const bool tokens =
        d_.performance && th.tokensPerSecond && *d_.performance == *th.tokensPerSecond;
    const PerformanceMeasure measure =
        tokens ? PerformanceMeasure::TokensPerSecond : PerformanceMeasure::IterationsPerSecond;
    const auto ppc = [&](const std::optional<double>& v) {
      return v ? rate(*v * 1e6) : std::string("-");
    };
    row(std::string("perf per cost (") + (tokens ? "tokens/s" : "iterations/s") + " per $1M)",
        ppc(d_.perfPerCost), best_ ? ppc(perfPerCostIn(measure, bestTh, best_->eval)) : "-",
        base_ ? ppc(perfPerCostIn(measure, bth, base_->design.eval)) : "-");
  }

  const DesignComparison& d_;
  const Analysis& a_;
  const DesignResult& r_;
  const Baseline* base_;
  const Solution* best_;
  HtmlTable table_;
};

std::string optimum(const DesignComparison& d, int level) {
  const Analysis& a = d.analysis;
  std::string out = heading(level, a.evaluated ? "Design" : "Optimum");
  const DesignResult& r = a.design;
  const Baseline* base = a.baseline ? &*a.baseline : nullptr;
  std::string headline = (a.evaluated ? "The design takes " : "The optimum takes ") +
                         formatTime(r.eval.iterationNs) + " per iteration at " +
                         formatCost(r.eval.costUsd) +
                         (a.costScope == CostScope::System ? " (NPUs and network)" : "");
  if (base && base->speedup) {
    headline += "; against the equal split of the same total bandwidth: " +
                ratioWords(base->speedup, "faster", "slower");
  }
  out += "<p class=\"headline\">" + esc(headline) + ".</p>\n";
  out += OptimumTable(d).html();
  out += optimumNotes(a, base);
  return out;
}

// The largest magnitude among finite values.
struct Extent {
  double maxAbs = 0;
  void add(double v) {
    if (std::isfinite(v)) maxAbs = std::max(maxAbs, std::fabs(v));
  }
};

std::string costAxisTitle(CostScope scope, const Unit& unit, bool mixed = false) {
  if (mixed) return "Cost (" + unit.name + "; each design's scope)";
  return (scope == CostScope::System ? "System cost: NPUs + network (" : "Network cost (") +
         unit.name + ")";
}

std::string paretoChart(Context& ctx, const Analysis& a, int width) {
  Extent cost, time;
  if (a.hasFront()) {
    for (const Solution& s : a.front.points) {
      if (!s.ok()) continue;
      cost.add(s.eval.costUsd);
      time.add(s.eval.iterationNs);
    }
  }
  const Evaluation& e = a.design.eval;
  const bool showBase = a.baseline && a.baseline->design.eval.finite;
  for (const Evaluation* p : {&e, showBase ? &a.baseline->design.eval : nullptr,
                              a.hasFront() ? &a.front.perfPerCostOptimum.eval : nullptr}) {
    if (!p) continue;
    cost.add(p->costUsd);
    time.add(p->iterationNs);
  }
  const Unit cu = costUnitFor(cost.maxAbs);
  const Unit tu = timeUnitFor(time.maxAbs);
  XYChart c;
  c.title = a.costScope == CostScope::System ? "Iteration time against system cost"
                                             : "Iteration time against network cost";
  c.xTitle = costAxisTitle(a.costScope, cu);
  c.yTitle = "Iteration time (" + tu.name + ")";
  if (a.hasFront()) {
    Series front{"Pareto front", kFrontColor, {}, true, false, 2, Marker::Circle, 2.5};
    for (const Solution& s : a.front.points) {
      if (s.ok() && s.eval.finite)
        front.points.push_back({cu.of(s.eval.costUsd), tu.of(s.eval.iterationNs)});
    }
    c.series.push_back(std::move(front));
  }
  if (showBase) {
    const Evaluation& b = a.baseline->design.eval;
    c.series.push_back({"Equal split",
                        kEqualSplitColor,
                        {{cu.of(b.costUsd), tu.of(b.iterationNs)}},
                        false,
                        false,
                        2,
                        Marker::Square,
                        5});
  }
  if (a.hasFront() && a.front.perfPerCostOptimum.ok()) {
    const Evaluation& b = a.front.perfPerCostOptimum.eval;
    c.series.push_back({"Best perf per cost",
                        kPerfPerCostColor,
                        {{cu.of(b.costUsd), tu.of(b.iterationNs)}},
                        false,
                        false,
                        2,
                        Marker::Diamond,
                        5.5});
  }
  if (e.finite) {
    c.series.push_back({a.evaluated ? "Design" : "Optimum",
                        kOptimumColor,
                        {{cu.of(e.costUsd), tu.of(e.iterationNs)}},
                        false,
                        false,
                        2,
                        Marker::Circle,
                        6});
  }
  if (a.costBudgetUsd)
    c.verticals.push_back({"Cost budget", kBudgetColor, cu.of(*a.costBudgetUsd)});
  const ChartSize size{width, 400};
  return chart(ctx, c.title, renderSvg(c, size), size);
}

std::string bandwidthChart(Context& ctx, const Analysis& a, int width) {
  BarChart c;
  c.title = "Bandwidth per dimension";
  c.yTitle = "GB/s per NPU";
  c.categories = a.problem->dimNames;
  c.sets.push_back({a.evaluated ? "Design" : "Optimum", kOptimumColor, a.design.bandwidth});
  if (a.baseline)
    c.sets.push_back({"Equal split", kEqualSplitBarColor, a.baseline->design.bandwidth});
  const ChartSize size{width, 320};
  return chart(ctx, c.title, renderSvg(c, size), size);
}

std::string breakdownChart(Context& ctx, const Analysis& a, int width) {
  Extent time;
  time.add(a.design.eval.iterationNs);
  if (a.baseline) time.add(a.baseline->design.eval.iterationNs);
  const Unit tu = timeUnitFor(time.maxAbs);
  StackedBarChart c;
  c.title = "Iteration time breakdown";
  c.xTitle = "Time per iteration (" + tu.name + ")";
  std::vector<const DesignResult*> rows{&a.design};
  c.rows.emplace_back(a.evaluated ? "Design" : "Optimum");
  if (a.baseline) {
    rows.push_back(&a.baseline->design);
    c.rows.emplace_back("Equal split");
  }
  StackedBarChart::Part compute{"Compute", kComputeColor, {}};
  for (const DesignResult* r : rows) compute.values.push_back(tu.of(r->eval.computeNs));
  c.parts.push_back(std::move(compute));
  const std::vector<std::string>& names = a.problem->dimNames;
  for (std::size_t k = 0; k < names.size(); ++k) {
    StackedBarChart::Part part{names[k] + " comm.", paletteColor(k), {}};
    for (const DesignResult* r : rows) {
      const std::vector<double>& by = r->eval.communicationByDimNs;
      part.values.push_back(k < by.size() ? tu.of(by[k]) : 0.0);
    }
    c.parts.push_back(std::move(part));
  }
  const ChartSize size{width, 230};
  return chart(ctx, c.title, renderSvg(c, size), size);
}

std::string sensitivity(const Analysis& a, int level) {
  const Sensitivity& s = a.sensitivity;
  std::string out = heading(level, "Sensitivity");
  if (!s.computed) {
    return out + "<p class=\"note\">Not computed: " + esc(s.note) + ".</p>\n";
  }
  out += "<p>" +
         esc(s.objective == Objective::Performance
                 ? "What one unit of each constraint's right-hand side changes the iteration "
                   "time by (negative: more helps), from re-solves one step up and one step "
                   "down."
                 : "What one unit of each constraint's right-hand side changes time x cost "
                   "by, over the optimum's cost (ns at that cost; negative: more helps), from "
                   "re-solves one step up and one step down.") +
         "</p>\n";
  auto rateText = [](const std::optional<double>& rate, const std::string& unit) {
    if (!rate) return std::string("infeasible");
    if (*rate == 0) return std::string("0");
    if (unit == "$") return signedTime(*rate * 1e6) + " per $1 M";
    return signedTime(*rate) + " per " + unit;
  };
  if (!s.constraints.empty()) {
    HtmlTable t(
        {text("constraint"), text("binding"), number("one unit more"), number("one unit less")});
    for (const ConstraintSensitivity& c : s.constraints) {
      t.row({text(c.constraint), text(c.binding ? "yes" : "no"),
             number(rateText(c.nsPerUnit, c.unit)), number(rateText(c.nsPerUnitDown, c.unit))});
    }
    out += t.html();
  }
  HtmlTable dims({text("dimension"), number("one more GB/s on it alone"), number("one GB/s less"),
                  text("bottleneck")});
  for (const DimensionSensitivity& d : s.dims) {
    dims.row({text(displayName(d.name)), number(rateText(d.nsPerGbps, "GB/s")),
              number(d.nsPerGbpsDown ? rateText(d.nsPerGbpsDown, "GB/s") : "none to take"),
              text(d.bottleneck ? "yes" : "")});
  }
  out += dims.html();
  const std::vector<std::string> b = s.bottlenecks();
  out += "<p>" +
         esc(b.empty() ? std::string("No bottleneck: more bandwidth on one dimension alone does "
                                     "not help.")
                       : (b.size() > 1 ? "Bottlenecks: " : "Bottleneck: ") + joined(b) +
                             (b.size() == s.dims.size() && b.size() > 1
                                  ? " (balanced: a GB/s is worth the same on each)."
                                  : ".")) +
         "</p>\n";
  return out;
}

std::string designSection(Context& ctx, const DesignComparison& d) {
  const int level = ctx.several ? 3 : 2;
  std::string out;
  if (ctx.several) {
    out += "<div class=\"design\">\n" + heading(2, "Design: " + displayName(d.input.name));
  }
  const Analysis& a = d.analysis;
  out += inputs(d, level);
  if (!d.ok()) {
    out += heading(level, "Result");
    out += "<p class=\"bad\">" + esc(std::string(toString(a.status)) + ": " + a.message) + "</p>\n";
  } else {
    out += optimum(d, level);
    // The charts carry their own titles; a heading before them would be left
    // alone at the foot of a page when the first chart moves to the next.
    const int width = ctx.options.chartWidth;
    if (a.hasFront()) {
      out += paretoChart(ctx, a, width);
    } else if (!a.front.message.empty()) {
      out += "<p class=\"note\">No Pareto front: " + esc(a.front.message) + ".</p>\n";
    }
    out += bandwidthChart(ctx, a, width);
    out += breakdownChart(ctx, a, width);
    if (!a.evaluated) out += sensitivity(a, level);
  }
  if (ctx.several) out += "</div>\n";
  return out;
}

// --- several designs ----------------------------------------------------------------------

std::string comparisonTable(const Comparison& c) {
  std::vector<Cell> head{text("")};
  for (const DesignComparison& d : c.designs) head.push_back(number(displayName(d.input.name)));
  HtmlTable t(head);
  // ASCII signs, as the rest of the report writes ratios and missing values;
  // the reasons follow the table whole.
  for (const ComparisonRow& row :
       comparisonRows(c, {.reasonRow = false, .times = "x", .missing = "-"})) {
    if (row.heading()) {
      std::vector<Cell> cells{{esc(row.label), false, "group"}};
      for (std::size_t i = 0; i < c.designs.size(); ++i) cells.push_back({"", false, "group"});
      t.row(std::move(cells));
      continue;
    }
    std::vector<Cell> cells{row.indented ? Cell{esc(row.label), false, "sub"} : text(row.label)};
    for (const ComparisonCell& cell : row.cells) cells.push_back(number(cell.text));
    t.row(std::move(cells));
  }
  return t.html("full");
}

std::string overlayChart(Context& ctx) {
  const Comparison& c = ctx.comparison;
  Extent cost, time;
  bool network = false, system = false;
  for (const DesignComparison& d : c.designs) {
    if (!d.ok()) continue;
    const Analysis& a = d.analysis;
    (a.costScope == CostScope::System ? system : network) = true;
    if (a.hasFront()) {
      for (const Solution& s : a.front.points) {
        if (!s.ok()) continue;
        cost.add(s.eval.costUsd);
        time.add(s.eval.iterationNs);
      }
    }
    cost.add(a.design.eval.costUsd);
    time.add(a.design.eval.iterationNs);
  }
  const Unit cu = costUnitFor(cost.maxAbs);
  const Unit tu = timeUnitFor(time.maxAbs);
  XYChart chartData;
  chartData.title = "Pareto fronts and optima of the designs";
  chartData.xTitle =
      costAxisTitle(system ? CostScope::System : CostScope::Network, cu, network && system);
  chartData.yTitle = "Iteration time (" + tu.name + ")";
  std::vector<Series> optima;
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const DesignComparison& d = c.designs[i];
    if (!d.ok()) continue;
    const Analysis& a = d.analysis;
    const std::string color = paletteColor(i);
    Series front{displayName(d.input.name), color, {}, true, false, 2, Marker::Circle, 2.5};
    if (a.hasFront()) {
      for (const Solution& s : a.front.points) {
        if (s.ok() && s.eval.finite)
          front.points.push_back({cu.of(s.eval.costUsd), tu.of(s.eval.iterationNs)});
      }
    }
    const Evaluation& e = a.design.eval;
    chartData.series.push_back(std::move(front));
    if (e.finite) {
      optima.push_back({"",
                        color,
                        {{cu.of(e.costUsd), tu.of(e.iterationNs)}},
                        false,
                        false,
                        2,
                        Marker::Circle,
                        6.5});
    }
    if (a.costBudgetUsd) {
      chartData.verticals.push_back(
          {displayName(d.input.name) + " budget", color, cu.of(*a.costBudgetUsd)});
    }
  }
  for (Series& s : optima) chartData.series.push_back(std::move(s));
  const ChartSize size{ctx.options.chartWidth, 430};
  return chart(ctx, chartData.title, renderSvg(chartData, size), size) +
         "<p class=\"note\">Each line is a design's Pareto front (the least iteration time for "
         "each cost); the large dot on it is the design's optimum.</p>\n";
}

// The options' title, else the project's name when every design comes from
// one project (its scenarios), else the designs' names.
std::string titleOf(const Comparison& c, const ReportOptions& options) {
  if (!options.title.empty()) return displayText(options.title, kDisplayTitleLimit);
  const std::string& first = c.designs.front().input.project.name;
  const bool oneProject = std::all_of(c.designs.begin(), c.designs.end(),
                                      [&](const auto& d) { return d.input.project.name == first; });
  if (oneProject && !first.empty()) return displayText(first, kDisplayTitleLimit);
  if (c.designs.size() > 4)
    return "Design review of " + std::to_string(c.designs.size()) + " designs";
  std::vector<std::string> names;
  for (const DesignComparison& d : c.designs) names.push_back(displayName(d.input.name));
  return (c.designs.size() > 1 ? "Design review: " : "") + joined(names, " vs ");
}

}  // namespace

std::string currentDate() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M", &local);
  return buffer;
}

Report renderReport(const Comparison& comparison, const ReportOptions& options) {
  Report report;
  Context ctx{comparison, options, report, comparison.designs.size() > 1};
  const std::string title = titleOf(comparison, options);
  std::string body;
  body += heading(1, title);
  std::string meta = "Design review report, " + options.date + ", Libra Studio " + options.version;
  if (ctx.several) meta += ", " + std::to_string(comparison.designs.size()) + " designs";
  body += "<p class=\"meta\">" + esc(meta) + "</p>\n";
  body += "<p class=\"note\">" +
          esc("Bandwidths are GB/s per NPU per dimension (innermost first); times are per "
              "training iteration; costs in US dollars (k: thousand, M: million, B: billion). "
              "Model: LIBRA (Won et al., ISPASS 2024).") +
          "</p>\n";

  if (ctx.several) {
    const bool tokens = comparison.measure == PerformanceMeasure::TokensPerSecond;
    body += heading(2, "Comparison");
    body += "<p>" +
            esc("Baseline: " + comparison.baselineDesign().input.name + ". Performance: " +
                (tokens ? "training throughput (tokens/s)"
                        : "iterations per second (1 / iteration time)") +
                "; perf per cost divides it by each design's cost.") +
            "</p>\n";
    body += comparisonTable(comparison);
    for (const DesignComparison& d : comparison.designs) {
      if (d.ok()) continue;
      body += "<p class=\"bad\">" +
              esc(d.input.name + ": " + statusWord(d.analysis) + ": " + d.analysis.message) +
              "</p>\n";
    }
    for (const std::string& note : comparison.notes) {
      body += "<p class=\"note\">Note: " + esc(note) + ".</p>\n";
    }
    body += overlayChart(ctx);
  }
  for (const DesignComparison& d : comparison.designs) body += designSection(ctx, d);

  report.html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"generator\" content=\"Libra Studio " +
      esc(options.version) + "\"/>\n<title>" + esc(title) + " - design review</title>\n<style>\n" +
      kStyle + "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
  return report;
}

}  // namespace libra::report
