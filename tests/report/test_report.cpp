// The design-review report (report/): the HTML is well formed (read by expat as
// XML), self-contained (no script, no src or href, nothing fetched), holds the
// engine's numbers for the bundled example as analysisJson writes them,
// escapes hostile names, and shows several designs with the comparison table
// and the fronts overlaid. The chart renderer puts every point inside its plot
// and chooses units per magnitude by the GUI's rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "libra/compare.hpp"
#include "libra/project_io.hpp"
#include "libra/report/report.hpp"
#include "libra/report/svg_chart.hpp"
#include "libra/report/units.hpp"
#include "xml_check.hpp"

namespace libra::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::parseXml;
using testing::XmlDocument;
using Json = nlohmann::json;
namespace fs = std::filesystem;

// Few front points keep the tests fast; the report draws whatever the analysis holds.
constexpr int kPoints = 12;

Comparison compareProject(const Project& project, int points = kPoints,
                          const std::string& baseline = {}) {
  ComparisonOptions options;
  options.analysis.paretoPoints = points;
  options.analysis.frontWithinCostBudget = false;
  options.baseline = baseline;
  return compareDesigns(scenarioDesigns(project, "project.json"), options);
}

const Project& bundledExample() {
  static const Project p =
      loadProject(fs::path(LIBRA_SOURCE_DIR) / "resources/examples/gpt3-4d.json");
  return p;
}

const Comparison& bundledComparison() {
  static const Comparison c = compareProject(bundledExample());
  return c;
}

ReportOptions fixedOptions() {
  ReportOptions o;
  o.date = "2025-06-01 12:00";
  o.version = "9.9.9";
  return o;
}

// Everything that would make the file depend on something outside it.
void expectSelfContained(const std::string& html, const XmlDocument& doc) {
  for (const testing::XmlElement& e : doc.elements) {
    for (const auto& [name, value] : e.attributes) {
      EXPECT_NE(name, "src") << e.name << " src=" << value;
      EXPECT_NE(name, "href") << e.name << " href=" << value;
      EXPECT_NE(name, "xlink:href") << e.name;
      EXPECT_NE(name.rfind("on", 0), 0u) << e.name << " has an event handler " << name;
    }
    EXPECT_NE(e.name, "script");
    EXPECT_NE(e.name, "link");
    EXPECT_NE(e.name, "iframe");
    EXPECT_NE(e.name, "object");
    EXPECT_NE(e.name, "image");
  }
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr("@font-face")));
}

// ---------------------------------------------------------------------------------

