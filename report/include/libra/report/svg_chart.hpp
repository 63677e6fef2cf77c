// Charts as SVG text: line and scatter plots with value axes, grouped bars and
// horizontal stacked bars. Plain SVG 1.1 within SVG Tiny 1.2 (no CSS, no
// scripts, no external references, presentation attributes only), so browsers
// and Qt's QSvgRenderer draw the same picture. Every text is escaped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace libra::report {

// Text made safe for XML and HTML content and attribute values: & < > " ' and,
// through libra::displayText, controls, bidirectional overrides and bytes that
// are not UTF-8.
std::string escapeXml(std::string_view text);

struct ChartSize {
  int width = 640;
  int height = 400;
};

enum class Marker { None, Circle, Square, Diamond, Triangle };

struct ChartPoint {
  double x = 0;
  double y = 0;
};

struct Series {
  std::string label;  // the legend's; no legend entry when empty
  std::string color;  // "#rrggbb"
  std::vector<ChartPoint> points;
  bool line = true;  // joins the points in order
  bool dashed = false;
  double lineWidth = 2;
  Marker marker = Marker::None;
  double markerSize = 4;  // radius, px
};

// A vertical line across the plot (a budget): drawn when x is inside the x range.
struct VerticalLine {
  std::string label;
  std::string color;
  double x = 0;
};

struct XYChart {
  std::string title;
  std::string xTitle;
  std::string yTitle;
  std::vector<Series> series;
  std::vector<VerticalLine> verticals;
  // Values are never negative: the axes' margin below the data stops at zero.
  bool nonNegative = true;
};

// Grouped vertical bars: one group per category, one bar per set.
struct BarChart {
  std::string title;
  std::string yTitle;
  std::vector<std::string> categories;
  struct Set {
    std::string label;
    std::string color;
    std::vector<double> values;  // one per category
  };
  std::vector<Set> sets;
};

// Horizontal stacked bars: one bar per row, one segment per part.
struct StackedBarChart {
  std::string title;
  std::string xTitle;
  std::vector<std::string> rows;  // top to bottom
  struct Part {
    std::string label;
    std::string color;
    std::vector<double> values;  // one per row, >= 0
  };
  std::vector<Part> parts;
};

// The charts as one <svg> element (no XML declaration: it is inlined in HTML
// or read by QSvgRenderer as it is). Points that are not finite are left out.
std::string renderSvg(const XYChart& chart, ChartSize size = {});
std::string renderSvg(const BarChart& chart, ChartSize size = {});
std::string renderSvg(const StackedBarChart& chart, ChartSize size = {});

// Axis ticks: "nice" values (1, 2, 2.5 or 5 times a power of ten) that cover
// [lo, hi] with about `count` steps.
struct Ticks {
  double first = 0;
  double step = 1;
  int count = 0;     // ticks first, first + step, ...
  int decimals = 0;  // for the labels
  double last() const { return first + step * (count - 1); }
};
Ticks niceTicks(double lo, double hi, int count);

}  // namespace libra::report
