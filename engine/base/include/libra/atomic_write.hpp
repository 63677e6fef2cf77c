// Outputs of several files that appear whole or not at all. A folder is written
// as a fresh hidden sibling (".NAME.tmp-<pid>-<n>", same parent, so the rename
// stays on one file system), synced, and renamed into place; a failure removes
// the sibling and leaves the target as it was. A marker file names the format
// that wrote a folder, so that replacing one never touches a folder of the
// user's. Single files: writeFileAtomically (below).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace libra {

struct OutputFile {
  std::string path;  // relative to the folder, '/'-separated, no ".." or empty parts
  std::string contents;
};

// The file every export folder holds; its first line is "libra-export FORMAT".
inline constexpr std::string_view kExportMarkerName = ".libra-export";

// What is at the path an export is to go to. Only the last part of the path is
// looked at without following links: a symbolic link there is refused, whatever
// it points to.
enum class ExportDirectory {
  Missing,        // nothing there yet
  Empty,          // an empty folder
  EarlierExport,  // a folder with the marker of `format` (a regular file)
  NotEmpty,       // any other folder with something in it
};

// Throws InputError "'DIR': ..." (at most 80 characters of DIR) when the path
// cannot take an export at all: empty, the root, a symbolic link, not a folder,
// unreadable, a name the file system refuses.
ExportDirectory inspectExportDirectory(const std::filesystem::path& dir, std::string_view format);

// What inspectExportDirectory says, and refuses (InputError "'DIR': ...") what
// writeDirectoryAtomically would: a folder that is not empty and holds no earlier
// export of `format`, and an earlier export unless `replaceEarlierExport`.
ExportDirectory checkExportDirectory(const std::filesystem::path& dir, std::string_view format,
                                     bool replaceEarlierExport);

// Writes `files` and the marker of `format` as the folder `dir`, all or nothing.
// `dir` must pass checkExportDirectory; an earlier export is swapped for the new folder in one
// rename (two where the file system cannot swap) and then deleted without
// following the links in it. Throws InputError "'DIR': ..." naming the file that
// could not be written, with at most 80 characters of any name; then nothing
// has changed at `dir` and no temporary folder is left.
void writeDirectoryAtomically(const std::filesystem::path& dir, std::span<const OutputFile> files,
                              std::string_view format, bool replaceEarlierExport);

// Replaces a file's contents atomically: a temporary file in the same
// directory, synced, then renamed over the target; a failure leaves the old
// file as it was. What the target is decides the rest:
//  - a symbolic link stays a link: the file it points to is replaced;
//  - an existing regular file keeps its permissions; one without any write
//    permission (e.g. 0444), or one the user may not write, is refused;
//  - a character device or FIFO (/dev/null, /dev/stdout, a pipe) is written in
//    place, never replaced; a directory, socket or block device is refused.
// Temporary files that a killed writer (a process that no longer runs) left
// next to the target are removed first. Errors are InputError naming the file.
void writeFileAtomically(const std::filesystem::path& path, std::string_view contents);
// The largest input file read (projects, LIBRA YAML, ASTRA-sim text): 64 MiB.
// The largest bundled or reference input is well under 1 MiB.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{64} << 20;

// Reads a whole file; throws InputError naming the file when it cannot, or when
// it is larger than kMaxInputFileBytes (checked with fstat before reading).
std::string readFile(const std::filesystem::path& path);

}  // namespace libra
