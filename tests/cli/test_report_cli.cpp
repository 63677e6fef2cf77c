// `libra report`: the HTML report of the bundled example and of several
// designs (the selection rules of `libra compare`), what it refuses before
// writing anything, and the PDF through a headless Chromium: a clear exit 2
// without one, and (registered only where Chromium is installed) a PDF with
// pages where it is.
#include <cstdlib>
#include <regex>

#include "cli_test_support.hpp"

namespace libra::testing {
namespace {

std::string bundledExample() {
  return (fs::path(LIBRA_SOURCE_DIR) / "resources/examples/gpt3-4d.json").string();
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// "339.1 GB/s": the report's (and the GUI's) bandwidth format, one decimal from 100 GB/s.
std::string bandwidthText(double gbps) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, gbps >= 100 ? "%.1f GB/s" : "%.2f GB/s", gbps);
  return buffer;
}

// Text as HTML holds it.
std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  }
  return out;
}

// Sets an environment variable for the programs a test runs, and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_F(CliTest, ReportOfTheBundledExample) {
  const std::string out = tmp("review.html");
  const std::vector<std::string> args{"report", bundledExample(), "-o",       out,
                                      "--date", "2025-06-01",     "--points", "10"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "wrote " + out + ": report of 1 design, 3 charts\n");
  const std::string html = readText(out);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(html, "2025-06-01")) << html.substr(0, 800);
  EXPECT_EQ(occurrences(html, "<svg "), 3u);
  EXPECT_EQ(occurrences(html, "<script"), 0u);
  EXPECT_EQ(occurrences(html, " src="), 0u);
  EXPECT_EQ(occurrences(html, " href="), 0u);
  // The optimum `solve` prints is the one the report shows.
  const ProcessResult solved = runLibra({"solve", bundledExample(), "--json"});
  ASSERT_EQ(solved.exitCode, 0) << solved.err;
  const json j = parseJson(solved.out);
  for (const json& bw : j["bandwidth_gbps"]) {
    EXPECT_TRUE(contains(html, ">" + bandwidthText(bw.get<double>()) + "<")) << bw;
  }
  for (const json& s : j["sensitivity"]) {
    EXPECT_TRUE(contains(html, "<td>" + escaped(s["constraint"].get<std::string>()) + "</td>"))
        << s;
  }
}

TEST_F(CliTest, ReportComparesTheChosenDesigns) {
  const std::string out = tmp("designs.html");
  const std::vector<std::string> args{"report",      dataFile("scenarios.json"),
                                      "--scenarios", "500 GB/s,1,000 GB/s",
                                      "--baseline",  "1,000 GB/s",
                                      "-o",          out};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const std::string html = readText(out);
  EXPECT_TRUE(contains(html, "Baseline: 1,000 GB/s."));
  EXPECT_EQ(occurrences(html, "<h2>Design: "), 2u);
  EXPECT_TRUE(contains(html, "<h2>Design: 500 GB/s</h2>"));
  EXPECT_TRUE(contains(html, "Pareto fronts and optima of the designs"));
  // The baseline's column says so, the other is slower and cheaper.
  EXPECT_TRUE(contains(html, ">baseline<"));
  EXPECT_TRUE(std::regex_search(html, std::regex(">[0-9.]+x slower<")));
  EXPECT_TRUE(std::regex_search(html, std::regex(">[0-9.]+x cheaper<")));
}

// A design without a solution keeps its place in the report; exit 1 as compare.
TEST_F(CliTest, ReportKeepsADesignWithoutSolution) {
  const std::string out = tmp("all.html");
  const ProcessResult r = runLibra({"report", dataFile("scenarios.json"), "-o", out});
  ASSERT_EQ(r.exitCode, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "design 'infeasible'")) << r.err;
  const std::string html = readText(out);
  EXPECT_TRUE(contains(html, "<h2>Design: infeasible</h2>"));
  EXPECT_TRUE(contains(html, "infeasible: the constraints cannot all hold together"));
}

TEST_F(CliTest, ReportRefusesBeforeWriting) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string out = tmp("r.html");
  const std::vector<Case> cases{
      {{"report", bundledExample(), "-o", tmp("r.txt")}, "name the file .html or .pdf"},
      {{"report", dataFile("scenarios.json"), "--scenarios", "fast", "-o", out},
       "--scenarios: no scenario is named 'fast'"},
      {{"report", bundledExample(), "--points", "1", "-o", out}, "--points: '1'"},
      {{"report", bundledExample(), "-o", tmp("no/such/dir.html")}, "does not exist"},
      {{"report", bundledExample()}, "-o"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = runLibra(c.args);
    SCOPED_TRACE(describe(c.args, r));
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(contains(r.err, c.message));
    EXPECT_EQ(r.errLines().size(), 1u);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(tmp("r.txt")));
  }
}

// Without Chromium a PDF is refused at once, naming what to install.
TEST_F(CliTest, ReportPdfWithoutChromiumSaysWhatToInstall) {
  const ScopedEnv noChromium("LIBRA_CHROMIUM", tmp("no-chromium-here"));
  const std::string out = tmp("review.pdf");
  const std::vector<std::string> args{"report", bundledExample(), "-o", out};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "install the Debian package chromium"));
  EXPECT_TRUE(contains(r.err, "LIBRA_CHROMIUM"));
  EXPECT_EQ(r.errLines().size(), 1u);
  EXPECT_FALSE(fs::exists(out));
}

#ifdef LIBRA_TEST_CHROMIUM
// Chromium prints the HTML: an A4 PDF of several pages (the bundled example's
// report is three), with the report's text in it.
TEST_F(CliTest, ReportPdfThroughChromium) {
  const ScopedEnv chromium("LIBRA_CHROMIUM", LIBRA_TEST_CHROMIUM);
  const std::string out = tmp("review.pdf");
  const std::vector<std::string> args{"report", bundledExample(), "-o", out, "--points", "10"};
  const ProcessResult r = runLibra(args);
  SCOPED_TRACE(describe(args, r));
  ASSERT_EQ(r.exitCode, 0);
  const std::string pdf = readText(out);
  EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
  EXPECT_GT(pdf.size(), 20000u);
#ifdef LIBRA_TEST_PDFINFO
  const ProcessResult info = runProcess(LIBRA_TEST_PDFINFO, {out});
  ASSERT_EQ(info.exitCode, 0) << info.err;
  std::smatch pages;
  ASSERT_TRUE(std::regex_search(info.out, pages, std::regex("Pages:\\s+([0-9]+)"))) << info.out;
  EXPECT_GE(std::stoi(pages[1]), 2);
  EXPECT_TRUE(contains(info.out, "(A4)")) << info.out;
#endif
#ifdef LIBRA_TEST_PDFTOTEXT
  const ProcessResult text = runProcess(LIBRA_TEST_PDFTOTEXT, {out, "-"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  for (const char* part : {"Inputs", "Optimum", "Sensitivity", "Iteration time breakdown"}) {
    EXPECT_TRUE(contains(text.out, part)) << part;
  }
#endif
}
#endif

}  // namespace
}  // namespace libra::testing
