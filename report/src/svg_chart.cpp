#include "libra/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "libra/display_text.hpp"
#include "libra/report/units.hpp"

namespace libra::report {

namespace {

constexpr const char* kFont = "DejaVu Sans, Helvetica, Arial, sans-serif";
constexpr double kTickFont = 11;
constexpr double kAxisFont = 12;
constexpr double kTitleFont = 14;
constexpr double kLegendFont = 11;
constexpr const char* kText = "#222222";
constexpr const char* kGrid = "#e4e4e4";
constexpr const char* kAxis = "#888888";

// Coordinates with two decimals: enough for any screen or page.
std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", v);
  std::string s = buffer;
  // "12.50" -> "12.5", "12.00" -> "12"
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

// UTF-8 code points: a width estimate for layout (an average glyph is ~0.6 em).
std::size_t codePoints(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}
double textWidth(std::string_view text, double fontSize) {
  return 0.6 * fontSize * static_cast<double>(codePoints(text));
}

// A text cut to at most `width` px (estimated), with "…" where it was cut.
std::string fitted(const std::string& text, double width, double fontSize) {
  if (textWidth(text, fontSize) <= width) return text;
  const auto keep = static_cast<std::size_t>(std::max(1.0, width / (0.6 * fontSize) - 1));
  std::string out;
  std::size_t points = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool start = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (start && points++ == keep) break;
    out += text[i];
  }
  return out + "…";
}

class Svg {
 public:
  Svg(ChartSize size) : size_(size) {
    out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << size.width
         << "\" height=\"" << size.height << "\" viewBox=\"0 0 " << size.width << ' ' << size.height
         << "\" font-family=\"" << kFont << "\">\n";
    rect(0, 0, size.width, size.height, "#ffffff");
  }

  void rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& extra = {}) {
    out_ << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(std::max(w, 0.0))
         << "\" height=\"" << num(std::max(h, 0.0)) << "\" fill=\"" << fill << '"' << extra
         << "/>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& color, double width,
            bool dashed = false) {
    out_ << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\""
         << num(y2) << "\" stroke=\"" << color << "\" stroke-width=\"" << num(width) << '"'
         << (dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
  }
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& color,
                double width, bool dashed) {
    if (points.size() < 2) return;
    out_ << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"" << num(width)
         << "\" stroke-linejoin=\"round\"" << (dashed ? " stroke-dasharray=\"6 4\"" : "")
         << " points=\"";
    for (std::size_t i = 0; i < points.size(); ++i) {
      out_ << (i ? " " : "") << num(points[i].first) << ',' << num(points[i].second);
    }
    out_ << "\"/>\n";
  }
  void marker(Marker kind, double x, double y, double r, const std::string& color) {
    const std::string stroke = " stroke=\"#ffffff\" stroke-width=\"1\"";
    switch (kind) {
      case Marker::None:
        return;
      case Marker::Circle:
        out_ << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"" << num(r)
             << "\" fill=\"" << color << '"' << stroke << "/>\n";
        return;
      case Marker::Square:
        rect(x - r, y - r, 2 * r, 2 * r, color, stroke);
        return;
      case Marker::Diamond:
        polygon({{x, y - 1.3 * r}, {x + 1.3 * r, y}, {x, y + 1.3 * r}, {x - 1.3 * r, y}}, color,
                stroke);
        return;
      case Marker::Triangle:
        polygon({{x, y - 1.3 * r}, {x + 1.2 * r, y + r}, {x - 1.2 * r, y + r}}, color, stroke);
        return;
    }
  }
  void polygon(const std::vector<std::pair<double, double>>& points, const std::string& color,
               const std::string& extra) {
    out_ << "<polygon fill=\"" << color << '"' << extra << " points=\"";
    for (std::size_t i = 0; i < points.size(); ++i) {
      out_ << (i ? " " : "") << num(points[i].first) << ',' << num(points[i].second);
    }
    out_ << "\"/>\n";
  }
  // anchor: start, middle or end; `rotate` turns it -90 degrees about (x, y).
  void text(double x, double y, const std::string& content, double fontSize,
            const char* anchor = "start", bool bold = false, bool rotate = false,
            const char* color = kText) {
    out_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(fontSize)
         << "\" fill=\"" << color << "\" text-anchor=\"" << anchor << '"'
         << (bold ? " font-weight=\"bold\"" : "");
    if (rotate) out_ << " transform=\"rotate(-90 " << num(x) << ' ' << num(y) << ")\"";
    out_ << '>' << escapeXml(content) << "</text>\n";
  }
  std::string finish() {
    out_ << "</svg>\n";
    return out_.str();
  }
  ChartSize size() const { return size_; }

