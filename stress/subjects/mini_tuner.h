// MiniTuner: a small, correct, white-box autotuner that most broken subjects derive from, each
// overriding exactly the one step where its bug lives (one subject, one file, one override or
// two). It is deliberately simpler than the reference (impl/autotuner.h): one mutex guards every
// key, tuned calls take it too, and waiters share one condition variable.
//
// Contract (the same as the reference's, see docs/rules.md), per key:
//   - tuned: launch the published config;
//   - cold: the caller becomes the owner, benches every config in order (pre-bench hook, then the
//     benchmark under the re-entrant bench lock), publishes the argmin, wakes the waiters and
//     launches; if every config failed, the owner and its waiters get an error and the key is
//     cold again;
//   - tuning by another thread: wait (block) or launch the fallback (fallback);
//   - tuning by this thread (re-entry): an error or the fallback, never a wait;
//   - tuning by a thread that waits, directly or through others, on an attempt of this thread:
//     the same answer as re-entry, never a wait that would close a cycle (impl/wait_graph.h).
// White-box events go to the environment's observer at the points that order them correctly:
// tune_begin/tune_end, wait_begin/wait_end and invalidate under the mutex, bench after each
// benchmark, launch after the kernel's launch.
//
// Invariants (all shared state guarded by mutex_): entry.attempt is set exactly while an attempt
// is in flight; entry.tuned implies entry.config is the published winner (a subject that breaks
// this is stale-publish); an Attempt's done is set once, with its outcome, and then waiters wake.
//
// Like the reference, BasicMiniTuner<Sync> and the subjects built on it are written against the
// sync policy (impl/sync.h): every lock, condition variable and shared field goes through Sync.
// `safetune stress` runs them with StdSync (MiniTuner, compiled once in mini_tuner.cpp); the
// formal tests run the same code with RelacySync (tests/formal/subject_formal_test.cpp), so that
// Relacy sees each subject's races, deadlocks and lost wake-ups.
#pragma once

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "impl/bench_lock.h"
#include "impl/sync.h"
#include "impl/wait_graph.h"
#include "stress/subjects/subject.h"

namespace safetune::stress::subjects {

template <class Sync>
class BasicMiniTuner : public Subject {
 public:
  // `bench_lock`: the device's re-entrant bench lock, or null. SubjectEnvironment::bench_lock is
  // the real-thread one, so another policy passes its own.
  BasicMiniTuner(const SubjectEnvironment& environment, BasicBenchLock<Sync>* bench_lock)
      : env_(environment), bench_lock_(bench_lock) {}
  // On real threads: the environment's bench lock.
  explicit BasicMiniTuner(const SubjectEnvironment& environment)
    requires std::is_same_v<Sync, StdSync>
      : BasicMiniTuner(environment, environment.bench_lock) {}

  Config call(const Invocation& inv) override;
  void invalidate(std::string_view key) override;

 protected:
  using Lock = typename Sync::Lock;
  template <class T>
  using Var = typename Sync::template Var<T>;

  struct Attempt {
    const typename Sync::ThreadId owner = Sync::thread_id();  // constructed by its owner
    Var<bool> done{false};
    Var<int> winner{-1};  // -1: failed
    Var<std::string> error;  // why it failed
  };
  using AttemptPtr = std::shared_ptr<Attempt>;

  struct Entry {
    Var<bool> tuned{false};
    Var<int> config{0};  // the published winner's index while tuned (0 before any; fallback-leak
                         // stores kFallbackIndex)
    Var<AttemptPtr> attempt;
  };

  // ---- The steps a broken subject may override. `lock` holds mutex_ when a step is called;
  // ---- the step may release it (it does, before any launch, benchmark or throw). clang's
  // ---- analysis cannot follow `lock` into a step (SAFETUNE_NO_THREAD_SAFETY_ANALYSIS).