TEST(ReportUnits, FollowTheMagnitudeAsTheGuiDoes) {
  EXPECT_EQ(timeUnitFor(5e5).name, "µs");
  EXPECT_EQ(timeUnitFor(5e5).size, 1e3);
  EXPECT_EQ(timeUnitFor(1e6).name, "ms");
  EXPECT_EQ(timeUnitFor(999e6).name, "ms");
  EXPECT_EQ(timeUnitFor(1e9).name, "s");
  EXPECT_EQ(timeUnitFor(0).name, "ms");
  EXPECT_EQ(timeUnitFor(std::nan("")).name, "ms");
  EXPECT_EQ(costUnitFor(5e5).name, "thousand $");
  EXPECT_EQ(costUnitFor(2e6).name, "million $");
  EXPECT_EQ(costUnitFor(2e9).name, "billion $");
  EXPECT_EQ(costUnitFor(2e9).of(3e9), 3.0);
  EXPECT_EQ(costUnitFor(0).name, "million $");

  EXPECT_EQ(formatTime(701.344e6), "701.34 ms");
  EXPECT_EQ(formatTime(12.4e3), "12.40 µs");
  EXPECT_EQ(formatTime(1.25e9), "1.250 s");
  EXPECT_EQ(formatTime(3), "3 ns");
  EXPECT_EQ(formatTime(INFINITY), "∞");
  EXPECT_EQ(formatCost(12.345e6), "$12.35 M");
  EXPECT_EQ(formatCost(830e3), "$830.0 k");
  EXPECT_EQ(formatCost(1.2e9), "$1.200 B");
  EXPECT_EQ(formatCost(12), "$12");
  EXPECT_EQ(formatBandwidth(339.12), "339.1 GB/s");
  EXPECT_EQ(formatBandwidth(57.6), "57.60 GB/s");
  EXPECT_EQ(formatFixed(-0.0001, 2), "0.00");
  // Beyond 12 significant digits, scientific (issue 29: an 80-digit time).
  EXPECT_EQ(formatFixed(1e70, 2), "1.000e+70");
  EXPECT_EQ(formatTime(3.9375e87), "3.938e+78 s");
  // The GUI showed $2.147 trillion as "$2147.484 B".
  EXPECT_EQ(formatCost(2.147484e12), "$2.147 T");
  EXPECT_EQ(formatCost(1.23456e15), "$1.235e+15");
  EXPECT_EQ(costUnitFor(2.147484e12).name, "trillion $");
  EXPECT_EQ(formatBytes(80e9), "80.00 GB");
  EXPECT_EQ(formatBytes(512e6), "512.0 MB");
  EXPECT_EQ(formatBytes(12e3), "12.0 kB");
  EXPECT_EQ(formatBytes(3), "3 B");
  EXPECT_EQ(formatBytes(1e90), "1.000e+81 GB");
  EXPECT_EQ(axisLabel(2.5, 1), "2.5");
  EXPECT_EQ(axisLabel(2500000, 0), "2.5e+06");
  EXPECT_EQ(formatCount(3145728), "3,145,728");
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(formatCount(1000), "1,000");
  EXPECT_EQ(formatCount(-12000.4), "-12,000");
  EXPECT_EQ(formatCount(-0.2), "0");
  EXPECT_EQ(formatCount(1.153e18), "1.153e+18");
  EXPECT_EQ(formatCount(NAN), "-");
  EXPECT_EQ(formatCount(INFINITY), "-");
  // The comparison table's numbers: grouped whole part, fixed decimals.
  EXPECT_EQ(formatGrouped(1234.567, 2), "1,234.57");
  EXPECT_EQ(formatGrouped(999.95, 1), "1,000.0");
  EXPECT_EQ(formatGrouped(-1234567.0, 0), "-1,234,567");
  EXPECT_EQ(formatGrouped(-123.4, 1), "-123.4");
  EXPECT_EQ(formatGrouped(0.5, 3), "0.500");
  EXPECT_EQ(formatGrouped(1e13, 1), "1.000e+13");
  EXPECT_EQ(formatGrouped(INFINITY, 1), "∞");
  EXPECT_EQ(formatGrouped(NAN, 1), "-");
  // The parts of a sum in the sum's unit (issue 28 item 9: "1.990 s = ... +
  // 449.27 ms").
  EXPECT_EQ(formatTimeLike(449.27e6, 1.990e9), "0.449 s");
  EXPECT_EQ(formatTimeLike(12.4e3, 843.49e6), "0.01 ms");
  EXPECT_EQ(formatTimeLike(807.28e6, 843.49e6), "807.28 ms");
  EXPECT_EQ(formatTimeLike(5, INFINITY), "5 ns");
  EXPECT_EQ(formatTimeLike(INFINITY, 1e9), "∞");
}

// "1.000x slower" was printed when the optimum and the equal split are the
// same design (issue 29).
TEST(Units, RatiosInWords) {
  EXPECT_EQ(ratioWords(1.0734, "faster", "slower"), "1.073x faster");
  EXPECT_EQ(ratioWords(1 / 1.0754, "faster", "slower"), "1.075x slower");
  EXPECT_EQ(ratioWords(1.0, "faster", "slower"), "the same (1.000x)");
  EXPECT_EQ(ratioWords(0.99999999, "faster", "slower"), "the same (1.000x)");
  EXPECT_EQ(ratioWords(1.0004, "faster", "slower", "×"), "the same (1.000×)");
  EXPECT_EQ(ratioWords(1.0006, "faster", "slower"), "1.001x faster");
  EXPECT_EQ(ratioWords(1e80, "faster", "slower"), "1.000e+80x faster");
  EXPECT_EQ(ratioWords(0, "faster", "slower"), "-");
  EXPECT_EQ(ratioWords(NAN, "faster", "slower"), "-");
}

