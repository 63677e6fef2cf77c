// The rows of a comparison of designs (compare.hpp), as `libra compare`, the
// report and the GUI's Comparison tab show them: one set of rows, labels, units
// and number formats, so the three read alike. Each front end only lays the
// rows out (a text table, HTML, a QTableWidget).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libra/compare.hpp"

namespace libra::report {

struct ComparisonCell {
  std::string text;             // as shown
  std::optional<double> value;  // the number behind it, in the engine's units (ns, $, GB/s, ratio)
  std::string detail;           // the whole text where `text` is short or needs a reason
};

struct ComparisonRow {
  // Stable, for tests and tools: the key of the value in `compare --json`
  // ("iteration_time_ns", "bandwidth_gbps/0"); empty for a heading.
  std::string key;
  // "iteration", "Time per iteration (ms)": the unit of a group is in its heading.
  std::string label;
  bool indented = false;              // under the heading above it
  std::vector<ComparisonCell> cells;  // one per design, in order; empty for a heading

  bool heading() const { return key.empty(); }
};

struct ComparisonTableOptions {
  bool fileRow = false;  // a row of each design's file (designs from several files)
  // A row of why a design has no result (cut to 48 characters, whole in the
  // detail), when one has none; off where the whole reasons follow the table.
  bool reasonRow = true;
  std::string_view times = "×";    // the ratio sign ("1.136× faster"); "x" on a terminal
  std::string_view missing = "–";  // a cell without a value; "-" on a terminal
};

// Status (and why not, when a design has no result), objective, network, NPUs;
// the bandwidth per dimension (one row per name when every design has the
// same dimensions, else per position); time, throughput, MFU, memory; costs
// and perf per cost; each design against the baseline. Times and costs are in
// one unit per group (the largest value's, units.hpp) with about four
// significant digits.
std::vector<ComparisonRow> comparisonRows(const Comparison& comparison,
                                          const ComparisonTableOptions& options = {});

}  // namespace libra::report
