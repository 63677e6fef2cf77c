// POSIX file-descriptor helpers shared by the engine's writers (internal header):
// single files and export folders written atomically (atomic_write.cpp).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

namespace libra::posix {

// "No such file or directory" for ENOENT.
inline std::string errnoText(int error) {
  return std::generic_category().message(error);
}

// Writes all of `contents` to `fd`; 0 or the errno of the failure.
inline int writeAll(int fd, std::string_view contents) {
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace libra::posix
