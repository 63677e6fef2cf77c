#include "libra/memory_usage.hpp"

#include "libra/sanitizers.hpp"

#if defined(LIBRA_ADDRESS_SANITIZER) || defined(LIBRA_THREAD_SANITIZER)
#include <cstddef>
// From the sanitizers' common allocator interface (compiler-rt's
// sanitizer/allocator_interface.h, which GCC 12 does not install); libasan and
// libtsan both export it.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
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
