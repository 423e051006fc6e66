// `stale-publish`: the owner marks the key tuned and wakes its waiters first, and writes the
// winner into the key's fields only after its own launch, with no lock. A waiter or a new
// caller that reads the fields in between launches the stale config (the first config, or the
// previous winner after an invalidate). Caught by the model as R5 (a launch that is not the
// published winner) or R6; ThreadSanitizer also reports the unsynchronized write, and Relacy
// reports it as a data race on the key's `config` field.
//
// Under real threads the owner pauses (kLateWrite) before its late write. Without the pause the
// window is one launch long, and on a loaded machine (2 cores, TSan, runs in parallel) the owner
// often crosses it in one time slice, so a run could miss the bug. Relacy needs no pause: it
// explores the interleavings inside the window.
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <type_traits>

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

template <class Sync>
class StalePublish final : public BasicMiniTuner<Sync> {
  using Base = BasicMiniTuner<Sync>;

 public:
  using Base::Base;

 private:
  static constexpr std::chrono::milliseconds kLateWrite{2};

 protected:
  void publish(const Invocation& inv, typename Base::Entry& entry,
               typename Base::Attempt& attempt, int winner) override {
    const std::string& config = this->env_.space[static_cast<std::size_t>(winner)].str();
    this->report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), &config);
    entry.tuned.set(true);  // BUG: published before entry.config is written
    Base::clear_attempt(entry, attempt);
    attempt.winner.set(winner);
    attempt.done.set(true);
    this->wake_waiters();
  }

  void after_owner_launch(typename Base::Entry& entry, int winner) override {
    if constexpr (std::is_same_v<Sync, StdSync>) std::this_thread::sleep_for(kLateWrite);
    entry.config.set(winner);  // BUG: written late, and without the lock its readers hold
  }
};

}  // namespace safetune::stress::subjects
