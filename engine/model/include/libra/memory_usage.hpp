// What the process holds in memory, for the endurance checks (libra-studio
// --endurance, the sweep's memory test). Works in every build, sanitizers included.
#pragma once

#include <cstdint>

namespace libra {

// Bytes the allocator has handed out and not taken back, all threads: glibc's
// mallinfo2(), or under AddressSanitizer / ThreadSanitizer, which replace
// malloc (mallinfo2 then reads 0), the sanitizer allocator's own count.
std::int64_t heapInUseBytes();

// Whether the resident set size follows the program's own memory. False under
// the sanitizers: their shadow memory and ASan's quarantine of freed blocks (up
// to 256 MB by default) grow it whatever the program does, so only the heap in
// use says whether objects pile up.
bool residentSetTracksHeap();

}  // namespace libra
