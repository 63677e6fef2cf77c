// File names made from the names users give things (projects, workloads).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace libra {

// The longest a stem from fileStem is: far under NAME_MAX (255 bytes) with any
// suffix ("-2.txt") or temporary-file prefix added, and short enough that a
// message naming the file quotes all of it (messages quote at most 80 characters).
inline constexpr std::size_t kMaxFileStemBytes = 64;

// A file name stem from `name`: ASCII letters, digits, '-', '_' and '.' (not
// first, so never a hidden file) are kept; every other run of characters
// (non-ASCII ones too) becomes one `separator`, and none is left at either end
// ("GPT-3 175B (TP 16)" -> "GPT-3_175B_TP_16" with '_', "GPT-3-175B-TP-16" with
// '-'). At most `maxBytes` long, cut at the end. Empty when nothing is left: the
// caller names the fallback.
std::string fileStem(std::string_view name, char separator = '_',
                     std::size_t maxBytes = kMaxFileStemBytes);

// The longest start of `s` of at most `maxBytes` bytes that does not end inside a
// UTF-8 sequence.
std::string_view utf8Prefix(std::string_view s, std::size_t maxBytes);

}  // namespace libra
