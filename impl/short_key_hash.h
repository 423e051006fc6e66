// A hash for the autotuner's key strings, cheap enough for the hot path.
//
// Why not std::hash: libstdc++ hashes a string_view with a byte-wise Murmur loop, which costs
// more than the whole rest of a tuned call, and on this project's CI machines it is the part of
// the hot path that scaled worst with threads. Keys are short (a shape such as "n=4096"), so
// this reads them in at most two overlapping words (the trick wyhash uses for short inputs) and
// mixes once per 8 bytes.
//
// Contract: a pure function of the key's bytes; equal keys hash equal. It is not keyed and not
// stable across versions: use it for in-memory buckets only, never for anything stored.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>

namespace safetune {

namespace short_key_hash_detail {

inline std::uint64_t load64(const char* bytes) {
  std::uint64_t word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

inline std::uint64_t load32(const char* bytes) {
  std::uint32_t word;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

// One multiply and a fold of the high half into the low half (a 64-bit finalizer step).
inline std::uint64_t mix(std::uint64_t state, std::uint64_t word) {
  const std::uint64_t product = (state ^ word) * 0xff51afd7ed558ccdULL;
  return product ^ (product >> 32);
}

// The last 0-8 bytes as one word. Overlapping reads cover 4-7 bytes without a loop.
inline std::uint64_t tail_word(const char* bytes, std::size_t size) {
  if (size >= 4) return load32(bytes) | (load32(bytes + size - 4) << 32);
  if (size == 0) return 0;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint64_t>(
                                             static_cast<unsigned char>(bytes[i])); };
  return byte(0) | (byte(size / 2) << 8) | (byte(size - 1) << 16);
}

}  // namespace short_key_hash_detail

inline std::uint64_t short_key_hash(std::string_view key) {
  using namespace short_key_hash_detail;
  const char* bytes = key.data();
  std::size_t left = key.size();
  // The size seeds the state, so keys that differ only in trailing overlap still differ.
  std::uint64_t state = 0x9e3779b97f4a7c15ULL * (key.size() + 1);
  for (; left > 8; bytes += 8, left -= 8) state = mix(state, load64(bytes));
  if (left == 8) return mix(state, load64(bytes));
  return mix(state, tail_word(bytes, left));
}

}  // namespace safetune