TEST(ReportCharts, NiceTicksCoverTheRangeInRoundSteps) {
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {0, 1}, {0.3, 0.7}, {12, 9876}, {701.2, 702.9}, {0, 4.5e-3}, {-3, 17}}) {
    SCOPED_TRACE(std::to_string(lo) + " .. " + std::to_string(hi));
    const Ticks t = niceTicks(lo, hi, 6);
    EXPECT_LE(t.first, lo + 1e-12);
    EXPECT_GE(t.last(), hi - 1e-12);
    EXPECT_GE(t.count, 3);
    EXPECT_LE(t.count, 12);
    const double mantissa = t.step / std::pow(10.0, std::floor(std::log10(t.step)));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 ||
                std::fabs(mantissa - 2.5) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
        << mantissa;
    // The labels tell neighbouring ticks apart.
    EXPECT_NE(formatFixed(t.first, t.decimals), formatFixed(t.first + t.step, t.decimals));
  }
}

// Every marker and every vertex of a line lies inside the plot frame, and the
// frame inside the picture: nothing is drawn over the axes' labels or cut off.
TEST(ReportCharts, PointsStayInsideThePlot) {
  XYChart c;
  c.title = "t";
  c.xTitle = "x";
  c.yTitle = "y";
  c.series.push_back({"front", "#1f77b4", {{1, 9}, {2, 5}, {4, 3}, {8, 2.5}}, true});
  c.series.push_back({"one", "#d62728", {{3, 3.4}}, false, false, 2, Marker::Circle, 6});
  c.series.push_back(
      {"nan", "#000000", {{NAN, 1}, {2, INFINITY}}, false, false, 2, Marker::Square});
  c.verticals.push_back({"budget", "#8c564b", 6});
  const ChartSize size{500, 300};
  const std::string svg = renderSvg(c, size);
  const XmlDocument doc = parseXml(svg);
  ASSERT_TRUE(doc.wellFormed) << doc.error;
  const testing::XmlElement* frame = nullptr;
  for (const testing::XmlElement* r : doc.named("rect")) {
    if (r->attributes.count("stroke") && r->attributes.at("stroke") == "#888888") frame = r;
  }
  ASSERT_NE(frame, nullptr);
  const double x0 = std::stod(frame->attributes.at("x")), y0 = std::stod(frame->attributes.at("y"));
  const double x1 = x0 + std::stod(frame->attributes.at("width"));
  const double y1 = y0 + std::stod(frame->attributes.at("height"));
  EXPECT_GT(x0, 30);  // room for the y labels and title
  EXPECT_LT(x1, size.width);
  EXPECT_GT(y0, 20);                // room for the title
  EXPECT_LT(y1, size.height - 40);  // room for x labels, title and legend
  const auto circles = doc.named("circle");
  ASSERT_EQ(circles.size(), 2u);  // the marker and its legend entry's (the front has none)
  const testing::XmlElement& marker = *circles[0];
  const double cx = std::stod(marker.attributes.at("cx")),
               cy = std::stod(marker.attributes.at("cy"));
  EXPECT_GT(cx, x0);
  EXPECT_LT(cx, x1);
  EXPECT_GT(cy, y0);
  EXPECT_LT(cy, y1);
  const auto lines = doc.named("polyline");
  ASSERT_EQ(lines.size(), 1u);
  std::istringstream pts(lines[0]->attributes.at("points"));
  int vertices = 0;
  for (std::string p; pts >> p; ++vertices) {
    const double px = std::stod(p.substr(0, p.find(','))),
                 py = std::stod(p.substr(p.find(',') + 1));
    EXPECT_GE(px, x0);
    EXPECT_LE(px, x1);
    EXPECT_GE(py, y0);
    EXPECT_LE(py, y1);
  }
  EXPECT_EQ(vertices, 4);
  // The series without a finite point draws nothing but its legend entry.
  EXPECT_EQ(doc.named("rect").size(), 1u + 1u + 1u);  // background, frame, legend square
  const std::vector<std::string> texts = doc.textsIn("svg");
  for (const char* label : {"front", "one", "nan", "budget", "t", "x", "y"}) {
    EXPECT_NE(std::find(texts.begin(), texts.end(), label), texts.end()) << label;
  }
}

