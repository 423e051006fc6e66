// A ScheduleNoise for tests: records every sync point it is called at, in order, and never
// delays. Single-threaded use only (one stream, driven by the test thread).
#pragma once

#include <vector>

#include "impl/sim/schedule_noise.h"

namespace safetune::sim::testing {

class RecordingNoise final : public ScheduleNoise {
 public:
  explicit RecordingNoise(std::vector<SyncPoint>& points) : points_(points) {}
  void at(SyncPoint point) noexcept override { points_.push_back(point); }

 private:
  std::vector<SyncPoint>& points_;
};

}  // namespace safetune::sim::testing
