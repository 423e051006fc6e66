// MiniTuner: a small, correct, white-box autotuner that most broken subjects derive from, each
// overriding exactly the one step where its bug lives (one subject, one file, one override or
// two). It is deliberately simpler than the reference (impl/autotuner.h): one mutex guards every
// key, tuned calls take it too, and waiters share one condition variable.
//
// Contract (the same as the reference's, see docs/rules.md), per key:
//   - tuned: launch the published config;
//   - cold: the caller becomes the owner, benches every config in order (pre-bench hook, then the
//     benchmark under the environment's re-entrant bench lock), publishes the argmin, wakes the
//     waiters and launches; if every config failed, the owner and its waiters get an error and
//     the key is cold again;
//   - tuning by another thread: wait (block) or launch the fallback (fallback);
//   - tuning by this thread (re-entry): an error or the fallback, never a wait.
// White-box events go to the environment's observer at the points that order them correctly:
// tune_begin/tune_end, wait_begin/wait_end and invalidate under the mutex, bench after each
// benchmark, launch after the kernel's launch.
//
// Invariants (all fields guarded by mutex_): entry.attempt is set exactly while an attempt is in
// flight; entry.tuned implies entry.config is the published winner (a subject that breaks this
// is stale-publish); an Attempt's done is set once, with its outcome, and then waiters wake.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "stress/subject.h"

namespace safetune::stress::subjects {

class MiniTuner : public Subject {
 public:
  explicit MiniTuner(const SubjectEnvironment& environment) : env_(environment) {}

  Config call(const Invocation& inv) override;
  void invalidate(std::string_view key) override;

 protected:
  using Lock = std::unique_lock<std::mutex>;

  struct Attempt {
    std::thread::id owner = std::this_thread::get_id();
    bool done = false;
    int winner = -1;    // -1: failed
    std::string error;  // why it failed
  };
  using AttemptPtr = std::shared_ptr<Attempt>;

  struct Entry {
    bool tuned = false;
    int config = 0;  // the published winner's index while tuned (0 before any)
    AttemptPtr attempt;
  };

  // ---- The steps a broken subject may override. `lock` holds mutex_ when a step is called;
  // ---- the step may release it (it does, before any launch, benchmark or throw).

  // The calling thread owns this key's attempt in flight.
  virtual Config on_reentry(const Invocation& inv, Lock& lock, Entry& entry);
  // Another thread's attempt is in flight and the wait policy is fallback.
  virtual Config on_busy_fallback(const Invocation& inv, Lock& lock, Entry& entry);
  // Blocks until `attempt` is done, then launches what it published or rethrows its failure.
  virtual Config wait_for(const Invocation& inv, Lock& lock, Entry& entry, AttemptPtr attempt);
  // A waiter woke to find its attempt failed.
  virtual Config on_waited_failure(const Invocation& inv, Lock& lock, Entry& entry,
                                   const Attempt& attempt);
  // Runs the hook and the benchmark of one config, with no mutex_ held. Throws on failure.
  virtual double measure(const Invocation& inv, const Config& config);
  // The index of the winner among `times` (nullopt: that config failed); -1 when all failed.
  virtual int pick_winner(const std::vector<std::optional<double>>& times) const;
  // Under mutex_: publishes `winner` for the key and completes the attempt.
  virtual void publish(const Invocation& inv, Entry& entry, Attempt& attempt, int winner);
  // Under mutex_: completes a failed attempt; the key goes back to cold.
  virtual void fail(const Invocation& inv, Entry& entry, Attempt& attempt);
  // Under mutex_: wakes the threads waiting on any attempt.
  virtual void wake_waiters() { finished_.notify_all(); }
  // Called by the owner after its own launch, with no mutex_ held.
  virtual void after_owner_launch(Entry& /*entry*/, int /*winner*/) {}

  // ---- Helpers for the steps. ----
  Config tune(const Invocation& inv, Lock& lock, Entry& entry);  // the owner's whole attempt
  Config launch(const Invocation& inv, int index);               // no mutex_ held
  void report(model::EventKind kind, std::string_view key, int stream,
              const std::string* config = nullptr, const std::string* error = nullptr,
              std::optional<double> time_ns = std::nullopt) const noexcept;
  int fallback_index() const;

  const SubjectEnvironment env_;
  std::mutex mutex_;
  std::condition_variable finished_;  // notified when any attempt completes

 private:
  Config route(const Invocation& inv, Lock& lock, Entry& entry);
  std::optional<double> bench_one(const Invocation& inv, const Config& config, std::string& failures);

  std::map<std::string, Entry, std::less<>> entries_;  // nodes never move: references stay valid
};

}  // namespace safetune::stress::subjects