// ---------------------------------------------------------------------------------

TEST(Report, BundledExampleIsWellFormedAndSelfContained) {
  const Report r = renderReport(bundledComparison(), fixedOptions());
  const XmlDocument doc = parseXml(r.html);
  ASSERT_TRUE(doc.wellFormed) << doc.error;
  expectSelfContained(r.html, doc);
  EXPECT_EQ(r.html.rfind("<!DOCTYPE html>", 0), 0u);
  // Three charts: the front, the bandwidth and the breakdown, each an inline <svg>.
  ASSERT_EQ(r.charts.size(), 3u);
  EXPECT_EQ(doc.named("svg").size(), 3u);
  for (const ReportChart& c : r.charts) {
    const XmlDocument svg = parseXml(c.svg);
    EXPECT_TRUE(svg.wellFormed) << c.title << ": " << svg.error;
    EXPECT_THAT(r.html, HasSubstr(c.svg));
  }
  EXPECT_EQ(doc.named("title").at(0)->text, bundledExample().name + " - design review");
  EXPECT_THAT(r.html, HasSubstr("2025-06-01 12:00"));
  EXPECT_THAT(r.html, HasSubstr("Libra Studio 9.9.9"));
}

// The numbers of the report are the engine's: analysisJson's, in the units the
// GUI shows them.
TEST(Report, BundledExampleShowsTheEngineNumbers) {
  const Comparison& c = bundledComparison();
  ASSERT_TRUE(c.complete());
  const Analysis& a = c.designs[0].analysis;
  const Json j = Json::parse(analysisJson(a));
  const Report r = renderReport(c, fixedOptions());
  const std::string& html = r.html;

  EXPECT_THAT(html, HasSubstr("<h1>" + escapeXml(bundledExample().name) + "</h1>"));
  for (const Dimension& d : bundledExample().network.dims) {
    EXPECT_THAT(html, HasSubstr("<td>" + d.name + "</td>"));
  }
  for (const Json& bw : j["bandwidth_gbps"]) {
    EXPECT_THAT(html, HasSubstr(formatBandwidth(bw.get<double>())));
  }
  EXPECT_THAT(html, HasSubstr(formatTime(j["iteration_time_ns"].get<double>())));
  EXPECT_THAT(html, HasSubstr(formatTime(j["compute_time_ns"].get<double>())));
  EXPECT_THAT(html, HasSubstr(formatTime(j["communication_time_ns"].get<double>())));
  EXPECT_THAT(html, HasSubstr(formatCost(j["network_cost_usd"].get<double>())));
  EXPECT_THAT(html, HasSubstr(formatFixed(100 * j["mfu"].get<double>(), 1) + " %"));
  // Written as the GUI writes it (issue 28 item 9: the report printed
  // 1.545e+06 where the GUI printed 1,580,866).
  EXPECT_THAT(html, HasSubstr(">" + formatCount(j["tokens_per_second"].get<double>()) + "<"));
  EXPECT_THAT(html, HasSubstr(a.training.memory.describe()));
  // The equal split and how the optimum compares.
  ASSERT_TRUE(a.baseline && a.baseline->speedup);
  EXPECT_THAT(html, HasSubstr(formatTime(a.baseline->design.eval.iterationNs)));
  EXPECT_THAT(html, HasSubstr(formatFixed(*a.baseline->speedup, 3) + "x faster"));
  // Every constraint in force and its sensitivity row.
  ASSERT_TRUE(a.sensitivity.computed);
  for (const Json& s : j["sensitivity"]) {
    EXPECT_THAT(html, HasSubstr("<td>" + escapeXml(s["constraint"].get<std::string>()) + "</td>"));
  }
  for (const ConstraintSensitivity& s : a.sensitivity.constraints) {
    if (s.nsPerUnit && *s.nsPerUnit != 0 && s.unit == "GB/s") {
      EXPECT_THAT(html, HasSubstr(formatTime(*s.nsPerUnit) + " per GB/s"));
    }
  }
  // The objective, the cost scope, the workload's parallelism and the tokens.
  EXPECT_THAT(html, HasSubstr("<td>performance</td>"));
  EXPECT_THAT(html, HasSubstr("network only"));
  EXPECT_THAT(html, HasSubstr("TP 16 x DP 256"));
  EXPECT_THAT(html, HasSubstr("3,145,728 tokens per iteration"));
  // The front's best perf per cost, drawn and tabulated.
  ASSERT_TRUE(a.hasFront());
  EXPECT_THAT(html, HasSubstr(formatTime(a.front.perfPerCostOptimum.eval.iterationNs)));
  // Perf per cost in all three columns: the optimum, the front's best and the
  // equal split (issue 28 item 1: the last two showed "-"), tokens/s per $1M
  // from the tokens per iteration, each design's time and its cost.
  {
    const auto ppc = [&](const Evaluation& e) {
      return formatCount(*a.training.tokensPerIteration / (e.iterationNs * 1e-9) / e.costUsd * 1e6);
    };
    const std::size_t at = html.find("perf per cost (tokens/s per $1M)");
    ASSERT_NE(at, std::string::npos);
    const std::string rowText = html.substr(at, html.find("</tr>", at) - at);
    EXPECT_THAT(rowText, HasSubstr(">" + ppc(a.design.eval) + "<"));
    EXPECT_THAT(rowText, HasSubstr(">" + ppc(a.front.perfPerCostOptimum.eval) + "<"));
    EXPECT_THAT(rowText, HasSubstr(">" + ppc(a.baseline->design.eval) + "<"));
  }
  EXPECT_THAT(r.charts[0].svg, HasSubstr(">Best perf per cost<"));
  EXPECT_THAT(r.charts[0].svg, HasSubstr(">Equal split<"));
  EXPECT_THAT(r.charts[0].svg, HasSubstr(">Optimum<"));
  // The front's axes in the units of the largest value drawn.
  double slowest = std::max(a.design.eval.iterationNs, a.baseline->design.eval.iterationNs);
  double dearest = std::max(a.design.eval.costUsd, a.baseline->design.eval.costUsd);
  for (const Solution& s : a.front.points) {
    slowest = std::max(slowest, s.eval.iterationNs);
    dearest = std::max(dearest, s.eval.costUsd);
  }
  EXPECT_THAT(r.charts[0].svg, HasSubstr(">Iteration time (" + timeUnitFor(slowest).name + ")<"));
  EXPECT_THAT(r.charts[0].svg, HasSubstr(">Network cost (" + costUnitFor(dearest).name + ")<"));
}

