// `retry-storm`: when the attempt a thread waited on fails, every woken waiter starts its own
// attempt at once instead of taking the error (or letting one of them retry). Lives in the
// `faults` scenario. Caught as R2 (exclusive tuning): several attempts on one key in flight.
#pragma once

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

template <class Sync>
class RetryStorm final : public BasicMiniTuner<Sync> {
  using Base = BasicMiniTuner<Sync>;

 public:
  using Base::Base;

 protected:
  Config on_waited_failure(const Invocation& inv, typename Base::Lock& lock,
                           typename Base::Entry& entry, const typename Base::Attempt&) override {
    return this->tune(inv, lock, entry);  // BUG: ignores the attempt another thread may have begun
  }
};

}  // namespace safetune::stress::subjects
