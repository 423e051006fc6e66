// An Observer for tests: counts the autotuner's reports by kind, so a test can wait until a
// thread has reached a point (e.g. it is now waiting on an attempt) before it goes on.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "impl/observer.h"
#include "tests/impl/deadline.h"

namespace safetune::testing {

class EventCounter : public Observer {
 public:
  // With `next`, every event is forwarded to it first (e.g. a TraceRecorder), then counted.
  explicit EventCounter(Observer* next = nullptr) : next_(next) {}
  void record(const ObservedEvent& event) noexcept override {
    if (next_ != nullptr) next_->record(event);
    std::lock_guard guard(mutex_);
    ++counts_[event.kind];
    changed_.notify_all();
  }
  int count(model::EventKind kind) const {
    std::lock_guard guard(mutex_);
    auto it = counts_.find(kind);
    return it == counts_.end() ? 0 : it->second;
  }
  // True once `kind` has been reported at least `times` times; false after `limit`.
  bool wait_until(model::EventKind kind, int times,
                  std::chrono::milliseconds limit = std::chrono::duration_cast<std::chrono::milliseconds>(kDeadline)) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] {
      auto it = counts_.find(kind);
      return it != counts_.end() && it->second >= times;
    });
  }

 private:
  Observer* const next_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<model::EventKind, int> counts_;
};

}  // namespace safetune::testing
