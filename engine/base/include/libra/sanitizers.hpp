#pragma once

// Which sanitizer this translation unit is built with. GCC defines
// __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__; Clang 14 defines neither and
// answers __has_feature instead (the ci preset builds with Clang, its TSan tree
// with GCC).
#if defined(__SANITIZE_ADDRESS__)
#define LIBRA_ADDRESS_SANITIZER 1
#endif
#if defined(__SANITIZE_THREAD__)
#define LIBRA_THREAD_SANITIZER 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LIBRA_ADDRESS_SANITIZER 1
#endif
#if __has_feature(thread_sanitizer)
#define LIBRA_THREAD_SANITIZER 1
#endif
#endif
