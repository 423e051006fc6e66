// Schedule noise: a strategy that perturbs the timing of one stream's synchronization points so
// that races between threads show up in tests and stress runs.
//
// Contract:
// - The sim device calls at(point) on the CALLER's thread at every synchronization point of a
//   stream: before an enqueue, before a synchronize, before and after a benchmark.
// - at() may sleep or yield; it never throws and never touches autotuner state.
// - A strategy belongs to one stream. A seeded strategy is deterministic: the same seed gives
//   the same sequence of delays, so a failing seed replays the same schedule perturbation (the
//   OS scheduler still adds its own, which noise can only make more likely, not remove).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>
#include <string_view>

namespace safetune::sim {

enum class SyncPoint : std::uint8_t { Enqueue, Synchronize, BeforeBenchmark, AfterBenchmark };

std::string_view sync_point_name(SyncPoint point);  // "enqueue", "synchronize", ...

class ScheduleNoise {
 public:
  virtual ~ScheduleNoise() = default;
  virtual void at(SyncPoint point) noexcept = 0;
};

// No perturbation: the default, and what the hot-path benchmark uses.
class NoScheduleNoise final : public ScheduleNoise {
 public:
  void at(SyncPoint) noexcept override {}
};

struct RandomDelayOptions {
  double probability = 0.3;                    // chance that one sync point is delayed, in [0, 1]
  std::chrono::microseconds max_delay{50};     // a delay is uniform in [0, max_delay], <= 10 ms
};

// With `probability`, sleeps a uniform delay in [0, max_delay]; otherwise (or on a zero delay)
// only yields, which still lets another thread in at that point. Thread-safe, though one stream is meant to have one user thread.
class RandomDelayNoise final : public ScheduleNoise {
 public:
  // Throws std::invalid_argument naming the bad option.
  RandomDelayNoise(std::uint64_t seed, RandomDelayOptions options);

  void at(SyncPoint point) noexcept override;
  // The delay that the next at() would take (0 when it would not delay), advancing the sequence.
  // Exposed so that tests can check that a seed replays the same delays without sleeping.
  std::chrono::nanoseconds draw() noexcept;

 private:
  RandomDelayOptions options_;
  std::mutex mutex_;
  std::mt19937_64 rng_;  // guarded by mutex_; std engines are exactly specified, so seeds replay
};

// Throws std::invalid_argument when the options are out of range, naming the option and value.
void validate(const RandomDelayOptions& options);

// The seed of one stream's noise, from the device seed and the stream id: distinct streams get
// unrelated sequences, and the same (device seed, stream id) always gets the same one.
std::uint64_t stream_noise_seed(std::uint64_t device_seed, int stream_id);

}  // namespace safetune::sim