  // The calling thread owns this key's attempt in flight.
  virtual Config on_reentry(const Invocation& inv, Lock& lock, Entry& entry)
      SAFETUNE_NO_THREAD_SAFETY_ANALYSIS;
  // Another thread's attempt is in flight and the wait policy is fallback.
  virtual Config on_busy_fallback(const Invocation& inv, Lock& lock, Entry& entry)
      SAFETUNE_NO_THREAD_SAFETY_ANALYSIS;
  // Blocks until `attempt` is done, then launches what it published or rethrows its failure.
  virtual Config wait_for(const Invocation& inv, Lock& lock, Entry& entry, AttemptPtr attempt)
      SAFETUNE_NO_THREAD_SAFETY_ANALYSIS;
  // A waiter woke to find its attempt failed.
  virtual Config on_waited_failure(const Invocation& inv, Lock& lock, Entry& entry,
                                   const Attempt& attempt) SAFETUNE_NO_THREAD_SAFETY_ANALYSIS;
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
  // The owner's whole attempt; `lock` as for the steps.
  Config tune(const Invocation& inv, Lock& lock, Entry& entry) SAFETUNE_NO_THREAD_SAFETY_ANALYSIS;
  // The config at `index` in the space, or the fallback (kFallbackIndex); no mutex_ held.
  Config launch(const Invocation& inv, int index);
  // Under mutex_: the key has no attempt in flight any more, unless a newer one replaced it.
  static void clear_attempt(Entry& entry, const Attempt& attempt);
  void report(model::EventKind kind, std::string_view key, int stream,
              const std::string* config = nullptr, const std::string* error = nullptr,
              std::optional<double> time_ns = std::nullopt) const noexcept;
  // The index that stands for the fallback config, which may lie outside the space.
  static constexpr int kFallbackIndex = -2;
  // What re-entry and a cycle-closing call get: the fallback, or an error saying `why`.
  Config reentry_answer(const Invocation& inv, const std::string& why);

  const SubjectEnvironment env_;
  BasicBenchLock<Sync>* const bench_lock_;
  typename Sync::Mutex mutex_;
  typename Sync::CondVar finished_;  // notified when any attempt completes

 private:
  std::optional<double> bench_one(const Invocation& inv, const Config& config, std::string& failures);
  // Enters the wait in wait_graph_, or returns the cycle it would close. Under mutex_, which
  // every walk of the graph holds too, so wait_for's wait_begin report needs no more ordering.
  std::optional<std::string> closes_cycle(const Invocation& inv, const AttemptPtr& attempt);

  // This subject's waits; no hook of the harness calls another subject.
  BasicWaitGraph<Sync> wait_graph_;

