// `no-wake-on-failure`: when every config fails, the owner puts the key back to cold and throws,
// but never completes its attempt, so the threads waiting on it sleep forever. Lives in the
// `faults` scenario (whole attempts fail). Caught as R7 by the watchdog. Under Relacy: a
// deadlock.
#pragma once

#include <string>

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

template <class Sync>
class NoWakeOnFailure final : public BasicMiniTuner<Sync> {
  using Base = BasicMiniTuner<Sync>;

 public:
  using Base::Base;

 protected:
  void fail(const Invocation& inv, typename Base::Entry& entry,
            typename Base::Attempt& attempt) override {
    const std::string error = attempt.error.get();
    this->report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), nullptr, &error);
    entry.attempt.set(nullptr);
    // BUG: attempt.done stays false and nobody is woken.
  }
};

}  // namespace safetune::stress::subjects