 private:
  ChartSize size_;
  std::ostringstream out_;
};

struct LegendEntry {
  std::string label;
  std::string color;
  Marker marker = Marker::None;
  bool line = false;
  bool dashed = false;
  bool box = false;  // a filled square (bars)
};

// The legend's rows within `width`: the entries' indices per row.
std::vector<std::vector<std::size_t>> legendRows(const std::vector<LegendEntry>& entries,
                                                 double width) {
  std::vector<std::vector<std::size_t>> rows;
  double x = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double w = 30 + std::min(textWidth(entries[i].label, kLegendFont), width - 40) + 18;
    if (rows.empty() || (x + w > width && !rows.back().empty())) {
      rows.emplace_back();
      x = 0;
    }
    rows.back().push_back(i);
    x += w;
  }
  return rows;
}
constexpr double kLegendRow = 18;

double legendHeight(const std::vector<LegendEntry>& entries, double width) {
  const std::size_t rows = legendRows(entries, width).size();
  return rows == 0 ? 0 : static_cast<double>(rows) * kLegendRow + 6;
}

// Draws the legend centred under the plot, starting at y (its top).
void drawLegend(Svg& svg, const std::vector<LegendEntry>& entries, double left, double width,
                double y) {
  for (const std::vector<std::size_t>& row : legendRows(entries, width)) {
    double rowWidth = 0;
    for (std::size_t i : row) {
      rowWidth += 30 + std::min(textWidth(entries[i].label, kLegendFont), width - 40) + 18;
    }
    double x = left + std::max(0.0, (width - rowWidth + 18) / 2);
    const double mid = y + kLegendRow / 2;
    for (std::size_t i : row) {
      const LegendEntry& e = entries[i];
      if (e.box) {
        svg.rect(x + 7, mid - 6, 12, 12, e.color);
      } else {
        if (e.line) svg.line(x, mid, x + 26, mid, e.color, 2, e.dashed);
        if (e.marker != Marker::None) svg.marker(e.marker, x + 13, mid, 4.5, e.color);
      }
      const std::string label = fitted(e.label, width - 40, kLegendFont);
      svg.text(x + 30, mid + 4, label, kLegendFont);
      x += 30 + textWidth(label, kLegendFont) + 18;
    }
    y += kLegendRow;
  }
}

// [lo, hi] widened by a margin, and to a small span when it is a single value.
std::pair<double, double> padded(double lo, double hi, double fraction) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  double span = hi - lo;
  if (span <= std::fabs(hi) * 1e-6) span = std::max(std::fabs(hi) * 0.1, 1e-3);
  return {lo - span * fraction, hi + span * fraction};
}

std::string tickLabel(double v, int decimals) {
  return axisLabel(v, decimals);
}

// A linear map from [lo, hi] onto [a, b] in pixels.
struct Scale {
  double lo = 0, hi = 1, a = 0, b = 1;
  double operator()(double v) const { return a + (v - lo) / (hi - lo) * (b - a); }
};

}  // namespace

