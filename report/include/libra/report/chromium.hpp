// Printing the report to PDF with a headless Chromium (Debian's `chromium`):
// the browser draws the same HTML and inline SVG a reader opens, so the PDF of
// `libra report -o FILE.pdf`, which has no Qt to print with, is the HTML
// report on paper. Chromium is optional at run time; without it the command
// says what to install.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace libra::report {

// The Chromium to print with: $LIBRA_CHROMIUM when set (empty when it names no
// executable file), else the first of chromium, chromium-browser,
// google-chrome-stable and google-chrome on $PATH; nullopt when there is none.
std::optional<std::filesystem::path> findChromium();

// Prints `html` (a self-contained document) to the PDF file `pdf`, written
// atomically. Throws std::runtime_error saying what failed (Chromium's exit
// status, no PDF written, a time-out after `timeoutSeconds`).
void printHtmlToPdf(const std::filesystem::path& chromium, std::string_view html,
                    const std::filesystem::path& pdf, int timeoutSeconds = 120);

}  // namespace libra::report
