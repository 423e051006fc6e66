// A hash and an equality for the autotuner's key strings, cheap enough for the hot path.
//
// Why not std::hash: libstdc++ hashes a string_view with a byte-wise Murmur loop, which costs
// more than the whole rest of a tuned call, and on this project's CI machines it is the part of
// the hot path that scaled worst with threads. Keys are short (a shape such as "n=4096"), so
// this reads them in at most two overlapping words (the trick wyhash uses for short inputs) and
// mixes once per 8 bytes.
//
// Contract: a pure function of the key's bytes; equal keys hash equal. It is not keyed and not
// stable across versions: use it for in-memory buckets only, never for anything stored.
//
// short_key_equal(a, b) is a == b. Why not operator==: it calls memcmp, which from a program
// linked to the C library is a jump through the PLT to a size-dispatching routine elsewhere in
// memory; on a GPU's tuned launch the driver's own code evicts both between calls. Keys of at
// most 16 bytes are compared here with the same overlapping word loads as the hash.
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
  if (size >= 4) [[likely]] return load32(bytes) | (load32(bytes + size - 4) << 32);
  if (size == 0) return 0;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint64_t>(
                                             static_cast<unsigned char>(bytes[i])); };
  return byte(0) | (byte(size / 2) << 8) | (byte(size - 1) << 16);
}

// a == b for two byte ranges of the same `size`, 1 to 16 bytes, without a call. Exact, because
// for a fixed size the words compared cover every byte: the first and last 8 bytes for 8-16,
// and tail_word (which holds every byte of 1-8) below that.
inline bool same_short_bytes(const char* a, const char* b, std::size_t size) {
  if (size >= 8) return load64(a) == load64(b) && load64(a + size - 8) == load64(b + size - 8);
  return tail_word(a, size) == tail_word(b, size);
}

// Keys of more than 8 bytes: one mix per 8 bytes, then the last 1-8 bytes as in the short case.
[[gnu::noinline]] inline std::uint64_t long_key_hash(std::uint64_t state, const char* bytes, std::size_t left) {
  for (; left > 8; bytes += 8, left -= 8) state = mix(state, load64(bytes));
  return mix(state, tail_word(bytes, left));  // tail_word of 8 bytes is their load64
}

}  // namespace short_key_hash_detail

// Keys of up to 8 bytes (most shapes) take the inline path, which has no loop.
inline std::uint64_t short_key_hash(std::string_view key) {
  using namespace short_key_hash_detail;
  // The size seeds the state, so keys that differ only in trailing overlap still differ.
  const std::uint64_t state = 0x9e3779b97f4a7c15ULL * (key.size() + 1);
  if (key.size() <= 8) [[likely]] return mix(state, tail_word(key.data(), key.size()));
  return long_key_hash(state, key.data(), key.size());
}

inline bool short_key_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const bool one_to_16_bytes = a.size() - 1 < 16;  // 0 wraps around to the largest size_t
  if (one_to_16_bytes) [[likely]] return short_key_hash_detail::same_short_bytes(a.data(), b.data(), a.size());
  return a == b;
}

}  // namespace safetune
