// `reentry-deadlock`: a call that re-enters the key its own thread is tuning (from a pre-bench
// hook) is treated like any other caller and waits for the attempt in flight: its own, which
// cannot finish until it returns. Lives in the `reentry` scenario. Caught as R7 by the watchdog
// (the partial trace also shows the re-entrant call waiting: R9).
#include "mini_tuner.h"
#include "subjects.h"

namespace safetune::stress::subjects {
namespace {

class ReentryDeadlock final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  Config on_reentry(const Invocation& inv, Lock& lock, Entry& entry) override {
    return wait_for(inv, lock, entry, entry.attempt);  // BUG: waits on itself
  }
};

}  // namespace

std::unique_ptr<Subject> make_reentry_deadlock(const SubjectEnvironment& environment) {
  return std::make_unique<ReentryDeadlock>(environment);
}

}  // namespace safetune::stress::subjects
