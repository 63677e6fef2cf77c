// Export folders written all or nothing (atomic_write.hpp).
#include "libra/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <set>
#include <system_error>
#include <vector>

#include "libra/error.hpp"
#include "libra/file_names.hpp"
#include "posix_io.hpp"
#include "text.hpp"

namespace libra {

namespace {

namespace fs = std::filesystem;

// A path as messages quote it: every part longer than 80 characters shortened
// (text::abbreviate), so a name the file system refuses is not echoed whole.
std::string quotedPath(const std::string& path) {
  std::string out;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    out += text::abbreviate(std::string_view(path).substr(start, slash - start));
    if (slash < path.size()) out += '/';
    start = slash + 1;
  }
  return "'" + out + "'";
}

// The folder's path with no trailing '/': lstat and rename must name the entry
// itself, not what a link there points to. "." and ".." are refused: an export
// replaces the folder, and the current one (or its parent) would be pulled away
// from under the shell that runs the command.
fs::path folderPath(const fs::path& dir, const std::string& shown) {
  if (dir.empty()) throw InputError("'': the directory name is empty");
  std::string text = dir.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  fs::path path(text);
  if (path.filename() == "." || path.filename() == "..") {
    throw InputError(shown +
                     ": an export is written as a folder of its own, which replaces the folder "
                     "named; give it by its name (e.g. 'astra') rather than '.' or '..'");
  }
  if (!path.has_filename() || path == path.root_path()) {
    throw InputError(shown + ": is the root of the file system; give a folder inside it");
  }
  return path;
}

std::string markerText(std::string_view format) {
  return "libra-export " + std::string(format) +
         "\n"
         "This folder was written as a whole by Libra Studio (libra). Exporting into it again\n"
         "with --force (or the GUI's confirmation) replaces the whole folder: keep your own\n"
         "files elsewhere.\n";
}

// Whether `dir` holds the marker of `format` as a regular file (not a link).
bool holdsMarker(const fs::path& dir, std::string_view format) {
  const fs::path marker = dir / kExportMarkerName;
  const int fd = ::open(marker.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  char buffer[128];
  ssize_t n = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  const std::string firstLine = markerText(format).substr(0, markerText(format).find('\n') + 1);
  return n > 0 && std::string_view(buffer, static_cast<std::size_t>(n)).starts_with(firstLine);
}

ExportDirectory inspectPath(const fs::path& path, const std::string& shown,
                            std::string_view format) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return ExportDirectory::Missing;
    throw InputError(shown + ": cannot be used (" + posix::errnoText(errno) + ")");
  }
  if (S_ISLNK(st.st_mode)) {
    throw InputError(shown +
                     ": is a symbolic link; an export is written as a folder of its own, never "
                     "through a link: give a new folder, or the one the link points to");
  }
  if (!S_ISDIR(st.st_mode)) {
    throw InputError(shown + ": exists and is not a directory; give a directory");
  }
  std::error_code ec;
  const fs::directory_iterator first(path, ec);
  if (ec) throw InputError(shown + ": cannot be read (" + ec.message() + ")");
  if (first == fs::directory_iterator()) return ExportDirectory::Empty;
  return holdsMarker(path, format) ? ExportDirectory::EarlierExport : ExportDirectory::NotEmpty;
}

// Refuses what may not be replaced; returns what is there.
ExportDirectory checkPath(const fs::path& path, const std::string& shown, std::string_view format,
                          bool replaceEarlierExport) {
  const ExportDirectory state = inspectPath(path, shown, format);
  if (state == ExportDirectory::NotEmpty) {
    throw InputError(shown + ": the directory is not empty and holds no earlier export (no " +
                     std::string(kExportMarkerName) + " file); give a new or empty directory");
  }
  if (state == ExportDirectory::EarlierExport && !replaceEarlierExport) {
    throw InputError(shown +
                     ": the directory is not empty: it holds an earlier export, which is "
                     "replaced only when asked to");
  }
  return state;
}