std::string escapeXml(std::string_view text) {
  // Controls, bidirectional overrides and bytes that are not UTF-8 (none of
  // which XML allows or a reader should get) become visible escapes first.
  const std::string safe = displayText(text);
  std::string out;
  out.reserve(safe.size());
  for (char c : safe) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

Ticks niceTicks(double lo, double hi, int count) {
  Ticks t;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo) {
    lo = 0;
    hi = 1;
  }
  const double raw = (hi - lo) / std::max(count - 1, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw * (1 - 1e-9)) break;
  }
  const double first = std::floor(lo / step + 1e-9) * step;
  const double last = std::ceil(hi / step - 1e-9) * step;
  t.first = first;
  t.step = step;
  t.count = static_cast<int>(std::lround((last - first) / step)) + 1;
  t.decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)) +
                              (std::fabs(step / magnitude - 2.5) < 1e-9 ? 1 : 0),
                          0, 6);
  return t;
}

namespace {

// The ticks of an XY chart's axes: its data and vertical lines, padded.
std::pair<Ticks, Ticks> xyTicks(const XYChart& chart) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const Series& s : chart.series) {
    for (const ChartPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      xlo = std::min(xlo, p.x);
      xhi = std::max(xhi, p.x);
      ylo = std::min(ylo, p.y);
      yhi = std::max(yhi, p.y);
    }
  }
  for (const VerticalLine& v : chart.verticals) {
    if (!std::isfinite(v.x) || !std::isfinite(xlo)) continue;
    xlo = std::min(xlo, v.x);
    xhi = std::max(xhi, v.x);
  }
  auto [x0, x1] = padded(xlo, xhi, 0.06);
  auto [y0, y1] = padded(ylo, yhi, 0.1);
  if (chart.nonNegative && std::isfinite(xlo)) {
    if (xlo >= 0) x0 = std::max(x0, 0.0);
    if (ylo >= 0) y0 = std::max(y0, 0.0);
  }
  return {niceTicks(x0, x1, 7), niceTicks(y0, y1, 6)};
}

std::vector<LegendEntry> xyLegend(const XYChart& chart) {
  std::vector<LegendEntry> legend;
  for (const Series& s : chart.series) {
    if (s.label.empty()) continue;
    legend.push_back({s.label, s.color, s.marker, s.line, s.dashed, false});
  }
  for (const VerticalLine& v : chart.verticals) {
    if (!v.label.empty()) legend.push_back({v.label, v.color, Marker::None, true, true, false});
  }
  return legend;
}

// The vertical lines inside the x range, then each series' line and markers.
void drawXyData(Svg& svg, const XYChart& chart, const Ticks& xt, const Scale& sx, const Scale& sy,
                double top, double bottom) {
  for (const VerticalLine& v : chart.verticals) {
    if (!std::isfinite(v.x) || v.x < xt.first || v.x > xt.last()) continue;
    svg.line(sx(v.x), top, sx(v.x), bottom, v.color, 1.5, true);
  }
  for (const Series& s : chart.series) {
    std::vector<std::pair<double, double>> pixels;
    for (const ChartPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      pixels.emplace_back(sx(p.x), sy(p.y));
    }
    if (s.line) svg.polyline(pixels, s.color, s.lineWidth, s.dashed);
    for (const auto& [x, y] : pixels) svg.marker(s.marker, x, y, s.markerSize, s.color);
  }
}

}  // namespace

