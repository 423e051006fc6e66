// `notify-one`: the owner wakes its waiters with notify_one on a condition variable that every
// waiter of every key shares. One thread wakes (perhaps a waiter of another key, which goes back
// to sleep); the rest sleep on an attempt that is long done: a lost wakeup. Caught as R7 by the
// watchdog: no call completes, and the open calls are named. Under Relacy: a deadlock.
#pragma once

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

template <class Sync>
class NotifyOne final : public BasicMiniTuner<Sync> {
 public:
  using BasicMiniTuner<Sync>::BasicMiniTuner;

 protected:
  void wake_waiters() override { this->finished_.notify_one(); }  // BUG: must be notify_all
};

}  // namespace safetune::stress::subjects