// A new empty folder beside `path`: ".NAME.KIND-<pid>-<n>", NAME cut so that the
// whole stays well under NAME_MAX. mkdir's mode 0777 lets the umask decide.
fs::path makeSibling(const fs::path& path, const char* kind, const std::string& shown) {
  static std::atomic<unsigned> counter{0};
  const std::string name(utf8Prefix(path.filename().string(), 160));
  for (int attempt = 0;; ++attempt) {
    fs::path sibling =
        path.parent_path() / ("." + name + "." + kind + "-" + std::to_string(::getpid()) + "-" +
                              std::to_string(counter.fetch_add(1)));
    if (::mkdir(sibling.c_str(), 0777) == 0) return sibling;
    if (errno != EEXIST || attempt > 100) {
      const std::string parent = path.has_parent_path() ? path.parent_path().string() : ".";
      throw InputError(shown + ": cannot create a folder beside it in " + quotedPath(parent) +
                       " (" + posix::errnoText(errno) + ")");
    }
  }
}

void syncPath(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)::fsync(fd);
    ::close(fd);
  }
}

// Writes one new file under `root` (a folder of our own, so no link is in the
// way; O_EXCL | O_NOFOLLOW make sure), creating its folders; `made` collects them.
void writeNewFile(const fs::path& root, const OutputFile& file, const std::string& shown,
                  std::set<fs::path>& made) {
  const fs::path relative(file.path);
  const std::string quoted = quotedPath(file.path);
  for (const fs::path& part : relative) {
    if (part.empty() || part == "." || part == ".." || relative.is_absolute()) {
      throw InputError(shown + ": " + quoted + " is not a path inside the folder");
    }
  }
  fs::path folder = root;
  for (const fs::path& part : relative.parent_path()) {
    folder /= part;
    if (made.count(folder) != 0) continue;
    if (::mkdir(folder.c_str(), 0777) != 0) {
      throw InputError(shown + ": cannot create " +
                       quotedPath(folder.lexically_relative(root).string()) + " (" +
                       posix::errnoText(errno) + ")");
    }
    made.insert(folder);
  }
  const fs::path target = root / relative;
  const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  int error = fd < 0 ? errno : posix::writeAll(fd, file.contents);
  if (fd >= 0 && error == 0 && ::fsync(fd) != 0) error = errno;
  if (fd >= 0 && ::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    throw InputError(shown + ": cannot write " + quoted + ": " + posix::errnoText(error));
  }
}

// Removes the empty folders `made` (innermost last in the list) again.
void removeFolders(const std::vector<fs::path>& made) {
  for (auto it = made.rbegin(); it != made.rend(); ++it) ::rmdir(it->c_str());
}

// Creates the folders missing above `path`, as mkdir -p does; returns them,
// outermost first, so that a failure can remove them again.
std::vector<fs::path> makeParents(const fs::path& path, const std::string& shown) {
  std::vector<fs::path> missing;
  struct stat st {};
  for (fs::path p = path.parent_path();
       !p.empty() && ::stat(p.c_str(), &st) != 0 && errno == ENOENT; p = p.parent_path()) {
    missing.push_back(p);
  }
  std::vector<fs::path> made;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST) {
      const int error = errno;
      removeFolders(made);
      throw InputError(shown + ": cannot create " + quotedPath(it->string()) + " (" +
                       posix::errnoText(error) + ")");
    }
    made.push_back(*it);
  }
  return made;
}

// Writes the marker and `files` into the new folder `root`, each file and folder synced.
void writeFolder(const fs::path& root, std::span<const OutputFile> files, std::string_view format,
                 const std::string& shown) {
  std::set<fs::path> made{root};
  writeNewFile(root, {std::string(kExportMarkerName), markerText(format)}, shown, made);
  for (const OutputFile& file : files) writeNewFile(root, file, shown, made);
  for (const fs::path& folder : made) syncPath(folder);
}