  // Nodes never move, so references to entries stay valid after mutex_ is released.
  Var<std::map<std::string, Entry, std::less<>>> entries_ SAFETUNE_GUARDED_BY(mutex_);
};

// The real-thread binding, for `safetune stress` and the subjects that only run there.
using MiniTuner = BasicMiniTuner<StdSync>;

// =============================================================================================
// Implementation details follow.
// =============================================================================================

template <class Sync>
Config BasicMiniTuner<Sync>::call(const Invocation& inv) {
  // Declared before the lock: a waiter gives up its bench-lock holds while it waits and takes
  // them back after mutex_ is released (impl/bench_lock.h explains the deadlock this avoids).
  BasicBenchLockYield<Sync> yield(bench_lock_);
  Lock lock(mutex_);
  Entry& entry = entries_.mut().try_emplace(std::string(inv.key)).first->second;
  if (entry.tuned.get()) {
    const int config = entry.config.get();
    lock.unlock();
    return launch(inv, config);
  }
  AttemptPtr attempt = entry.attempt.get();
  if (!attempt) return tune(inv, lock, entry);
  if (attempt->owner == Sync::thread_id()) return on_reentry(inv, lock, entry);
  if (env_.wait == model::WaitPolicy::Fallback) return on_busy_fallback(inv, lock, entry);
  if (auto cycle = closes_cycle(inv, attempt)) {
    lock.unlock();
    return reentry_answer(inv, "key '" + std::string(inv.key) + "': waiting would close a cycle of waits (" + *cycle + ")");
  }
  yield.release();
  return wait_for(inv, lock, entry, std::move(attempt));
}

template <class Sync>
void BasicMiniTuner<Sync>::invalidate(std::string_view key) {
  Lock lock(mutex_);
  Entry& entry = entries_.mut().try_emplace(std::string(key)).first->second;
  if (!entry.attempt.get()) entry.tuned.set(false);  // on a key in tuning it has no effect
  report(model::EventKind::Invalidate, key, -1);
}

template <class Sync>
Config BasicMiniTuner<Sync>::on_reentry(const Invocation& inv, Lock& lock, Entry&) {
  lock.unlock();
  return reentry_answer(inv, "key '" + std::string(inv.key) + "': re-entrant call from its owner");
}

template <class Sync>
Config BasicMiniTuner<Sync>::reentry_answer(const Invocation& inv, const std::string& why) {
  if (env_.reentry == model::ReentryPolicy::Fallback) return launch(inv, kFallbackIndex);
  throw std::logic_error(why);
}

template <class Sync>
std::optional<std::string> BasicMiniTuner<Sync>::closes_cycle(const Invocation& inv, const AttemptPtr& attempt) {
  const typename BasicWaitGraph<Sync>::Edge edge{attempt->owner, attempt.get(), env_.kernel.name(), std::string(inv.key)};
  auto cycle = wait_graph_.wait_unless_cycle(Sync::thread_id(), edge, [] { return true; });
  if (!cycle) return std::nullopt;
  return describe_cycle<Sync>(Sync::thread_id(), *cycle);
}

template <class Sync>
Config BasicMiniTuner<Sync>::on_busy_fallback(const Invocation& inv, Lock& lock, Entry&) {
  lock.unlock();
  return launch(inv, kFallbackIndex);
}

template <class Sync>
Config BasicMiniTuner<Sync>::wait_for(const Invocation& inv, Lock& lock, Entry& entry,
                                      AttemptPtr attempt) {
  report(model::EventKind::WaitBegin, inv.key, inv.stream.id());
  // A loop, not one wait: wake-ups may be spurious, and the shared condvar serves every key.
  while (!attempt->done.get()) finished_.wait(lock);
  report(model::EventKind::WaitEnd, inv.key, inv.stream.id());
  if (attempt->winner.get() < 0) return on_waited_failure(inv, lock, entry, *attempt);
  // Read the key's published fields, as a cache would; a later attempt may have replaced them.
  const int config = entry.tuned.get() ? entry.config.get() : attempt->winner.get();
  lock.unlock();
  return launch(inv, config);
}

template <class Sync>
Config BasicMiniTuner<Sync>::on_waited_failure(const Invocation&, Lock& lock, Entry&,
                                               const Attempt& attempt) {
  const std::string error = attempt.error.get();
  lock.unlock();
  throw std::runtime_error(error);
}

template <class Sync>
Config BasicMiniTuner<Sync>::tune(const Invocation& inv, Lock& lock, Entry& entry) {
  auto attempt = std::make_shared<Attempt>();
  entry.attempt.set(attempt);
  report(model::EventKind::TuneBegin, inv.key, inv.stream.id());
  lock.unlock();
  std::vector<std::optional<double>> times;
  std::string failures;
  for (const Config& config : env_.space.configs()) times.push_back(bench_one(inv, config, failures));
  const int winner = pick_winner(times);
  lock.lock();
  if (winner < 0) {
    attempt->error.set("key '" + std::string(inv.key) + "': every config failed: " + failures);
    fail(inv, entry, *attempt);
    wait_graph_.attempt_finished(attempt.get());  // under mutex_: before any waiter runs
    const std::string error = attempt->error.get();
    lock.unlock();
    throw std::runtime_error(error);
  }
  publish(inv, entry, *attempt, winner);
  wait_graph_.attempt_finished(attempt.get());
  lock.unlock();
  Config launched = launch(inv, winner);
  after_owner_launch(entry, winner);
  return launched;
}

template <class Sync>
std::optional<double> BasicMiniTuner<Sync>::bench_one(const Invocation& inv, const Config& config,
                                                      std::string& failures) {
  // No sync operation in the handler: under Relacy every thread is a fiber of one OS thread, and
  // a fiber switch inside a catch block would mix the fibers' exception state.
  try {
    const double time = measure(inv, config);
    report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), nullptr, time);
    return time;
  } catch (const std::exception& e) {
    const std::string error = e.what();
    report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), &error);
    failures += (failures.empty() ? "" : "; ") + config.str() + ": " + error;
    return std::nullopt;
  }
}

