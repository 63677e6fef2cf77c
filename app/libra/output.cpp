#include "output.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli.hpp"

namespace libra::cli {

namespace {

std::string printfDouble(const char* format, double value) {
  char buffer[64];
  const int n = std::snprintf(buffer, sizeof buffer, format, value);
  return std::string(buffer, n > 0 ? std::min<std::size_t>(n, sizeof buffer - 1) : 0);
}

std::string nonFinite(double value) {
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

std::string withThousands(const std::string& digits) {
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[i];
    const std::size_t left = n - 1 - i;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out;
}

std::string ansi(bool on, const char* code, std::string_view text) {
  if (!on) return std::string(text);
  return std::string("\x1b[") + code + "m" + std::string(text) + "\x1b[0m";
}

std::string padded(const std::string& text, std::size_t width, Table::Align align) {
  if (text.size() >= width) return text;
  const std::string pad(width - text.size(), ' ');
  return align == Table::Align::Left ? text + pad : pad + text;
}

std::vector<std::string> blockNames(const Project& project) {
  std::vector<std::string> out;
  for (const Dimension& d : project.network.dims) out.emplace_back(toString(d.block));
  return out;
}

Json evaluationKeys(const std::vector<double>& bw, const Evaluation& eval) {
  Json j;
  j["bandwidth_gbps"] = bw;
  j["iteration_time_ns"] = eval.iterationNs;
  j["compute_time_ns"] = eval.computeNs;
  j["communication_time_ns"] = eval.communicationNs;
  j["network_cost_usd"] = eval.costUsd;
  return j;
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

std::string formatFixed(double value, int decimals) {
  if (!std::isfinite(value)) return nonFinite(value);
  const std::string format = "%." + std::to_string(decimals) + "f";
  std::string s = printfDouble(format.c_str(), value);
  if (s.find_first_not_of("-0.") == std::string::npos && s.front() == '-')
    s.erase(0, 1);  // "-0.000"
  return s;
}

std::string formatUsd(double usd) {
  if (!std::isfinite(usd)) return nonFinite(usd);
  const bool negative = usd < 0;
  const double a = std::abs(usd);
  std::string body;
  if (a >= 1e15) {
    const int exponent = static_cast<int>(std::floor(std::log10(a) / 3)) * 3;
    body = printfDouble("%.3f", a / std::pow(10.0, exponent)) + "e+" + std::to_string(exponent);
  } else if (a >= 1000) {
    body = withThousands(printfDouble("%.0f", std::round(a)));
  } else {
    body = printfDouble("%.2f", a);
  }
  return (negative ? "-$" : "$") + body;
}

std::string formatDuration(double ns) {
  if (!std::isfinite(ns)) return nonFinite(ns);
  const double a = std::abs(ns);
  if (a == 0) return "0 ns";
  if (a < 1e3) return printfDouble("%.3f", ns) + " ns";
  if (a < 1e6) return printfDouble("%.3f", ns / 1e3) + " us";
  if (a < 1e9) return printfDouble("%.3f", ns / 1e6) + " ms";
  return printfDouble("%.4f", ns / 1e9) + " s";
}

std::string formatExact(double value) {
  if (!std::isfinite(value)) return nonFinite(value);
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : printfDouble("%.17g", value);
}

void Table::addColumn(std::string header, Align align) {
  columns_.push_back({std::move(header), align});
}

void Table::addRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out, const Style& style, std::string_view indent) const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].header.size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
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
  std::size_t width = 0;
  for (const auto& [label, value] : fields) width = std::max(width, label.size());
  for (const auto& [label, value] : fields) {
    out << style.bold(label) << std::string(width - label.size() + 2, ' ') << value << '\n';
  }
}

void printResult(std::ostream& out, const Style& style, const Project& project,
                 const Problem& problem, const Result& result) {
  const Evaluation& e = result.eval;
  const bool fine = result.status == "optimal" || result.status == "evaluated";
  std::vector<std::pair<std::string, std::string>> head{
      {"Project", project.name.empty() ? "(unnamed)" : project.name},
      {"Objective", std::string(toString(result.objective))},
  };
  if (result.backend) {
    head.emplace_back("Solver", std::string(toString(*result.backend)) + ", " +
                                    std::to_string(result.iterations) + " iteration" +
                                    (result.iterations == 1 ? "" : "s") + ", " +
                                    formatDuration(result.solveTimeNs));
  }
  head.emplace_back("Status", fine ? style.good(result.status) : style.bad(result.status));
  printFields(out, style, head);
  out << '\n';

  const std::vector<std::string> blocks = blockNames(project);
  Table table;
  table.addColumn("#");
  table.addColumn("name", Table::Align::Left);
  table.addColumn("block", Table::Align::Left);
  table.addColumn("NPUs");
  table.addColumn("bandwidth (GB/s)");
  table.addColumn("busy time (ms)");
  table.addColumn("cost share");
  double totalBw = 0;
  for (int d = 0; d < problem.dims(); ++d) {
    const double bw = result.bandwidth[d];
    totalBw += bw;
    const double share = e.costUsd > 0 ? problem.costPerBandwidth[d] * bw / e.costUsd : NAN;
    const double busyMs = d < static_cast<int>(e.busyNs.size()) ? e.busyNs[d] / 1e6 : 0.0;
    table.addRow({std::to_string(d), problem.dimNames[d],
                  d < static_cast<int>(blocks.size()) ? blocks[d] : "",
                  d < project.network.size() ? std::to_string(project.network.dims[d].npus) : "",
                  formatFixed(bw, 3),
                  busyMs != 0 && std::abs(busyMs) < 1e-3 ? printfDouble("%.3e", busyMs)
                                                         : formatFixed(busyMs, 3),
                  std::isnan(share) ? "-" : formatFixed(100 * share, 1) + " %"});
  }
  table.addRow({"", "total", "", "", formatFixed(totalBw, 3), "", ""});
  table.print(out, style);
  out << '\n';

  std::vector<std::pair<std::string, std::string>> totals{
      {"Iteration time", formatDuration(e.iterationNs)},
      {"  compute", formatDuration(e.computeNs)},
      {"  exposed communication", formatDuration(e.communicationNs)},
      {"Network cost", formatUsd(e.costUsd)},
  };
  if (result.objective == Objective::PerfPerCost) {
    totals.emplace_back("Time x cost",
                        printfDouble("%.4e", e.iterationNs * 1e-9 * e.costUsd) + " s*$");
  }
  if (result.equalSplit && result.equalSplit->eval.iterationNs > 0 && e.finite &&
      e.iterationNs > 0) {
    const EqualSplit& s = *result.equalSplit;
    totals.emplace_back("Speedup vs equal split",
                        printfDouble("%.3f", s.eval.iterationNs / e.iterationNs) + "x  (" +
                            formatFixed(s.bandwidth.front(), 3) +
                            " GB/s on each dimension: " + formatDuration(s.eval.iterationNs) +
                            ", " + formatUsd(s.eval.costUsd) + ")");
  }
  if (!e.finite) {
    totals.emplace_back(
        "Note", "a dimension that carries traffic has no bandwidth, so the time is infinite");
  }
  if (result.violated) {
    if (result.violated->empty()) {
      totals.emplace_back("Constraints", problem.constraints.empty() ? "none" : "all satisfied");
    } else {
      std::string list;
      for (const auto& text : *result.violated) list += (list.empty() ? "" : "; ") + text;
      totals.emplace_back("Constraints", style.bad("violated: ") + list);
    }
  }
  printFields(out, style, totals);
}

Json resultJson(const Project& project, const Problem& problem, const Result& result) {
  const Evaluation& e = result.eval;
  Json j;
  j["status"] = result.status;
  j["objective"] = std::string(toString(result.objective));
  j.update(evaluationKeys(result.bandwidth, e));
  j["project"] = project.name;
  j["dimensions"] = problem.dimNames;
  j["busy_time_ns"] = e.busyNs;
  std::vector<double> share(problem.dims(), 0.0);
  for (int d = 0; d < problem.dims(); ++d) {
    if (e.costUsd > 0) share[d] = problem.costPerBandwidth[d] * result.bandwidth[d] / e.costUsd;
  }
  j["cost_share"] = share;
  j["time_cost_ns_usd"] = e.iterationNs * e.costUsd;
  j["finite"] = e.finite;
  if (result.backend) {
    j["solver"] = std::string(toString(*result.backend));
    j["iterations"] = result.iterations;
    j["solve_time_ns"] = result.solveTimeNs;
  }
  if (result.equalSplit) {
    Json s = evaluationKeys(result.equalSplit->bandwidth, result.equalSplit->eval);
    if (e.iterationNs > 0 && e.finite) {
      s["speedup"] = result.equalSplit->eval.iterationNs / e.iterationNs;
    }
    j["equal_split"] = std::move(s);
  }
  if (result.violated) j["violated_constraints"] = *result.violated;
  return j;
}

Json failureJson(const std::string& status, const std::string& message,
                 std::optional<Objective> objective, std::optional<Backend> backend) {
  Json j;
  j["status"] = status;
  if (objective) j["objective"] = std::string(toString(*objective));
  j["message"] = message;
  if (backend) j["solver"] = std::string(toString(*backend));
  return j;
}

int reportNoSolution(std::ostream& out, std::ostream& err, const Json& failure, bool json) {
  std::string message = failure.value("message", std::string());
  if (message.empty()) message = "the solver stopped without saying why";
  if (json) out << failure.dump(2) << std::endl;
  err << "libra: " << failure.value("status", std::string("error")) << ": " << message << std::endl;
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
    out << j.dump(2) << std::endl;
    return;
  }
  std::string dims;
  for (const std::string& n : project.network.names()) dims += (dims.empty() ? "" : ", ") + n;
  std::string constraints;
  for (const std::string& c : project.constraints) {
    constraints += (constraints.empty() ? "" : "; ") + c;
  }
  out << "wrote " << output << ": project '" << project.name << "', "
      << (detail.empty() ? "" : detail + ", ") << project.network.size() << " dimensions (" << dims
      << "), " << project.network.npuCount() << " NPUs, " << layers
      << (layers == 1 ? " layer" : " layers")
      << ", constraints: " << (constraints.empty() ? "none" : constraints) << '\n';
}

}  // namespace libra::cli
