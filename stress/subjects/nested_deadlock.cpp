// `nested-deadlock`: the per-device benchmark lock is a plain, non-re-entrant lock, held for the
// whole measurement of a config, its pre-bench hook included. A hook that tunes another key
// (nested tuning) benchmarks that key on the same thread and blocks on the lock it already
// holds; or it waits for another thread's attempt, whose owner needs that lock. Lives in the
// `nested` scenario. Caught as R7 by the watchdog.
#include <condition_variable>
#include <mutex>

#include "impl/kernel.h"
#include "mini_tuner.h"
#include "subjects.h"

namespace safetune::stress::subjects {
namespace {

// A lock that blocks (rather than being undefined behaviour, as std::mutex is) when its holder
// takes it again: that is the deadlock this subject exists to show.
class NonReentrantLock {
 public:
  void lock() {
    std::unique_lock guard(mutex_);
    released_.wait(guard, [this] { return !held_; });
    held_ = true;
  }
  void unlock() {
    {
      std::lock_guard guard(mutex_);
      held_ = false;
    }
    released_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  bool held_ = false;  // guarded by mutex_
};

class NestedDeadlock final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  double measure(const Invocation& inv, const Config& config) override {
    std::lock_guard hold(device_lock_);  // BUG: not re-entrant, and held across the hook
    if (env_.pre_bench_hook) env_.pre_bench_hook(inv, config);
    return env_.kernel.benchmark(inv, config);
  }

 private:
  NonReentrantLock device_lock_;
};

}  // namespace

std::unique_ptr<Subject> make_nested_deadlock(const SubjectEnvironment& environment) {
  return std::make_unique<NestedDeadlock>(environment);
}

}  // namespace safetune::stress::subjects
