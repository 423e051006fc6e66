// `retry-storm`: when the attempt a thread waited on fails, every woken waiter starts its own
// attempt at once instead of taking the error (or letting one of them retry). Lives in the
// `faults` scenario. Caught as R2 (exclusive tuning): several attempts on one key in flight.
#include "mini_tuner.h"
#include "subjects.h"

namespace safetune::stress::subjects {
namespace {

class RetryStorm final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  Config on_waited_failure(const Invocation& inv, Lock& lock, Entry& entry,
                           const Attempt&) override {
    return tune(inv, lock, entry);  // BUG: ignores the attempt another waiter may have begun
  }
};

}  // namespace

std::unique_ptr<Subject> make_retry_storm(const SubjectEnvironment& environment) {
  return std::make_unique<RetryStorm>(environment);
}

}  // namespace safetune::stress::subjects
