// The progress of every worker process of a round, in memory they share (MAP_SHARED, mapped
// before they fork). Each worker's watchdog adds to it what its own process recorded, and reads
// the sum: a hang is a round in which nothing happens for the watchdog's limit. A call waiting on
// another process's owner that is still tuning (slow under load: a sanitizer build, many processes
// on few cores) is no stall; a call stuck for good still is, once the rest of the round has ended
// or stalled with it.
#pragma once

#include <atomic>
#include <cstdint>

#include "stress/harness/shared_counters.h"

namespace safetune::stress {

class RoundProgress {
 public:
  // std::system_error when it cannot be mapped.
  RoundProgress() : shared_(1, "the round's progress counter") {}

  std::atomic<std::int64_t>& events() const { return shared_[0]; }

 private:
  SharedCounters shared_;
};

// One process's share: what it recorded since it last said, added to the round's.
class RoundProgressShare {
 public:
  explicit RoundProgressShare(std::atomic<std::int64_t>& round) : round_(round) {}
  // The round's progress, this process's `recorded` (a count that only grows) included.
  std::int64_t add(std::int64_t recorded) {
    round_.fetch_add(recorded - told_, std::memory_order_relaxed);
    told_ = recorded;
    return round_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<std::int64_t>& round_;
  std::int64_t told_ = 0;
};

}  // namespace safetune::stress
