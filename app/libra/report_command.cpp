// `libra report`: the design-review report of one or several designs as one
// self-contained HTML file, or as PDF printed by a headless Chromium. The
// designs and flags are those of `libra compare`; the report library
// (report/) renders what the engine's comparison holds.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>

#include "cli.hpp"
#include "common.hpp"
#include "design_selection.hpp"
#include "libra/error.hpp"
#include "libra/project_io.hpp"
#include "libra/report/chromium.hpp"
#include "libra/report/report.hpp"
#include "output.hpp"

namespace libra::cli {

namespace {

constexpr const char* kReportFooter =
    "Writes a design-review report: the inputs of each design (network, workloads,\n"
    "constraints, objective, cost scope), its optimum against the equal split of the same\n"
    "total bandwidth, the charts (Pareto front with the optimum, the best perf per cost, the\n"
    "equal split and the cost budget; bandwidth per dimension; the time breakdown) and the\n"
    "sensitivity; with several designs also the comparison table of `libra compare` and\n"
    "their fronts in one chart. Designs and flags are those of `libra compare`.\n"
    "\n"
    "FILE.html is one self-contained file (charts inline as SVG, no scripts, nothing\n"
    "fetched); FILE.pdf is that page printed by a headless Chromium (Debian package\n"
    "chromium; $LIBRA_CHROMIUM names another), or use libra-studio's File > Export Report.\n"
    "\n"
    "Examples:\n"
    "  libra report gpt3.json -o gpt3-review.html\n"
    "  libra report designs.json --scenarios fast,cheap --baseline cheap -o review.pdf\n"
    "  libra report gpt3-3d.json gpt3-4d.json --date 2025-06-01 -o 3d-vs-4d.html\n"
    "\n"
    "Exit codes: 0 written, every design solved; 1 written, a design has no solution; 2\n"
    "bad usage or bad input (nothing written), or no Chromium for a PDF.";

struct ReportArgs {
  ComparisonFlags flags;
  std::string output;
  std::string points = "50";
  std::string title;
  std::string date;
};

enum class ReportFormat { Html, Pdf };

ReportFormat formatOf(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".html" || ext == ".htm") return ReportFormat::Html;
  if (ext == ".pdf") return ReportFormat::Pdf;
  throw InputError("-o '" + path + "': the report is HTML or PDF; name the file .html or .pdf");
}

int parsePoints(const std::string& text) {
  int points = 0;
  std::size_t used = 0;
  try {
    points = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || points < 2 || points > 500) {
    throw InputError("--points: '" + text + "' is not a whole number from 2 to 500");
  }
  return points;
}

int runReport(const ReportArgs& args, Context& context) {
  requireWritableTarget(args.output);
  const ReportFormat format = formatOf(args.output);
  std::optional<std::filesystem::path> chromium;
  if (format == ReportFormat::Pdf) {
    chromium = report::findChromium();
    if (!chromium) {
      throw InputError(
          "-o '" + args.output +
          "': a PDF is printed by a headless Chromium, and none was found (install the "
          "Debian package chromium, or set LIBRA_CHROMIUM to its path); or write .html, "
          "or use libra-studio's File > Export Report > PDF");
    }
  }
  ComparisonRequest request = comparisonRequest(args.flags);
  request.options.analysis.paretoPoints = parsePoints(args.points);
  request.options.analysis.frontWithinCostBudget = false;  // the budget is drawn on the front
  const Comparison c = compareDesigns(request.designs, request.options);

  report::ReportOptions options;
  options.title = args.title;
  options.date = args.date.empty() ? report::currentDate() : args.date;
  options.version = LIBRA_VERSION;
  const report::Report r = report::renderReport(c, options);
  if (format == ReportFormat::Html) {
    writeFileAtomically(args.output, r.html);
  } else {
    try {
      report::printHtmlToPdf(*chromium, r.html, args.output);
    } catch (const std::runtime_error& e) {
      throw InputError("-o '" + args.output + "': " + e.what());
    }
  }
  context.out << "wrote " << args.output << ": report of " << c.designs.size()
              << (c.designs.size() == 1 ? " design" : " designs") << ", " << r.charts.size()
              << " charts" << std::endl;
  return reportDesignsWithoutResult(c, context.err);
}

}  // namespace

void registerReport(CLI::App& app, Context& context) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = addCommand(app, context, "report",
                             "A design-review report (HTML or PDF) of one or several designs");
  if (cmd == nullptr) return;
  addComparisonFlags(cmd, args->flags, "Designs in the report");
  cmd->add_option("-o,--output", args->output, "The report: FILE.html or FILE.pdf")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--points", args->points, "Points on each Pareto front (2..500, default 50)")
      ->type_name("N");
  cmd->add_option("--title", args->title, "The report's title; default: the project's name")
      ->type_name("TEXT");
  cmd->add_option("--date", args->date,
                  "The date shown; default: now (local time), for reproducible files set it")
      ->type_name("TEXT");
  cmd->footer(std::string(kReportFooter) + "\n\n" + kModelHelp + "\n\n" + kConstraintHelp);
  cmd->callback([args, &context] { context.exitCode = runReport(*args, context); });
}

}  // namespace libra::cli
