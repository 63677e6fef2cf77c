// The project file: JSON with "format": "libra-project" and an integer
// "schema_version". Files from newer versions are refused; older ones are
// upgraded through the migrations in project_io.cpp. Saves are atomic.
//
// A project of one unnamed scenario is written as schema 2, the layout before
// scenarios (byte for byte what earlier versions wrote, and readable by them);
// a project of several scenarios, or of one named scenario, as schema 3 with a
// "scenarios" list (project_io.cpp shows both layouts).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "libra/project.hpp"

namespace libra {

inline constexpr int kProjectSchemaVersion = 4;
inline constexpr std::string_view kProjectFormat = "libra-project";

// `source` names the file in error messages.
Project projectFromJson(std::string_view text, const std::string& source = "<project>");

// A project with what reading it involved.
struct LoadedProject {
  Project project;
  int fileSchemaVersion = 0;  // the schema the file was written in
  // One sentence per migration step the file went through ("schema 1 -> 2: ..."),
  // saying what changed in the format and what it means for this file.
  std::vector<std::string> upgrades;
};
LoadedProject readProject(std::string_view text, const std::string& source = "<project>");
std::string projectToJson(const Project& project);

Project loadProject(const std::filesystem::path& path);
// Writes to a temporary file next to `path`, then renames it over `path`.
void saveProject(const Project& project, const std::filesystem::path& path);
// Throws InputError (nothing written) when a project file of `bytes` bytes could
// not be read back (more than kMaxInputFileBytes); saveProject checks it.
void checkProjectReadable(std::uintmax_t bytes, const std::filesystem::path& path);

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