// Removes a folder of ours when it goes out of scope, whatever it holds by then
// (the new files after a failure, the earlier export after a swap); links in it
// are removed, never followed.
class RemovedAtEnd {
 public:
  explicit RemovedAtEnd(fs::path path) : path_(std::move(path)) {}
  RemovedAtEnd(const RemovedAtEnd&) = delete;
  RemovedAtEnd& operator=(const RemovedAtEnd&) = delete;
  ~RemovedAtEnd() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Puts the written folder `fresh` at `path`. Over nothing or an empty folder one
// rename does (it replaces an empty directory); an earlier export is swapped
// with the new folder, so `path` is never missing, and `fresh` then holds the
// earlier export. Where the file system cannot swap, the earlier export is moved
// aside first (and back when the second rename fails).
void moveIntoPlace(const fs::path& fresh, const fs::path& path, ExportDirectory state,
                   const std::string& shown) {
  if (state != ExportDirectory::EarlierExport) {
    if (::rename(fresh.c_str(), path.c_str()) != 0) {
      throw InputError(shown + ": cannot be created (" + posix::errnoText(errno) + ")");
    }
    return;
  }
#ifdef RENAME_EXCHANGE
  if (::renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) return;
  if (errno != EINVAL && errno != ENOSYS) {
    throw InputError(shown + ": cannot be replaced (" + posix::errnoText(errno) + ")");
  }
#endif
  const fs::path aside = makeSibling(path, "old", shown);
  if (::rename(path.c_str(), aside.c_str()) != 0) {
    const int error = errno;
    ::rmdir(aside.c_str());
    throw InputError(shown + ": cannot be replaced (" + posix::errnoText(error) + ")");
  }
  if (::rename(fresh.c_str(), path.c_str()) != 0) {
    const int error = errno;
    const bool restored = ::rename(aside.c_str(), path.c_str()) == 0;
    throw InputError(shown + ": cannot be replaced (" + posix::errnoText(error) + ")" +
                     (restored ? "" : "; the earlier export is in " + quotedPath(aside.string())));
  }
  const RemovedAtEnd earlier(aside);
}

}  // namespace

ExportDirectory inspectExportDirectory(const fs::path& dir, std::string_view format) {
  const std::string shown = quotedPath(dir.string());
  return inspectPath(folderPath(dir, shown), shown, format);
}

ExportDirectory checkExportDirectory(const fs::path& dir, std::string_view format,
                                     bool replaceEarlierExport) {
  const std::string shown = quotedPath(dir.string());
  return checkPath(folderPath(dir, shown), shown, format, replaceEarlierExport);
}

void writeDirectoryAtomically(const fs::path& dir, std::span<const OutputFile> files,
                              std::string_view format, bool replaceEarlierExport) {
  const std::string shown = quotedPath(dir.string());
  const fs::path path = folderPath(dir, shown);
  const ExportDirectory state = checkPath(path, shown, format, replaceEarlierExport);
  const std::vector<fs::path> parents = makeParents(path, shown);
  try {
    const RemovedAtEnd fresh(makeSibling(path, "tmp", shown));
    writeFolder(fresh.path(), files, format, shown);
    if (state == ExportDirectory::EarlierExport) {
      // The folder keeps the permissions the earlier export had.
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0) (void)::chmod(fresh.path().c_str(), st.st_mode & 07777);
    }
    // The folder may have changed since it was looked at; the renames refuse a
    // folder that is not empty, so only an earlier export can be swapped out.
    moveIntoPlace(fresh.path(), path, checkPath(path, shown, format, replaceEarlierExport), shown);
  } catch (...) {
    removeFolders(parents);
    throw;
  }
  syncPath(path.has_parent_path() ? path.parent_path() : fs::path("."));
}

using posix::errnoText;
using posix::writeAll;