std::string renderSvg(const XYChart& chart, ChartSize size) {
  Svg svg(size);
  const auto [xt, yt] = xyTicks(chart);
  const std::vector<LegendEntry> legend = xyLegend(chart);

  double yLabelWidth = 0;
  for (int i = 0; i < yt.count; ++i) {
    yLabelWidth =
        std::max(yLabelWidth, textWidth(tickLabel(yt.first + i * yt.step, yt.decimals), kTickFont));
  }
  const double left = 14 + kAxisFont + 8 + yLabelWidth + 6;
  const double right = size.width - 18.0;
  const double top = chart.title.empty() ? 14 : 38;
  const double legendH = legendHeight(legend, right - left);
  const double bottom = size.height - 8 - legendH - kAxisFont - 10 - kTickFont - 8;

  if (!chart.title.empty()) {
    svg.text(size.width / 2.0, 22, fitted(chart.title, size.width - 20, kTitleFont), kTitleFont,
             "middle", true);
  }
  const Scale sx{xt.first, xt.last(), left, right};
  const Scale sy{yt.first, yt.last(), bottom, top};
  for (int i = 0; i < xt.count; ++i) {
    const double v = xt.first + i * xt.step;
    svg.line(sx(v), top, sx(v), bottom, kGrid, 1);
    svg.text(sx(v), bottom + 6 + kTickFont, tickLabel(v, xt.decimals), kTickFont, "middle");
  }
  for (int i = 0; i < yt.count; ++i) {
    const double v = yt.first + i * yt.step;
    svg.line(left, sy(v), right, sy(v), kGrid, 1);
    svg.text(left - 6, sy(v) + kTickFont * 0.35, tickLabel(v, yt.decimals), kTickFont, "end");
  }
  svg.rect(left, top, right - left, bottom - top, "none",
           std::string(" stroke=\"") + kAxis + "\" stroke-width=\"1\"");
  svg.text((left + right) / 2, bottom + 6 + kTickFont + 8 + kAxisFont,
           fitted(chart.xTitle, right - left, kAxisFont), kAxisFont, "middle");
  svg.text(14 + kAxisFont * 0.8, (top + bottom) / 2, fitted(chart.yTitle, bottom - top, kAxisFont),
           kAxisFont, "middle", false, true);
  drawXyData(svg, chart, xt, sx, sy, top, bottom);
  drawLegend(svg, legend, left, right - left, size.height - 4 - legendH);
  return svg.finish();
}

std::string renderSvg(const BarChart& chart, ChartSize size) {
  Svg svg(size);
  double top = 0;
  for (const BarChart::Set& s : chart.sets) {
    for (double v : s.values) {
      if (std::isfinite(v)) top = std::max(top, v);
    }
  }
  const Ticks yt = niceTicks(0, top > 0 ? top * 1.08 : 1, 6);
  std::vector<LegendEntry> legend;
  for (const BarChart::Set& s : chart.sets) {
    legend.push_back({s.label, s.color, Marker::None, false, false, true});
  }
  double yLabelWidth = 0;
  for (int i = 0; i < yt.count; ++i) {
    yLabelWidth =
        std::max(yLabelWidth, textWidth(tickLabel(yt.first + i * yt.step, yt.decimals), kTickFont));
  }
  const double left = 14 + kAxisFont + 8 + yLabelWidth + 6;
  const double right = size.width - 18.0;
  const double topPx = chart.title.empty() ? 14 : 38;
  const double legendH = legendHeight(legend, right - left);
  const double bottom = size.height - 8 - legendH - kTickFont - 10;
  if (!chart.title.empty()) {
    svg.text(size.width / 2.0, 22, fitted(chart.title, size.width - 20, kTitleFont), kTitleFont,
             "middle", true);
  }
  const Scale sy{yt.first, yt.last(), bottom, topPx};
  for (int i = 0; i < yt.count; ++i) {
    const double v = yt.first + i * yt.step;
    svg.line(left, sy(v), right, sy(v), kGrid, 1);
    svg.text(left - 6, sy(v) + kTickFont * 0.35, tickLabel(v, yt.decimals), kTickFont, "end");
  }
  svg.text(14 + kAxisFont * 0.8, (topPx + bottom) / 2,
           fitted(chart.yTitle, bottom - topPx, kAxisFont), kAxisFont, "middle", false, true);
  const std::size_t groups = std::max<std::size_t>(chart.categories.size(), 1);
  const double groupWidth = (right - left) / static_cast<double>(groups);
  const std::size_t sets = std::max<std::size_t>(chart.sets.size(), 1);
  const double barWidth = groupWidth * 0.7 / static_cast<double>(sets);
  for (std::size_t g = 0; g < chart.categories.size(); ++g) {
    const double gx = left + groupWidth * static_cast<double>(g);
    for (std::size_t s = 0; s < chart.sets.size(); ++s) {
      const std::vector<double>& values = chart.sets[s].values;
      const double v = g < values.size() && std::isfinite(values[g]) ? values[g] : 0;
      const double x = gx + groupWidth * 0.15 + barWidth * static_cast<double>(s);
      svg.rect(x, sy(v), barWidth - 1, bottom - sy(v), chart.sets[s].color);
    }
    svg.text(gx + groupWidth / 2, bottom + 6 + kTickFont,
             fitted(chart.categories[g], groupWidth - 4, kTickFont), kTickFont, "middle");
  }
  svg.line(left, bottom, right, bottom, kAxis, 1);
  drawLegend(svg, legend, left, right - left, size.height - 4 - legendH);
  return svg.finish();
}

