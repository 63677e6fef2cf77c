// File names made from the names users give things (projects, workloads).
#pragma once

#include <string>
#include <string_view>

namespace libra {

// A file name stem from `name`: letters, digits, '-', '_' and '.' (not first,
// so never a hidden file) are kept; every other run of characters becomes one
// `separator`, and none is left at either end ("GPT-3 175B (TP 16)" ->
// "GPT-3_175B_TP_16" with '_', "GPT-3-175B-TP-16" with '-'). Empty when nothing
// is left: the caller names the fallback.
std::string fileStem(std::string_view name, char separator = '_');

}  // namespace libra