// Dimension names are checked by the engine (letters, digits, _ - .), but the
// project, scenario and workload names are free text.
TEST(Report, HostileNamesAppearAsText) {
  Project one = bundledExample();
  one.workloads[0].name = "<img src=http://example.com/x.png>";
  Project p = one;
  p.name = "<script>alert('x')</script> & \"friends\"";
  Project other = one;
  other.constraints = {"total == 500"};
  setScenarios(p, {{"<b>fast</b>", one}, {"a&b 'c' <!--", other}}, 0);
  const Report r = renderReport(compareProject(p, 4), fixedOptions());
  const XmlDocument doc = parseXml(r.html);
  ASSERT_TRUE(doc.wellFormed) << doc.error;
  expectSelfContained(r.html, doc);
  EXPECT_THAT(r.html, Not(HasSubstr("<script")));
  EXPECT_THAT(r.html, Not(HasSubstr("<img")));
  EXPECT_THAT(r.html, Not(HasSubstr("<b>")));
  EXPECT_THAT(r.html, Not(HasSubstr("<!--")));
  EXPECT_THAT(r.html, HasSubstr("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; "
                                "&quot;friends&quot;"));
  EXPECT_EQ(doc.named("h1").at(0)->text, p.name);
  EXPECT_EQ(doc.named("title").at(0)->text, p.name + " - design review");
  // The scenario names are legend entries of the overlaid fronts.
  const std::vector<std::string> texts = doc.textsIn("svg");
  EXPECT_NE(std::find(texts.begin(), texts.end(), "<b>fast</b>"), texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "a&b 'c' <!--"), texts.end());
  std::vector<std::string> cells;
  for (const testing::XmlElement* td : doc.named("td")) cells.push_back(td->text);
  EXPECT_NE(std::find(cells.begin(), cells.end(), one.workloads[0].name), cells.end());
}