std::string renderSvg(const StackedBarChart& chart, ChartSize size) {
  Svg svg(size);
  double top = 0;
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    double sum = 0;
    for (const StackedBarChart::Part& p : chart.parts) {
      if (r < p.values.size() && std::isfinite(p.values[r]) && p.values[r] > 0) sum += p.values[r];
    }
    top = std::max(top, sum);
  }
  const Ticks xt = niceTicks(0, top > 0 ? top * 1.04 : 1, 7);
  std::vector<LegendEntry> legend;
  for (const StackedBarChart::Part& p : chart.parts) {
    legend.push_back({p.label, p.color, Marker::None, false, false, true});
  }
  double rowLabelWidth = 0;
  for (const std::string& r : chart.rows) {
    rowLabelWidth = std::max(rowLabelWidth, textWidth(r, kAxisFont));
  }
  rowLabelWidth = std::min(rowLabelWidth, size.width * 0.3);
  const double left = 14 + rowLabelWidth + 8;
  const double right = size.width - 22.0;
  const double topPx = chart.title.empty() ? 14 : 38;
  const double legendH = legendHeight(legend, right - left);
  const double bottom = size.height - 8 - legendH - kAxisFont - 10 - kTickFont - 8;
  if (!chart.title.empty()) {
    svg.text(size.width / 2.0, 22, fitted(chart.title, size.width - 20, kTitleFont), kTitleFont,
             "middle", true);
  }
  const Scale sx{xt.first, xt.last(), left, right};
  for (int i = 0; i < xt.count; ++i) {
    const double v = xt.first + i * xt.step;
    svg.line(sx(v), topPx, sx(v), bottom, kGrid, 1);
    svg.text(sx(v), bottom + 6 + kTickFont, tickLabel(v, xt.decimals), kTickFont, "middle");
  }
  svg.text((left + right) / 2, bottom + 6 + kTickFont + 8 + kAxisFont,
           fitted(chart.xTitle, right - left, kAxisFont), kAxisFont, "middle");
  const std::size_t rows = std::max<std::size_t>(chart.rows.size(), 1);
  const double rowHeight = (bottom - topPx) / static_cast<double>(rows);
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    const double y = topPx + rowHeight * static_cast<double>(r);
    double at = 0;
    for (const StackedBarChart::Part& p : chart.parts) {
      const double v = r < p.values.size() && std::isfinite(p.values[r]) ? p.values[r] : 0;
      if (v <= 0) continue;
      svg.rect(sx(at), y + rowHeight * 0.2, sx(at + v) - sx(at), rowHeight * 0.6, p.color);
      at += v;
    }
    svg.text(left - 8, y + rowHeight / 2 + kAxisFont * 0.35,
             fitted(chart.rows[r], rowLabelWidth, kAxisFont), kAxisFont, "end");
  }
  svg.line(left, topPx, left, bottom, kAxis, 1);
  drawLegend(svg, legend, left, right - left, size.height - 4 - legendH);
  return svg.finish();
}

}  // namespace libra::report
