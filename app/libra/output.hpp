// Output of the command line: number formats, aligned tables, and the
// human-readable and JSON forms of a result (spec/cli.md fixes the JSON keys).
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "libra/analysis.hpp"
#include "libra/display_text.hpp"
#include "libra/project.hpp"
#include "libra/report/units.hpp"
#include "libra/solver.hpp"

namespace libra::cli {

// Keys stay in the order they are written, so the output reads like spec/cli.md.
using Json = nlohmann::ordered_json;

// ANSI styling, a no-op unless `color` (stdout is a terminal).
struct Style {
  bool color = false;
  std::string bold(std::string_view text) const;
  std::string good(std::string_view text) const;  // green
  std::string bad(std::string_view text) const;   // red
};

// A message as stderr shows it: one line (line breaks become spaces, trailing
// spaces go) and safe (displayText: no control or bidirectional character of a
// name in a file reaches the terminal).
std::string messageLine(std::string_view message);

// --- numbers -----------------------------------------------------------------
// Fixed decimals: libra::formatFixed (display_text.hpp), "∞" / "-∞" / "-" when not finite.
using libra::formatFixed;
// $ with thousands separators ("$12,345,678"; cents below $1,000), engineering
// notation from $1e12 on ("$2.691e+12", "$1.235e+18"): at most 12 digits.
std::string formatUsd(double usd);
// A duration in the unit that suits it: ns, us, ms or s ("701.234 ms").
std::string formatDuration(double ns);
// Shortest text that reads back to the same double (CSV and exact output).
std::string formatExact(double value);

// --- tables ------------------------------------------------------------------
// Columns padded to their widest cell; numbers right-aligned. Headers and cells
// are shown safely (libra/display_text.hpp), at most kTableCellLimit characters.
inline constexpr std::size_t kTableCellLimit = 64;
class Table {
 public:
  enum class Align { Left, Right };

  void addColumn(std::string_view header, Align align = Align::Right);
  void addRow(std::vector<std::string> cells);
  void print(std::ostream& out, const Style& style, std::string_view indent = "  ") const;

 private:
  struct Column {
    std::string header;
    Align align;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// "Project" and "Scenario" fields that head a result, the names cut to show.
std::vector<std::pair<std::string, std::string>> projectFields(const Analysis& a);

// Label/value lines with the values aligned after the longest label.
void printFields(std::ostream& out, const Style& style,
                 const std::vector<std::pair<std::string, std::string>>& fields);

// --- written projects ----------------------------------------------------------
// What import-libra and new print after writing a project: a JSON object with
// status, output, project, then `extra`'s keys, then dimensions, npus, layers,
// constraints and objective; or one line "wrote OUT: project 'NAME', DETAIL, ...".
void printWrittenProject(std::ostream& out, const std::string& output, const Project& project,
                         bool json, const Json& extra = Json::object(),
                         const std::string& detail = "");

// --- training --------------------------------------------------------------------
// A count with thousands separators ("3,145,728"); "-" when not finite.
using report::formatCount;
// A long duration in the unit that suits it: s, min, h or days ("12.3 days").
std::string formatLongDuration(double seconds);
// "3,145,728 tokens per iteration (1536 x 2048; micro-batch 6 x 1 on each of 256 replicas)".
std::string batchText(const BatchPlan& batch);
// The throughput of a design: "1.23e+06 tokens/s, 123.4 TFLOP/s per NPU, MFU 12.5 %".
std::string throughputText(const Throughput& t);
// What `new` adds to its JSON summary: tokens_per_iteration, the batch, memory.
Json trainingSummaryJson(const TrainingFacts& facts);
// The lines printAnalysis shows about the training run (work, throughput, time
// to train, memory, bubble, dimensions without traffic).
std::vector<std::pair<std::string, std::string>> trainingFields(const Style& style,
                                                                const Analysis& analysis);

// --- results -----------------------------------------------------------------
// The table `solve` and `evaluate` print for an analysis with a design.
void printAnalysis(std::ostream& out, const Style& style, const Analysis& analysis);

// "1.073x faster" / "1.075x slower" for a ratio old/new (> 1: better); "the
// same (1.000x)" when it shows as 1.000 (report::ratioWords).
std::string comparison(double ratio, std::string_view better = "faster",
                       std::string_view worse = "slower");

// Reports an analysis without a design: `libra: <status>: <message>` on stderr
// and, with `json`, the failure object on stdout. Returns kExitNoSolution.
int reportNoSolution(std::ostream& out, std::ostream& err, const std::string& status,
                     const std::string& message, const std::string& failureJsonText, bool json);

// The help text paragraph on constraint expressions, shared by the commands.
extern const char* const kConstraintHelp;

}  // namespace libra::cli
