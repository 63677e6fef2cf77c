// The design-review report: one self-contained HTML file (no scripts, no
// external references; the charts inline as SVG) with the inputs of each
// design, its optimum against the equal split, the charts, the sensitivity
// and, for several designs, the comparison table and the fronts overlaid.
// `libra report` writes it, and the GUI's File > Export Report writes it or
// prints it to PDF. Every number comes from the comparison's analyses
// (compare.hpp, analysis.hpp); nothing here computes a result.
#pragma once

#include <string>
#include <vector>

#include "libra/compare.hpp"
#include "libra/report/svg_chart.hpp"

namespace libra::report {

// How the charts go into the HTML.
enum class ChartEmbedding {
  Inline,      // <svg> elements: the self-contained file
  Referenced,  // <img src="libra-chart:N">, the SVG in Report::charts[N] (for a
               // renderer without inline SVG, such as Qt's QTextDocument)
};

struct ReportOptions {
  std::string title;    // empty: the first design's project name, else "Design review"
  std::string date;     // as it is shown, e.g. "2025-06-01 14:03"
  std::string version;  // the tool's version, e.g. "0.1.0"
  ChartEmbedding charts = ChartEmbedding::Inline;
  // The width of the page content the charts are laid out for, in CSS px.
  int chartWidth = 680;
};

struct ReportChart {
  std::string id;  // "libra-chart:N" (what a Referenced <img> names)
  std::string title;
  std::string svg;  // one <svg> element
  ChartSize size;
};

struct Report {
  std::string html;                 // a complete document
  std::vector<ReportChart> charts;  // in the order they appear
};

// The report of `comparison` (one design or several; each design's analysis
// should carry its Pareto front, AnalysisOptions::paretoPoints >= 2, for the
// front charts).
Report renderReport(const Comparison& comparison, const ReportOptions& options);

// The date as the report shows it: local time, "YYYY-MM-DD HH:MM".
std::string currentDate();

}  // namespace libra::report
