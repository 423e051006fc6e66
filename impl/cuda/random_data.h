// Fresh random inputs for the kernels' checks. Never zeros: zeros hide unwritten outputs and
// wrong indexing. Each call draws from its own seed, so every check runs on new data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace safetune::cuda {

inline std::uint64_t fresh_seed() { return (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}(); }

// Uniform in [-1, 1).
inline std::vector<float> random_floats(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> out(count);
  for (float& x : out) x = value(engine);
  return out;
}

// Uniform in [-1000, 1000].
inline std::vector<int> random_ints(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int> value(-1000, 1000);
  std::vector<int> out(count);
  for (int& x : out) x = value(engine);
  return out;
}

}  // namespace safetune::cuda
