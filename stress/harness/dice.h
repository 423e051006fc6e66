// Draws of the stress harness, the same on every run and every compiler: std::mt19937_64 and
// modular arithmetic only, never the implementation-defined std distributions or std::shuffle.
// Whatever a replay line must repeat (programs, killed owners, damaged entries) is drawn here.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace safetune::stress {

// splitmix64's finalizer: decorrelates (seed, round, thread, ...) into independent generator seeds.
inline std::uint64_t mix64(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

// The generator seed of one (seed, round) and one use of it: `salt` keeps the uses independent of
// each other. Programs take salts 0 (the device) and 1 + thread; a process's kill kKillSalt + process,
// its pause kPauseSalt + process, its stall kStallSalt + process, the store's damage kDamageSalt
// (far above any thread count).
inline std::uint64_t draw_seed(std::uint64_t seed, std::uint64_t round, std::uint64_t salt) {
  return mix64(mix64(mix64(seed) ^ round) + salt);
}

inline constexpr std::uint64_t kKillSalt = std::uint64_t{1} << 40;    // + the process number
inline constexpr std::uint64_t kDamageSalt = std::uint64_t{2} << 40;
inline constexpr std::uint64_t kPauseSalt = std::uint64_t{3} << 40;   // + the process number
inline constexpr std::uint64_t kStallSalt = std::uint64_t{4} << 40;   // + the process number

class Dice {
 public:
  explicit Dice(std::uint64_t seed) : engine_(seed) {}
  bool chance(double rate) { return rate > 0 && static_cast<double>(engine_() >> 11) * 0x1.0p-53 < rate; }
  // In [0, bound), bound > 0.
  int below(int bound) { return static_cast<int>(engine_() % static_cast<std::uint64_t>(bound)); }
  std::uint64_t next() { return engine_(); }

  // Fisher-Yates, with below() for each pick.
  template <typename T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[static_cast<std::size_t>(below(static_cast<int>(i)))]);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace safetune::stress
