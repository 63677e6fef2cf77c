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

#include "libra/atomic_write.hpp"
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

}  // namespace libra
