// `notify-one`: the owner wakes its waiters with notify_one on a condition variable that every
// waiter of every key shares. One thread wakes (perhaps a waiter of another key, which goes back
// to sleep); the rest sleep on an attempt that is long done: a lost wakeup. Caught as R7 by the
// watchdog: no call completes, and the open calls are named.
#include "mini_tuner.h"
#include "subjects.h"

namespace safetune::stress::subjects {
namespace {

class NotifyOne final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  void wake_waiters() override { finished_.notify_one(); }  // BUG: must be notify_all
};

}  // namespace

std::unique_ptr<Subject> make_notify_one(const SubjectEnvironment& environment) {
  return std::make_unique<NotifyOne>(environment);
}

}  // namespace safetune::stress::subjects
