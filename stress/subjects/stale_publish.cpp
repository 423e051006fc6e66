// `stale-publish`: the owner marks the key tuned and wakes its waiters first, and writes the
// winner into the key's fields only after its own launch, with no lock. A waiter or a new
// caller that reads the fields in between launches the stale config (the first config, or the
// previous winner after an invalidate). Caught by the model as R5 (a launch that is not the
// published winner) or R6; ThreadSanitizer also reports the unsynchronized write.
#include "mini_tuner.h"
#include "subjects.h"

namespace safetune::stress::subjects {
namespace {

class StalePublish final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  void publish(const Invocation& inv, Entry& entry, Attempt& attempt, int winner) override {
    const std::string& config = env_.space[static_cast<std::size_t>(winner)].str();
    report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), &config);
    entry.tuned = true;  // BUG: published before entry.config is written
    if (entry.attempt.get() == &attempt) entry.attempt.reset();
    attempt.winner = winner;
    attempt.done = true;
    wake_waiters();
  }

  void after_owner_launch(Entry& entry, int winner) override {
    entry.config = winner;  // BUG: written late, and without the lock its readers hold
  }
};

}  // namespace

std::unique_ptr<Subject> make_stale_publish(const SubjectEnvironment& environment) {
  return std::make_unique<StalePublish>(environment);
}

}  // namespace safetune::stress::subjects