template <class Sync>
double BasicMiniTuner<Sync>::measure(const Invocation& inv, const Config& config) {
  if (env_.pre_bench_hook) env_.pre_bench_hook(inv, config);
  BasicBenchLockHold<Sync> hold(bench_lock_);
  const double time = env_.kernel.benchmark(inv, config);
  if (!std::isfinite(time) || time < 0) throw LaunchError("invalid benchmark time");
  return time;
}

template <class Sync>
int BasicMiniTuner<Sync>::pick_winner(const std::vector<std::optional<double>>& times) const {
  int best = -1;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i] && (best < 0 || *times[i] < *times[static_cast<std::size_t>(best)])) {
      best = static_cast<int>(i);  // strict: a tie keeps the config benched first
    }
  }
  return best;
}

template <class Sync>
void BasicMiniTuner<Sync>::publish(const Invocation& inv, Entry& entry, Attempt& attempt,
                                   int winner) {
  const std::string& config = env_.space[static_cast<std::size_t>(winner)].str();
  report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), &config);
  entry.config.set(winner);
  entry.tuned.set(true);
  clear_attempt(entry, attempt);
  attempt.winner.set(winner);
  attempt.done.set(true);
  wake_waiters();
}

template <class Sync>
void BasicMiniTuner<Sync>::fail(const Invocation& inv, Entry& entry, Attempt& attempt) {
  const std::string error = attempt.error.get();
  report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), nullptr, &error);
  clear_attempt(entry, attempt);
  attempt.done.set(true);
  wake_waiters();
}

template <class Sync>
void BasicMiniTuner<Sync>::clear_attempt(Entry& entry, const Attempt& attempt) {
  if (entry.attempt.get().get() == &attempt) entry.attempt.set(nullptr);
}

template <class Sync>
Config BasicMiniTuner<Sync>::launch(const Invocation& inv, int index) {
  const Config& config = index == kFallbackIndex ? *env_.fallback : env_.space[static_cast<std::size_t>(index)];
  try {
    env_.kernel.launch(inv, config);
  } catch (...) {
    report_launch_failed(env_.observer, env_.kernel.name(), inv.key, config.str(), inv.stream.id());
    throw;
  }
  report(model::EventKind::Launch, inv.key, inv.stream.id(), &config.str());
  return config;
}

template <class Sync>
void BasicMiniTuner<Sync>::report(model::EventKind kind, std::string_view key, int stream,
                                  const std::string* config, const std::string* error,
                                  std::optional<double> time_ns) const noexcept {
  if (env_.observer == nullptr) return;
  env_.observer->record(ObservedEvent{.kind = kind, .kernel = env_.kernel.name(), .key = key, .config = config,
                                      .error = error, .time_ns = time_ns, .stream = stream});
}

// The real-thread binding is compiled once, in mini_tuner.cpp.
extern template class BasicMiniTuner<StdSync>;

}  // namespace safetune::stress::subjects
