// Atomic counters in memory shared with every process forked after they are made (an anonymous
// MAP_SHARED mapping): what a worker adds, its parent and the other workers read, and the other
// way round. Lock-free, so a process killed or stopped mid-update leaves no lock held.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace safetune::stress {

class SharedCounters {
 public:
  using Counter = std::atomic<std::int64_t>;
  // `count` counters, each 0; std::system_error, naming `what`, when they cannot be mapped.
  SharedCounters(std::size_t count, const char* what);
  ~SharedCounters();
  SharedCounters(const SharedCounters&) = delete;
  SharedCounters& operator=(const SharedCounters&) = delete;

  Counter& operator[](std::size_t index) const { return counters_[index]; }

 private:
  std::size_t bytes() const { return count_ * sizeof(Counter); }

  const std::size_t count_;
  Counter* counters_;
};

}  // namespace safetune::stress
