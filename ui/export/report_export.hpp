// File > Export Report: the design-review report of the report library
// (report/, the renderer `libra report` uses), written as its self-contained
// HTML file or printed to PDF here. The PDF is the same HTML laid out by
// QTextDocument, with each chart drawn by QSvgRenderer from the same SVG as a
// vector picture: no browser needed (libra report's PDF needs Chromium).
#pragma once

#include <QString>
#include <atomic>
#include <libra/report/report.hpp>
#include <memory>
#include <vector>

#include "solver_controller.hpp"

namespace libra::studio {

// What a report needs, copied on the GUI thread: the project (all its
// scenarios), the shown result (the analysis of its active scenario, not
// solved again) and how the others are solved.
struct ReportJob {
  std::shared_ptr<const Project> project;
  SolveResultPtr shown;
  Backend backend = Backend::Native;
  std::string file;  // the project's file, for the report's inputs; may be empty
  // Per scenario, in the project's order: an analysis already made of it as it
  // is (complete, with its front), used instead of solving it again when it
  // was made with `backend`; null (or missing): solved.
  std::vector<SolveResultPtr> known;
  report::ReportOptions options;
};

// The comparison the report shows: every scenario of the project, in order,
// against the baseline chosen in the comparison tab (saved in the project;
// the first when none is, as `libra report PROJECT.json`); the active one is
// the shown analysis, the others are analyzed with the options the GUI solves
// with. Blocking (it solves): call it on a worker. Throws InputError.
Comparison reportComparison(const ReportJob& job, const std::atomic<bool>* cancel = nullptr);

// Writes the report's HTML atomically. False with the reason in `error`.
bool writeReportHtml(const report::Report& report, const QString& path, QString* error);
// Prints `report` (rendered with ChartEmbedding::Referenced) to an A4 PDF with
// page numbers. False with the reason in `error`.
bool writeReportPdf(const report::Report& report, const QString& path, QString* error);

}  // namespace libra::studio
