// `fallback-leak`: under the fallback wait policy, a call that launched the fallback while the
// key was being tuned records its config in the cache as if it had been tuned, and the cache is
// insert-if-absent (like std::map::emplace), so the owner's real winner never replaces it. Every
// later call launches the fallback. Caught as R5 (agreement): a launch that is not the published
// winner.
#pragma once

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

class FallbackLeak final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  Config on_busy_fallback(const Invocation& inv, Lock& lock, Entry& entry) override
      SAFETUNE_NO_THREAD_SAFETY_ANALYSIS {
    lock.unlock();
    Config launched = launch(inv, kFallbackIndex);
    lock.lock();
    remember(entry, kFallbackIndex);  // BUG: a fallback is not a tuning result
    return launched;
  }

  void publish(const Invocation& inv, Entry& entry, Attempt& attempt, int winner) override {
    const std::string& config = env_.space[static_cast<std::size_t>(winner)].str();
    report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), &config);
    remember(entry, winner);
    clear_attempt(entry, attempt);
    attempt.winner.set(winner);
    attempt.done.set(true);
    wake_waiters();
  }

 private:
  static void remember(Entry& entry, int config) {
    if (entry.tuned.get()) return;  // insert-if-absent: the first writer wins
    entry.tuned.set(true);
    entry.config.set(config);
  }
};

}  // namespace safetune::stress::subjects
