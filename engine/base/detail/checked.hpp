// Checked 64-bit arithmetic for counts (NPUs, degrees, samples): a product or
// sum that does not fit is reported, never wrapped (internal header).
#pragma once

#include <cstdint>
#include <optional>

namespace libra::checked {

inline std::optional<std::int64_t> multiply(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace libra::checked
