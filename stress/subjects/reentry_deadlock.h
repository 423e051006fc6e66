// `reentry-deadlock`: a call that re-enters the key its own thread is tuning (from a pre-bench
// hook) is treated like any other caller and waits for the attempt in flight: its own, which
// cannot finish until it returns. Lives in the `reentry` scenario. Caught as R7 by the watchdog
// (the partial trace also shows the re-entrant call waiting: R9). Under Relacy: a deadlock.
#pragma once

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

template <class Sync>
class ReentryDeadlock final : public BasicMiniTuner<Sync> {
  using Base = BasicMiniTuner<Sync>;

 public:
  using Base::Base;

 protected:
  Config on_reentry(const Invocation& inv, typename Base::Lock& lock,
                    typename Base::Entry& entry) override {
    return this->wait_for(inv, lock, entry, entry.attempt.get());  // BUG: waits on itself
  }
};

}  // namespace safetune::stress::subjects
