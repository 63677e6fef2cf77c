#include "libra/memory_usage.hpp"

#include "libra/sanitizers.hpp"

#if defined(LIBRA_ADDRESS_SANITIZER) || defined(LIBRA_THREAD_SANITIZER)
#include <cstddef>
// The sanitizers' common allocator interface: Clang installs its header; GCC 12
// does not, but libasan and libtsan export the function all the same.
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#else
extern "C" std::size_t
__sanitizer_get_current_allocated_bytes();  // NOLINT(bugprone-reserved-identifier)
#endif
#define LIBRA_SANITIZED_ALLOCATOR 1
#else
#include <malloc.h>
#endif

namespace libra {

std::int64_t heapInUseBytes() {
#ifdef LIBRA_SANITIZED_ALLOCATOR
  return static_cast<std::int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  const struct mallinfo2 info = mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
#endif
}

bool residentSetTracksHeap() {
#ifdef LIBRA_SANITIZED_ALLOCATOR
  return false;
#else
  return true;
#endif
}

}  // namespace libra
