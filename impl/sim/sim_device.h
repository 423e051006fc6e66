// SimDevice: a simulated device for machines without a GPU.
//
// It hands out SimStreams (ids 0, 1, 2, ... unique per device) and holds the seed that makes
// everything random about the device replayable: each stream's schedule noise is seeded from
// (device seed, stream id), and each SimKernel's benchmark times from (device seed, kernel, key,
// config). Thread-safe: any thread may ask for a new stream.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "impl/sim/schedule_noise.h"
#include "impl/sim/sim_stream.h"

namespace safetune::sim {

struct SimDeviceOptions {
  std::uint64_t seed = 1;                   // replays noise and benchmark times
  std::optional<RandomDelayOptions> noise = {};  // schedule noise per stream; nullopt: none
};

class SimDevice {
 public:
  // Throws std::invalid_argument naming the bad option (see RandomDelayOptions).
  explicit SimDevice(SimDeviceOptions options = {});

  std::uint64_t seed() const { return options_.seed; }
  // A new stream with the next id and its own noise, seeded from (seed, id).
  std::unique_ptr<SimStream> new_stream();
  // The noise a stream with this id gets: a fresh sequence, the same one each time.
  std::unique_ptr<ScheduleNoise> noise_for(int stream_id) const;

 private:
  SimDeviceOptions options_;
  std::atomic<int> next_stream_id_{0};  // relaxed: only uniqueness matters, not ordering
};

}  // namespace safetune::sim
