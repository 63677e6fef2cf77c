// Outputs of several files that appear whole or not at all. A folder is written
// as a fresh hidden sibling (".NAME.tmp-<pid>-<n>", same parent, so the rename
// stays on one file system), synced, and renamed into place; a failure removes
// the sibling and leaves the target as it was. A marker file names the format
// that wrote a folder, so that replacing one never touches a folder of the
// user's. Single files: writeFileAtomically (project_io.hpp).
#pragma once

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

}  // namespace libra
