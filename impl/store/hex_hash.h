// The hashes that name the store's files and fingerprint a config space: FNV-1a over bytes (64
// bits), shown as 16 hex digits. Stable across processes, builds and machines, unlike std::hash.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace safetune::store_hash {

inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;

// Folds `bytes` into `hash`.
inline std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

inline std::string hex64(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace safetune::store_hash
