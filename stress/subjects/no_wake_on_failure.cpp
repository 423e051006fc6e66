// `no-wake-on-failure`: when every config fails, the owner puts the key back to cold and throws,
// but never completes its attempt, so the threads waiting on it sleep forever. Lives in the
// `faults` scenario (whole attempts fail). Caught as R7 by the watchdog.
#include "mini_tuner.h"
#include "subjects.h"

namespace safetune::stress::subjects {
namespace {

class NoWakeOnFailure final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  void fail(const Invocation& inv, Entry& entry, Attempt& attempt) override {
    report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), nullptr, &attempt.error);
    entry.attempt.reset();
    // BUG: attempt.done stays false and nobody is woken.
  }
};

}  // namespace

std::unique_ptr<Subject> make_no_wake_on_failure(const SubjectEnvironment& environment) {
  return std::make_unique<NoWakeOnFailure>(environment);
}

}  // namespace safetune::stress::subjects
