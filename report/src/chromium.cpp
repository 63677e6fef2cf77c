#include "libra/report/chromium.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "libra/project_io.hpp"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawn

namespace libra::report {

namespace {

namespace fs = std::filesystem;

bool isExecutableFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// A directory of its own under the system's temporary directory, removed with it.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (fs::temp_directory_path() / "libra-report-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary directory in " +
                               fs::temp_directory_path().string());
    }
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The end of Chromium's diagnostics, for the message when it fails.
std::string lastLines(const std::string& text, std::size_t lines) {
  std::size_t at = text.size();
  for (std::size_t n = 0; n <= lines && at > 0; ++n) {
    const std::size_t nl = text.rfind('\n', at - 1);
    if (nl == std::string::npos) return text;
    if (n < lines) at = nl;
  }
  return text.substr(at);
}

}  // namespace

std::optional<fs::path> findChromium() {
  if (const char* given = std::getenv("LIBRA_CHROMIUM"); given != nullptr) {
    return isExecutableFile(given) ? std::optional<fs::path>(given) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::vector<fs::path> dirs;
  std::istringstream in(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(in, dir, ':');) {
    if (!dir.empty()) dirs.emplace_back(dir);
  }
  for (const char* name :
       {"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"}) {
    for (const fs::path& dir : dirs) {
      if (isExecutableFile(dir / name)) return dir / name;
    }
  }
  return std::nullopt;
}

void printHtmlToPdf(const fs::path& chromium, std::string_view html, const fs::path& pdf,
                    int timeoutSeconds) {
  const TemporaryDirectory dir;
  const fs::path page = dir.path() / "report.html";
  const fs::path printed = dir.path() / "report.pdf";
  const fs::path log = dir.path() / "chromium.log";
  writeFileAtomically(page, html);

  std::vector<std::string> args{chromium.string(),
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--no-first-run",
                                "--disable-extensions",
                                "--no-pdf-header-footer",
                                "--user-data-dir=" + (dir.path() / "profile").string(),
                                "--print-to-pdf=" + printed.string(),
                                "file://" + page.string()};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, chromium.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw std::runtime_error("cannot run " + chromium.string() + ": " + std::strerror(spawned));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waiting for Chromium failed");
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      throw std::runtime_error(chromium.string() + " did not print the report within " +
                               std::to_string(timeoutSeconds) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string bytes = readFile(printed);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.rfind("%PDF", 0) != 0) {
    std::string why = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                        : "stopped by a signal";
    throw std::runtime_error(chromium.string() + " did not print the report (" + why +
                             (bytes.empty() ? ", no PDF" : "") +
                             "): " + lastLines(readFile(log), 3));
  }
  writeFileAtomically(pdf, bytes);
}

}  // namespace libra::report