// Several designs: the comparison table, the fronts in one chart, and a design
// without a solution kept with its reason.
TEST(Report, SeveralDesignsAreCompared) {
  const Project p = loadProject(fs::path(LIBRA_SOURCE_DIR) / "tests/cli/data/scenarios.json");
  const Comparison c = compareProject(p, 6, "1,000 GB/s");
  ASSERT_EQ(c.designs.size(), 3u);
  const Report r = renderReport(c, fixedOptions());
  const XmlDocument doc = parseXml(r.html);
  ASSERT_TRUE(doc.wellFormed) << doc.error;
  expectSelfContained(r.html, doc);
  EXPECT_EQ(doc.named("h1").at(0)->text, p.name);
  EXPECT_THAT(r.html, HasSubstr("Baseline: 1,000 GB/s."));
  // The overlay first, then three charts for each of the two solved designs.
  ASSERT_EQ(r.charts.size(), 1u + 3u + 3u);
  EXPECT_EQ(r.charts[0].title, "Pareto fronts and optima of the designs");
  for (const char* name : {">500 GB/s<", ">1,000 GB/s<"}) {
    EXPECT_THAT(r.charts[0].svg, HasSubstr(name));
  }
  EXPECT_EQ(doc.named("polyline").size(),
            2u + 2u);  // two fronts overlaid, one in each design's chart
  // The ratios are the comparison's.
  const DesignComparison& slow = c.designs[0];
  ASSERT_TRUE(slow.speedup && slow.costRatio && slow.perfPerCostRatio);
  EXPECT_THAT(r.html, HasSubstr(formatFixed(1 / *slow.speedup, 3) + "x slower"));
  EXPECT_THAT(r.html, HasSubstr(formatFixed(1 / *slow.costRatio, 3) + "x cheaper"));
  EXPECT_THAT(r.html, HasSubstr(">baseline<"));
  const DesignComparison& none = c.designs[2];
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(r.html, HasSubstr(escapeXml(none.analysis.message)));
  std::size_t designHeadings = 0;
  for (const testing::XmlElement* h : doc.named("h2")) {
    designHeadings += h->text.rfind("Design: ", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(designHeadings, 3u);
}

// For a renderer without inline SVG (the GUI's PDF), each chart is an <img>
// naming its place in Report::charts; the rest of the page is the same.
TEST(Report, ReferencedChartsNameTheirSvg) {
  ReportOptions o = fixedOptions();
  const Report inlined = renderReport(bundledComparison(), o);
  o.charts = ChartEmbedding::Referenced;
  const Report referenced = renderReport(bundledComparison(), o);
  const XmlDocument doc = parseXml(referenced.html);
  ASSERT_TRUE(doc.wellFormed) << doc.error;
  EXPECT_TRUE(doc.named("svg").empty());
  const auto images = doc.named("img");
  ASSERT_EQ(images.size(), referenced.charts.size());
  for (std::size_t i = 0; i < images.size(); ++i) {
    EXPECT_EQ(images[i]->attributes.at("src"), "libra-chart:" + std::to_string(i));
    EXPECT_EQ(referenced.charts[i].id, images[i]->attributes.at("src"));
    EXPECT_EQ(referenced.charts[i].svg, inlined.charts[i].svg);
    EXPECT_EQ(images[i]->attributes.at("width"), std::to_string(referenced.charts[i].size.width));
  }
  // Without the charts, the two are the same page.
  std::string a = inlined.html, b = referenced.html;
  for (std::size_t i = 0; i < inlined.charts.size(); ++i) {
    a.replace(a.find(inlined.charts[i].svg), inlined.charts[i].svg.size(), "CHART");
    const std::string img = "<img src=\"libra-chart:" + std::to_string(i) + "\"";
    const std::size_t at = b.find(img);
    b.replace(at, b.find("/>", at) + 2 - at, "CHART");
  }
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace libra::report
