// The project file: JSON with "format": "libra-project" and an integer
// "schema_version". Files from newer versions are refused; older ones are
// upgraded through the migrations in project_io.cpp. Saves are atomic.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "libra/project.hpp"

namespace libra {

inline constexpr int kProjectSchemaVersion = 2;
inline constexpr std::string_view kProjectFormat = "libra-project";

// `source` names the file in error messages.
Project projectFromJson(std::string_view text, const std::string& source = "<project>");
std::string projectToJson(const Project& project);

Project loadProject(const std::filesystem::path& path);
// Writes to a temporary file next to `path`, then renames it over `path`.
void saveProject(const Project& project, const std::filesystem::path& path);

// Atomic replace of a file's contents (temporary file in the same directory + rename).
void writeFileAtomically(const std::filesystem::path& path, std::string_view contents);
// Reads a whole file; throws InputError naming the file when it cannot.
std::string readFile(const std::filesystem::path& path);

}  // namespace libra