namespace {

// "cannot read 'x.json': No such file or directory"
[[noreturn]] void fileError(const char* verb, const std::string& file, const std::string& problem) {
  throw InputError(std::string("cannot ") + verb + " '" + file + "': " + problem);
}

// The file a path finally names: symbolic links followed (a dangling link
// names the file it would point to), at most 40 of them as the kernel does.
fs::path followLinks(const fs::path& path, const std::string& shown) {
  fs::path target = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return target;
    std::error_code ec;
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) fileError("write", shown, ec.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  fileError("write", shown, "too many levels of symbolic links");
}

// Removes `.<name>.tmp-<pid>-<n>` files next to `target` whose writer no longer runs.
void removeStaleTemporaries(const fs::path& dir, const std::string& name) {
  const std::string prefix = "." + name + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.rfind(prefix, 0) != 0) continue;
    const std::string rest = entry.substr(prefix.size());
    const std::size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    long pid = 0;
    const auto [stop, err] = std::from_chars(rest.data(), rest.data() + dash, pid);
    if (err != std::errc() || stop != rest.data() + dash || pid <= 0) continue;
    if (pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

}  // namespace

void writeFileAtomically(const std::filesystem::path& requested, std::string_view contents) {
  const std::string shown = requested.string();
  if (requested.filename().empty()) fileError("write", shown, "it names a directory, not a file");
  const fs::path path = followLinks(requested, shown);

  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  if (exists) {
    if (S_ISDIR(existing.st_mode)) fileError("write", shown, "it is a directory, not a file");
    if (S_ISCHR(existing.st_mode) || S_ISFIFO(existing.st_mode)) {
      // A device or a pipe is written in place; it is never replaced by a file.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) fileError("write", shown, errnoText(errno));
      int error = writeAll(fd, contents);
      if (::close(fd) != 0 && error == 0) error = errno;
      if (error != 0) fileError("write", shown, errnoText(error));
      return;
    }
    if (!S_ISREG(existing.st_mode)) {
      fileError("write", shown, "it is not a regular file (a socket or a block device)");
    }
    if ((existing.st_mode & 0222) == 0) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", existing.st_mode & 07777);
      fileError("write", shown,
                std::string("the file is read-only (mode ") + mode +
                    "); make it writable or write to another file");
    }
    if (::access(path.c_str(), W_OK) != 0) fileError("write", shown, errnoText(errno));
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  removeStaleTemporaries(dir, path.filename().string());

  // A unique name next to the target, so the rename stays on one file system.
  // O_EXCL with mode 0666 lets the umask decide the permissions of a new file.
  static std::atomic<unsigned> counter{0};
  fs::path temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = dir / ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter.fetch_add(1)));
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 100)) fileError("write", shown, errnoText(errno));
  }

  // From here on a failure removes the temporary file; the old file is untouched.
  if (exists) (void)::fchmod(fd, existing.st_mode & 07777);  // a replaced file keeps its mode
  int error = writeAll(fd, contents);
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    fileError("write", shown, errnoText(error));
  }

  // Make the rename itself durable; failing here loses nothing already written.
  const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    (void)::fsync(dirFd);
    ::close(dirFd);
  }
}

std::string readFile(const std::filesystem::path& path) {
  const std::string shown = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fileError("read", shown, errnoText(errno));
  const std::string tooLarge = "larger than " + std::to_string(kMaxInputFileBytes >> 20) +
                               " MiB (the limit for input files)";
  // Refused before anything is read; a file that is not regular (a pipe, a
  // device) or grows while read is stopped at the limit.
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<std::uintmax_t>(st.st_size) > kMaxInputFileBytes) {
    ::close(fd);
    fileError("read", shown,
              "the file is " + std::to_string(static_cast<std::uintmax_t>(st.st_size)) +
                  " bytes, " + tooLarge);
  }
  std::string out;
  char buffer[65536];
  for (;;) {
    if (out.size() > kMaxInputFileBytes) {
      ::close(fd);
      fileError("read", shown, "the input is " + tooLarge);
    }
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      fileError("read", shown, errnoText(error));
    }
    if (n == 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace libra
