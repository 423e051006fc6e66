#include "impl/sim/schedule_noise.h"

#include <stdexcept>
#include <string>
#include <thread>

namespace safetune::sim {

std::string_view sync_point_name(SyncPoint point) {
  switch (point) {
    case SyncPoint::Enqueue: return "enqueue";
    case SyncPoint::Synchronize: return "synchronize";
    case SyncPoint::BeforeBenchmark: return "before_benchmark";
    case SyncPoint::AfterBenchmark: return "after_benchmark";
  }
  return "unknown";
}

void validate(const RandomDelayOptions& options) {
  if (!(options.probability >= 0.0 && options.probability <= 1.0)) {
    throw std::invalid_argument("schedule noise: probability must be in [0, 1], got " +
                                std::to_string(options.probability));
  }
  constexpr std::chrono::microseconds longest{10'000};
  if (options.max_delay.count() < 0 || options.max_delay > longest) {
    throw std::invalid_argument("schedule noise: max_delay must be in [0, 10000] us, got " +
                                std::to_string(options.max_delay.count()) + " us");
  }
}

RandomDelayNoise::RandomDelayNoise(std::uint64_t seed, RandomDelayOptions options)
    : options_(options), rng_(seed) {
  validate(options_);
}

std::chrono::nanoseconds RandomDelayNoise::draw() noexcept {
  std::lock_guard lock(mutex_);
  // Plain modular arithmetic on the engine's output instead of std distributions: the engines
  // are specified bit-exactly, the distributions are not, and a seed must replay on every
  // standard library.
  constexpr std::uint64_t resolution = 1'000'000;
  const bool delayed = static_cast<double>(rng_() % resolution) <
                       options_.probability * static_cast<double>(resolution);
  if (!delayed) return std::chrono::nanoseconds{0};
  const auto span = static_cast<std::uint64_t>(
      std::chrono::nanoseconds(options_.max_delay).count());
  return std::chrono::nanoseconds{static_cast<std::int64_t>(rng_() % (span + 1))};
}

void RandomDelayNoise::at(SyncPoint) noexcept {
  const auto delay = draw();
  if (delay.count() == 0) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(delay);
  }
}

std::uint64_t stream_noise_seed(std::uint64_t device_seed, int stream_id) {
  // seed_seq spreads both inputs over the whole state, so seeds 1 and 2 are not near-copies.
  std::seed_seq sequence{static_cast<std::uint32_t>(device_seed),
                         static_cast<std::uint32_t>(device_seed >> 32),
                         static_cast<std::uint32_t>(stream_id)};
  std::uint32_t words[2];
  sequence.generate(words, words + 2);
  return (static_cast<std::uint64_t>(words[0]) << 32) | words[1];
}

}  // namespace safetune::sim
