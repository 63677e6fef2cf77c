#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace libra::testing {

namespace {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

void closeIfOpen(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::vector<std::string> ProcessResult::errLines() const {
  return splitLines(err);
}
std::vector<std::string> ProcessResult::outLines() const {
  return splitLines(out);
}

ProcessResult runProcess(const std::string& program, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout) {
  int outPipe[2], errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  if (::pipe2(errPipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);

  std::vector<std::string> argvStrings{program};
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argvStrings) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  if (rc != 0) {
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    throw std::runtime_error("cannot start " + program + ": " + std::strerror(rc));
  }

  ProcessResult result;
  int fds[2] = {outPipe[0], errPipe[0]};
  std::string* sinks[2] = {&result.out, &result.err};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (fds[0] >= 0 || fds[1] >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd pfds[2];
    int n = 0;
    int index[2];
    for (int i = 0; i < 2; ++i) {
      if (fds[i] < 0) continue;
      pfds[n] = {fds[i], POLLIN, 0};
      index[n++] = i;
    }
    const int ready = ::poll(pfds, n, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (int k = 0; k < n; ++k) {
      if (pfds[k].revents == 0) continue;
      char buffer[4096];
      const ssize_t got = ::read(pfds[k].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[index[k]]->append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        closeIfOpen(fds[index[k]]);
      }
    }
  }
  closeIfOpen(fds[0]);
  closeIfOpen(fds[1]);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exitCode = 128 + WTERMSIG(status);
  }
  return result;
}

namespace {

// Everything written to `fd` (a memfd) so far.
std::string readBack(int fd) {
  std::string text;
  ::lseek(fd, 0, SEEK_SET);
  char buffer[65536];
  ssize_t got = 0;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR)) {
    if (got > 0) text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

void flushAll() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

// Points descriptors 0, 1 and 2 at /dev/null and two memfds while it lives.
class Redirection {
 public:
  Redirection()
      : out_(::memfd_create("stdout", MFD_CLOEXEC)), err_(::memfd_create("stderr", MFD_CLOEXEC)) {
    const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out_ < 0 || err_ < 0 || in < 0) {
      for (const int fd : {out_, err_, in}) {
        if (fd >= 0) ::close(fd);
      }
      throw std::runtime_error("cannot redirect stdio");
    }
    flushAll();
    for (int fd = 0; fd < 3; ++fd) saved_[fd] = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::dup2(in, 0);
    ::dup2(out_, 1);
    ::dup2(err_, 2);
    ::close(in);
  }
  Redirection(const Redirection&) = delete;
  Redirection& operator=(const Redirection&) = delete;
  ~Redirection() {
    restore();
    ::close(out_);
    ::close(err_);
  }
  // Puts the test's own descriptors back (idempotent).
  void restore() {
    flushAll();
    for (int fd = 0; fd < 3; ++fd) {
      if (saved_[fd] < 0) continue;
      ::dup2(saved_[fd], fd);
      ::close(saved_[fd]);
      saved_[fd] = -1;
    }
    std::cout.clear();
    std::cerr.clear();
  }
  std::string out() const { return readBack(out_); }
  std::string err() const { return readBack(err_); }

 private:
  int out_, err_;
  int saved_[3] = {-1, -1, -1};
};

}  // namespace

ProcessResult runInProcess(const ProgramEntry& entry, const std::string& program,
                           const std::vector<std::string>& args,
                           std::chrono::milliseconds timeout) {
  std::vector<std::string> strings{program};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const std::string& s : strings) argv.push_back(s.c_str());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(strings.size());

  Redirection redirection;
  std::packaged_task<int()> task([&] { return entry(argc, argv.data()); });
  std::future<int> done = task.get_future();
  std::thread worker(std::move(task));
  if (done.wait_for(timeout) == std::future_status::timeout) {
    redirection.restore();
    std::cerr << "runInProcess: " << program << " did not finish within " << timeout.count()
              << " ms; stderr so far:\n"
              << redirection.err() << std::endl;
    std::abort();
  }
  worker.join();
  redirection.restore();
  ProcessResult result;
  result.exitCode = done.get();
  result.out = redirection.out();
  result.err = redirection.err();
  return result;
}

namespace {
std::string readWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

ProcessResult runInterrupted(const std::string& program, const std::vector<std::string>& args,
                             const std::filesystem::path& dir, std::chrono::milliseconds delay) {
  const std::filesystem::path outPath = dir / "stdout.txt";
  const std::filesystem::path errPath = dir / "stderr.txt";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  // A SIGINT the test runner ignores must not be ignored by the child.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> strings{program};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(strings.size() + 1);
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ProcessResult result;
  if (rc != 0) return result;

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  int status = 0;
  bool exited = false;
  auto poll = [&] {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    exited = exited || got == pid;
    return exited;
  };
  const auto interruptAt = Clock::now() + delay;
  while (!poll() && Clock::now() < interruptAt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!poll()) ::kill(pid, SIGINT);
  while (!poll() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!exited) {
    result.timedOut = true;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exitCode = 128 + WTERMSIG(status);
  }
  result.out = readWhole(outPath);
  result.err = readWhole(errPath);
  return result;
}

}  // namespace libra::testing
