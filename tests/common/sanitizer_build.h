// Which sanitizer this test was built with, for the tests whose check a sanitizer's runtime
// changes (an allocator it replaces, an address-space limit it cannot live under, a report it
// makes). g++ says so with __SANITIZE_*__, clang with __has_feature.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define SAFETUNE_TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SAFETUNE_TSAN_BUILD 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SAFETUNE_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAFETUNE_ASAN_BUILD 1
#endif
#endif

namespace safetune::testing {

#ifdef SAFETUNE_TSAN_BUILD
inline constexpr bool kThreadSanitizerBuild = true;
#else
inline constexpr bool kThreadSanitizerBuild = false;
#endif

#ifdef SAFETUNE_ASAN_BUILD
inline constexpr bool kAddressSanitizerBuild = true;
#else
inline constexpr bool kAddressSanitizerBuild = false;
#endif

}  // namespace safetune::testing
