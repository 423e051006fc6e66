// `global-lock`: one lock serializes every call of the kernel, tuned or not, and is held through
// benchmarking. It never tunes twice and never launches a wrong config, but a call on a key that
// is long tuned waits behind another key's tuning: caught as R10 (isolation), from the wait it
// reports whenever it blocks on the lock.
#pragma once

#include <mutex>

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

class GlobalLock final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

  Config call(const Invocation& inv) override {
    // Recursive, so that a re-entrant or nested call from a hook does not deadlock.
    std::unique_lock global(global_, std::try_to_lock);
    if (!global.owns_lock()) {
      report(model::EventKind::WaitBegin, inv.key, inv.stream.id());
      global.lock();  // BUG: a tuned key's call waits here for a tuning of any key
      report(model::EventKind::WaitEnd, inv.key, inv.stream.id());
    }
    return MiniTuner::call(inv);
  }

 private:
  std::recursive_mutex global_;
};

}  // namespace safetune::stress::subjects
