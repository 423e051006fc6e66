// `nested-deadlock`: the per-device benchmark lock is a plain, non-re-entrant lock, held for the
// whole measurement of a config, its pre-bench hook included. A hook that tunes another key
// (nested tuning) benchmarks that key on the same thread and blocks on the lock it already
// holds; or it waits for another thread's attempt, whose owner needs that lock. Lives in the
// `nested` scenario. Caught as R7 by the watchdog. Under Relacy: a deadlock.
#pragma once

#include <mutex>

#include "impl/sync.h"
#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

// A lock that blocks (rather than being undefined behaviour, as std::mutex is) when its holder
// takes it again: that is the deadlock this subject exists to show.
template <class Sync>
class NonReentrantLock {
 public:
  void lock() {
    typename Sync::Lock guard(mutex_);
    while (held_.get()) released_.wait(guard);
    held_.set(true);
  }
  void unlock() {
    {
      typename Sync::Lock guard(mutex_);
      held_.set(false);
    }
    released_.notify_one();
  }

 private:
  typename Sync::Mutex mutex_;
  typename Sync::CondVar released_;
  typename Sync::template Var<bool> held_ SAFETUNE_GUARDED_BY(mutex_){false};
};

template <class Sync>
class NestedDeadlock final : public BasicMiniTuner<Sync> {
 public:
  using BasicMiniTuner<Sync>::BasicMiniTuner;

 protected:
  double measure(const Invocation& inv, const Config& config) override {
    std::lock_guard hold(device_lock_);  // BUG: not re-entrant, and held across the hook
    if (this->env_.pre_bench_hook) this->env_.pre_bench_hook(inv, config);
    return this->env_.kernel.benchmark(inv, config);
  }

 private:
  NonReentrantLock<Sync> device_lock_;
};

}  // namespace safetune::stress::subjects
