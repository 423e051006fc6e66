// The reference autotuner: concurrent calls of one autotuned kernel, with each key tuned once.
//
// BasicAutotuner<Sync> is written against a sync policy (impl/sync.h) so that the same code runs
// on real threads (Autotuner = BasicAutotuner<StdSync>) and under an exhaustive checker.
//
// ---------------------------------------------------------------------------------------------
// Contract
// ---------------------------------------------------------------------------------------------
// call(inv) launches the kernel once on inv.stream and returns the config it launched:
//   - Tuned key: launches the published winner. Takes no lock and writes nothing shared.
//   - Cold key: the caller becomes the owner and runs one attempt: it benchmarks every config
//     once, in list order (pre_bench_hook, then Kernel::benchmark). A LaunchError, any other
//     exception, or a hook exception is a failed bench of that config. The fastest success wins
//     (a tie goes to the config benchmarked first). The owner publishes the winner, wakes the
//     waiters, then launches with it.
//   - Key tuned by another thread: WaitPolicy::Block waits and launches that attempt's winner;
//     WaitPolicy::Fallback launches the fallback config at once.
//   - Key tuned by the calling thread (re-entry from a hook or from inside a benchmark): never
//     waits. ReentryPolicy::Error throws ReentrantTuning; ReentryPolicy::Fallback launches the
//     fallback config.
//   - Key tuned by another thread that waits, directly or through other waiting threads, on an
//     attempt the calling thread owns (A tunes k0 and its hook calls k1, while B tunes k1 and
//     its hook calls k0): waiting would close a cycle (impl/wait_graph.h), so the call never
//     waits. It gets the re-entry policy's answer: TuningCycle, naming the cycle, or the
//     fallback config.
//   - If every config fails, the owner and every thread waiting on that attempt get TuningFailed
//     and the key is Cold again: a later call starts a new attempt.
//   - If the attempt's own bookkeeping throws (out of memory), the owner gets that exception,
//     the configs not yet benched are reported as failed benches, and the attempt fails as
//     above: its waiters get TuningFailed and the key is Cold again.
// No autotuner lock is held while a benchmark, a launch or a user hook runs, so hooks may call
// any autotuner (nested tuning of another key works, in any order). Different keys never wait
// for each other unless a hook of one calls the other.
// invalidate(key) makes a Tuned key Cold; on a Cold or Tuning key it has no effect.
// The autotuner must outlive every call on it; the returned reference lives as long.
//
// Per-key lifecycle (rows: state; columns: what happens; "-" marks a forbidden cell)
//
//   state \ event | call, owner=me    | call, owner=other | all benches done     | invalidate
//   --------------+-------------------+-------------------+----------------------+-----------
//   Cold          | -                 | -                 | -                    | Cold
//                 | (no owner exists: a call makes the caller owner -> Tuning)     |
//   Tuning        | Tuning: re-entry  | Tuning: wait or   | winner -> Tuned;     | Tuning
//                 | error or fallback | fallback; a wait  | all failed -> Cold   | (no effect)
//                 |                   | closing a cycle:  |                      |
//                 |                   | re-entry's answer |                      |
//   Tuned         | -                 | -                 | -                    | Cold
//                 | (any call launches the winner, lock-free; state stays Tuned)  |
//
// Observer events (impl/observer.h) are reported where they order correctly: tune_begin under
// the key lock as the caller becomes owner; bench after each benchmark; tune_end under the key
// lock before the winner is stored; wait_begin under the key lock and the wait graph's lock, as the
// wait is entered in the graph; wait_end under the key lock; invalidate under the
// key lock after the winner is withdrawn (of a key never called: under the index's insert lock);
// launch after the kernel's launch returns.
//
// Every launch of a config of the space, or of the fallback, goes through its LaunchChoice
// (impl/launch_choice.h): the PreparedLaunch the kernel made for it when the autotuner was built
// (Kernel::prepare), or Kernel::launch when the kernel made none. A tuned key's entry publishes
// its winner's choice, so the tuned path is: one hash, one bucket, one acquire load of the
// entry, one read of the choice, the prepared launch's two virtual calls (its enqueue, then its
// finish: impl/kernel.h says why two). Through a key's handle (handle(key),
// impl/autotuner_key_handle.h), the same without the hash and the bucket.
#pragma once

#include <cmath>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "impl/autotuner_key_entry.h"
#include "impl/autotuner_key_handle.h"
#include "impl/autotuner_key_index.h"
#include "impl/bench_lock.h"
#include "impl/config.h"
#include "impl/handled_error.h"
#include "impl/kernel.h"
#include "impl/launch_choice.h"
#include "impl/observer.h"
#include "impl/store/store_link.h"
#include "impl/sync.h"
#include "impl/wait_graph.h"
#include "model/event.h"
#include "model/policy.h"

namespace safetune {

using model::ReentryPolicy;
using model::WaitPolicy;

// A same-key re-entry under ReentryPolicy::Error: the calling thread owns this key's attempt.
struct ReentrantTuning : std::logic_error {
  using std::logic_error::logic_error;
};
// Waiting would close a cycle of waits (the calling thread owns an attempt that the owner of
// this key's attempt waits on, directly or through others) under ReentryPolicy::Error. The
// message names each thread and key of the cycle.
struct TuningCycle : std::logic_error {
  using std::logic_error::logic_error;
};
// Every config of the attempt failed; the owner and every waiter of that attempt get this.
struct TuningFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The options of BasicAutotuner<Sync>; TunerOptions is the real-thread binding.
template <class Sync>
struct BasicTunerOptions {
  WaitPolicy wait = WaitPolicy::Block;
  ReentryPolicy reentry = ReentryPolicy::Error;
  std::optional<Config> fallback;   // required when either policy is Fallback (ConfigError if not)
  // Shared by every autotuner of one device; null: none.
  BasicBenchLock<Sync>* bench_lock = nullptr;
  // Runs before each config's benchmark, with no lock held. An exception counts as a failed
  // bench of that config. It may call any autotuner, this one included (nesting, re-entry).
  std::function<void(const Invocation&, const Config&)> pre_bench_hook;
  Observer* observer = nullptr;  // null: no events reported
  // Shared by every autotuner whose hooks may call another's (impl/wait_graph.h). Null: the
  // sync policy's default_wait_graph(), which for StdSync is the process's graph. A policy with
  // no default (Relacy) detects no cycle unless given one: a cycle of nested waits deadlocks.
  BasicWaitGraph<Sync>* wait_graph = nullptr;
  // The results store shared with other processes (impl/store/); its store null: in memory only.
  StoreOptions results{};
};
using TunerOptions = BasicTunerOptions<StdSync>;

template <class Sync>
class BasicAutotuner {
 public:
  // Throws ConfigError when a policy is Fallback and no fallback config is given.
  using Options = BasicTunerOptions<Sync>;

  BasicAutotuner(Kernel& kernel, ConfigSpace space, Options options);
  BasicAutotuner(const BasicAutotuner&) = delete;
  BasicAutotuner& operator=(const BasicAutotuner&) = delete;

  // Launches on inv.stream and returns the config it launched (see the contract above).
  // Throws ReentrantTuning, TuningFailed, or LaunchError (the final launch failed).
  // Always inlined: the tuned path's few instructions then run in the caller's own code lines,
  // which on a GPU measurably cuts what a tuned launch adds to a bare one (docs/gpu.md); every
  // other path is a call out of line.
  [[gnu::always_inline]] inline const Config& call(const Invocation& inv);
  // The key's handle (impl/autotuner_key_handle.h): calls through it skip the key's lookup, and
  // otherwise do what call() does. Makes the key's entry, Cold, when the key is new; tunes nothing.
  using KeyHandle = BasicKeyHandle<Sync>;
  KeyHandle handle(std::string_view key) { return KeyHandle(*this, index_.find_or_insert(key)); }
  void invalidate(std::string_view key);
  // The published winner of `key`, if it is Tuned. Lock-free.
  std::optional<Config> tuned_config(std::string_view key) const;

  const ConfigSpace& space() const { return space_; }

 private:
  using Entry = KeyEntry<Sync>;
  using AttemptPtr = std::shared_ptr<Attempt<Sync>>;
  using Yield = BasicBenchLockYield<Sync>;

  // What a call on a not-yet-tuned key does, decided under the key lock.
  struct Route {
    enum Kind { Launch, Own, Fail, Reentrant, Cycle, LookUp, Again } kind = Launch;
    const LaunchChoice* launch = nullptr;  // Launch
    AttemptPtr attempt{};                  // Own
    std::string error{};                   // Fail, Reentrant, Cycle
  };

  friend class BasicKeyHandle<Sync>;
  // call() once the key's entry is found: the tuned path, shared by call() and a key's handle.
  [[gnu::always_inline]] inline const Config& call_entry(Entry& entry, const Invocation& inv);
  // Out of line, like report(): a tuned call's code is then a few contiguous lines (see call()).
  [[gnu::noinline]] const Config& call_untuned(Entry& entry, const Invocation& inv);
  // may_look_up: with a store, a call that would wait for (or fall back beside) this process's
  // owner looks the entry up first (Route::LookUp), outside the key lock.
  Route route(Entry& entry, const Invocation& inv, typename Sync::Lock& lock, Yield& yield,
              bool may_look_up) SAFETUNE_REQUIRES(entry.mutex);
  Route begin_attempt(Entry& entry, const Invocation& inv) SAFETUNE_REQUIRES(entry.mutex);
  Route reenter(const Entry& entry);
  Route close_cycle(const Entry& entry, const std::string& cycle);
  Route wait_for(Entry& entry, const Invocation& inv, const AttemptPtr& attempt,
                 typename Sync::Lock& lock, Yield& yield) SAFETUNE_REQUIRES(entry.mutex);

  // What the owner of an attempt publishes to the results store, with its claim on the entry.
  struct Publication {
    const StoreClaim* claim = nullptr;
    EntryId id{};
    std::vector<BenchTime> times{};
  };

  // The in-process owner of a cold key, with a results store: a hit, a wait for another process's
  // attempt, or an attempt of its own under the entry's claim.
  // Null when its attempt lost its lease before it published: the call then goes round again.
  const Config* call_through_store(Entry& entry, const Invocation& inv, const AttemptPtr& attempt, Yield& yield);
  // Null, with `cycle` set, when waiting would close a cycle of waits across processes.
  // Its holds on the bench lock are given up (`yield`) while it waits, as wait_for's are.
  std::unique_ptr<StoreClaim> wait_for_claim(Entry& entry, const Invocation& inv, const AttemptPtr& attempt,
                                             const EntryId& id, std::optional<std::string>& cycle, Yield& yield);
  std::unique_ptr<StoreClaim> wait_out_claim(Entry& entry, const Invocation& inv, const EntryId& id);
  // Under the entry's claim: the entry another process published, or the one a rejected entry
  // leaves (quarantined): nullopt.
  std::optional<std::size_t> load_claimed(Entry& entry, const Invocation& inv, const EntryId& id,
                                          const StoreClaim& claim);
  // A call beside this process's owner: the store's valid winner; or none.
  std::optional<std::size_t> look_up_beside_owner(Entry& entry, const Invocation& inv);
  // A lookup, reported as this call's load when it found an entry (valid or rejected).
  StoreLookup look_up(const Entry& entry, const Invocation& inv, const EntryId& id);
  // The attempt ends with the store's winner (its load reported), published in this process as
  // its tune_end would.
  const Config& settle_loaded(Entry& entry, const Invocation& inv, const AttemptPtr& attempt, std::size_t winner);
  // The attempt ends with no result and the key is Cold again: another process owns the entry
  // (policy Fallback), or this owner's store steps failed unexpectedly. `why` is the attempt's
  // error, what a waiter of this process would be told.
  void give_back(Entry& entry, const AttemptPtr& attempt, std::string why) SAFETUNE_EXCLUDES(entry.mutex);
  // Inside a handler: what a waiter is told of the owner's store steps failing (empty when even
  // that text cannot be built).
  std::string store_step_failure(std::string_view key) const noexcept;
  // StoreFailurePolicy::Fail: the key is given back (its waiters here see the failure), and the
  // call ends with StoreFailed.
  [[noreturn]] void fail_on_store(Entry& entry, const AttemptPtr& attempt, const StoreError& error)
      SAFETUNE_EXCLUDES(entry.mutex);

  // The winner's index; kLeaseLost when the store fenced the publication off (lose_lease).
  int run_attempt(Entry& entry, const Invocation& inv, const AttemptPtr& attempt,
                  Publication* publication = nullptr);
  static constexpr int kLeaseLost = -2;
  std::optional<double> bench_one(const Invocation& inv, const Config& config,
                                  std::string& failures);
  double measure(const Invocation& inv, const Config& config);
  // Publishes the winner, or fails the attempt with `error` (moved in: no allocation). False when
  // the attempt lost its lease (lose_lease): the store fenced the publication off, or said that a
  // failed attempt's claim was no longer held.
  bool finish_attempt(Entry& entry, const Invocation& inv, const AttemptPtr& attempt, int winner,
                      std::string error, const Publication* publication = nullptr) SAFETUNE_EXCLUDES(entry.mutex);
  // False when the store fenced the publication off (LeaseLost); a failing store is warned of.
  bool publish_to_store(const Publication& publication, int winner) const noexcept;
  // Under the key lock: the attempt ends as lease_lost, with no result, and the key is Cold.
  void lose_lease(Entry& entry, const Invocation& inv, const AttemptPtr& attempt) SAFETUNE_REQUIRES(entry.mutex);
  // lose_lease's end of the attempt, once its lease_lost is reported.
  void end_lost_attempt(Entry& entry, const AttemptPtr& attempt) SAFETUNE_REQUIRES(entry.mutex);
  // Before each bench: whether the store already knows that the attempt's claim is lost; then
  // the attempt ends as lease_lost (give_up_lost_lease), with no more benches.
  bool claim_lost(const Publication* publication) const;
  // After every bench failed: whether the store says the claim is no longer held (a round trip);
  // then the attempt ends as lease_lost too, not as a failure.
  bool failed_without_its_claim(const Publication* publication) const noexcept;
  // The end of an attempt whose every bench failed, reported as the store then says its claim
  // stands: its tune_end with `error` (true), or lease_lost (false).
  bool report_failure_unless_lease_lost(std::string_view key, int stream, const std::string& error,
                                        const Publication* publication) const noexcept;
  int give_up_lost_lease(Entry& entry, const Invocation& inv, const AttemptPtr& attempt) SAFETUNE_EXCLUDES(entry.mutex);
  void withdraw_from_store(std::string_view key) const noexcept;
  // invalidate(), under the entry's exclusive view when there is a store.
  void invalidate_here(std::string_view key);
  std::unique_ptr<StoreView> view_of(std::string_view key, ResultsStore::ViewMode mode) const noexcept;
  void abort_attempt(Entry& entry, const Invocation& inv, const AttemptPtr& attempt,
                     std::size_t first_unreported, const char* what) noexcept SAFETUNE_EXCLUDES(entry.mutex);

  // Always inlined, as call_entry is: returning through one more frame after the driver's enqueue
  // cost a tuned launch 40-70 TSC ticks, as much as its whole lookup (docs/gpu.md, the profile).
  [[gnu::always_inline]] inline const Config& launch(const Invocation& inv, const LaunchChoice& what);
  // Apart from report(), so that launch() stays small: stream.id() is a virtual call, and the
  // hot path pays neither it nor the event's construction unless an observer is set.
  [[gnu::noinline]] void report_launch(const Invocation& inv, const Config& config) const;
  std::string where(std::string_view key) const;
  [[gnu::noinline]] void report(model::EventKind kind, std::string_view key, int stream,
              const std::string* config = nullptr, const std::string* error = nullptr,
              std::optional<double> time_ns = std::nullopt) const noexcept;
  // Under the key lock: the attempt's tune_begin, noted on it for its waiters (wait_for).
  void report_tune_begin(Entry& entry, Attempt<Sync>& attempt, const Invocation& inv) SAFETUNE_REQUIRES(entry.mutex);
  // With a store that keeps the waits of all its processes (SharedWaits): `report` runs as the
  // change `change` makes there. Without one, or when it fails (warned of), `report` runs alone.
  template <class Change>
  void report_through_waits(const Change& change, const SharedWaits::Report& report) const noexcept;
  // The wait_begin of the calling thread's wait on `key`, entered in the wait graphs: this
  // process's for a wait on an attempt of this process, and the store's (every process's) when it
  // keeps one. The cycle the wait would close instead, described.
  std::optional<std::string> enter_wait(std::string_view key, int stream, const AttemptPtr& in_process);
  void report_wait_end(std::string_view key, int stream) const noexcept;
  void report_tune_end(std::string_view key, int stream, const std::string* config, const std::string* error) const noexcept;

  // Each declared after what it refers to, so it is built after it and destroyed before it.
  Kernel& kernel_;
  const ConfigSpace space_;
  const Options options_;  // checked before anything is prepared
  const std::vector<std::unique_ptr<PreparedLaunch>> prepared_;  // space_'s configs, then the fallback
  const std::vector<LaunchChoice> choices_;  // one per config of space_, in order
  const LaunchChoice fallback_;              // config null when options_ has no fallback
  const StoreLink store_;                    // not enabled: in memory only
  // This process's graph; null when cycles are not detected. Kept beside a store's graph of its
  // processes' waits (SharedWaits) as well: that one drops a process paused past its lease (as if
  // it died), and a cycle within the process, when it goes on, would go unseen there.
  BasicWaitGraph<Sync>* const wait_graph_;
  KeyIndex<Sync, Entry> index_;
};

using Autotuner = BasicAutotuner<StdSync>;
using KeyHandle = BasicKeyHandle<StdSync>;

// =============================================================================================
// Implementation details follow.
// =============================================================================================

namespace autotuner_detail {

template <class Options>
Options checked(Options options, const Kernel& kernel) {
  if (model::needs_fallback(options.wait, options.reentry) && !options.fallback) {
    throw ConfigError("autotuner for kernel '" + kernel.name() +
                      "': a Fallback wait or reentry policy needs TunerOptions::fallback");
  }
  return options;
}

// Kernel::prepare, with a LaunchError (a config the kernel cannot run) read as "not prepared":
// Kernel::launch then reports that config's failure when, and if, it is launched.
inline std::unique_ptr<PreparedLaunch> prepare_or_null(Kernel& kernel, const Config& config) {
  try {
    return kernel.prepare(config);
  } catch (const LaunchError&) {
    return nullptr;
  }
}

// One per config of `space`, in order, then one for `fallback` if there is one.
inline std::vector<std::unique_ptr<PreparedLaunch>> prepare_all(
    Kernel& kernel, const ConfigSpace& space, const std::optional<Config>& fallback) {
  std::vector<std::unique_ptr<PreparedLaunch>> prepared;
  prepared.reserve(space.size() + 1);
  for (const Config& config : space.configs()) prepared.push_back(prepare_or_null(kernel, config));
  if (fallback) prepared.push_back(prepare_or_null(kernel, *fallback));
  return prepared;
}

inline std::vector<LaunchChoice> choices_of(
    const ConfigSpace& space, const std::vector<std::unique_ptr<PreparedLaunch>>& prepared) {
  std::vector<LaunchChoice> choices;
  choices.reserve(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) choices.push_back({.config = &space[i], .prepared = prepared[i].get()});
  return choices;
}

// The fallback's choice (prepare_all put its prepared launch last), or one with no config.
inline LaunchChoice fallback_choice_of(const std::optional<Config>& fallback,
                                       const std::vector<std::unique_ptr<PreparedLaunch>>& prepared) {
  if (!fallback) return {};
  return {.config = &*fallback, .prepared = prepared.back().get()};
}

}  // namespace autotuner_detail

template <class Sync>
BasicAutotuner<Sync>::BasicAutotuner(Kernel& kernel, ConfigSpace space, Options options)
    : kernel_(kernel),
      space_(std::move(space)),
      options_(autotuner_detail::checked(std::move(options), kernel_)),
      prepared_(autotuner_detail::prepare_all(kernel_, space_, options_.fallback)),
      choices_(autotuner_detail::choices_of(space_, prepared_)),
      fallback_(autotuner_detail::fallback_choice_of(options_.fallback, prepared_)),
      store_(options_.results, kernel_.name(), space_),
      wait_graph_(options_.wait_graph != nullptr ? options_.wait_graph : default_wait_graph<Sync>()) {}

// The tuned path. On a GPU it runs between two launches of the driver, whose own code evicts
// this code and its data from the core's caches and predictors, so its cost is mostly the
// number of lines it touches (docs/gpu.md): everything else is kept out of line.
template <class Sync>
const Config& BasicAutotuner<Sync>::call(const Invocation& inv) {
  return call_entry(index_.find_or_insert(inv.key), inv);
}

template <class Sync>
const Config& BasicAutotuner<Sync>::call_entry(Entry& entry, const Invocation& inv) {
  // acquire: pairs with the release in finish_attempt, which comes after tune_end is reported,
  // so this call's own reports are ordered after the winner's tune_end.
  const LaunchChoice* winner = entry.winner.load(std::memory_order_acquire);
  if (winner != nullptr) [[likely]] return launch(inv, *winner);
  return call_untuned(entry, inv);
}

template <class Sync>
const Config& BasicAutotuner<Sync>::call_untuned(Entry& entry, const Invocation& inv) {
  // Declared before the key lock, so a waiter takes its bench-lock holds back only after the
  // key lock is released (bench_lock.h explains the deadlock this avoids).
  Yield yield(options_.bench_lock);
  for (;;) {  // round again only after this call's own attempt lost its lease
    Route next;
    for (bool may_look_up = store_.enabled();; may_look_up = false) {
      {
        typename Sync::Lock lock(entry.mutex);
        next = route(entry, inv, lock, yield, may_look_up);
      }
      if (next.kind == Route::Again) continue;
      if (next.kind != Route::LookUp) break;
      if (auto winner = look_up_beside_owner(entry, inv)) return launch(inv, choices_[*winner]);
    }
    switch (next.kind) {
      case Route::Launch: return launch(inv, *next.launch);
      case Route::Fail: throw TuningFailed(next.error);
      case Route::Reentrant: throw ReentrantTuning(next.error);
      case Route::Cycle: throw TuningCycle(next.error);
      case Route::Own: break;
      case Route::LookUp:  // neither is left by the loop above
      case Route::Again: break;
    }
    if (!store_.enabled()) {
      const int winner = run_attempt(entry, inv, next.attempt);
      return launch(inv, choices_[static_cast<std::size_t>(winner)]);
    }
    if (const Config* launched = call_through_store(entry, inv, next.attempt, yield)) return *launched;
  }
}

template <class Sync>
typename BasicAutotuner<Sync>::Route BasicAutotuner<Sync>::route(Entry& entry,
                                                                 const Invocation& inv,
                                                                 typename Sync::Lock& lock,
                                                                 Yield& yield, bool may_look_up) {
  switch (entry.state.get()) {
    case KeyState::Cold: return begin_attempt(entry, inv);
    case KeyState::Tuned: {
      // relaxed: the key lock orders this load after the store made under the same lock.
      return {.kind = Route::Launch, .launch = entry.winner.load(std::memory_order_relaxed)};
    }
    case KeyState::Tuning: break;
  }
  AttemptPtr attempt = entry.attempt.get();
  if (attempt->owner == Sync::thread_id()) return reenter(entry);
  // The owner may be looking the entry up, or waiting on another process: a winner another
  // process published before this call began must be found without waiting (R10) or falling back.
  if (may_look_up) return {.kind = Route::LookUp};
  if (options_.wait == WaitPolicy::Fallback) return {.kind = Route::Launch, .launch = &fallback_};
  return wait_for(entry, inv, attempt, lock, yield);
}

template <class Sync>
typename BasicAutotuner<Sync>::Route BasicAutotuner<Sync>::begin_attempt(Entry& entry,
                                                                         const Invocation& inv) {
  const std::uint64_t id = entry.attempts_begun.get() + 1;
  entry.attempts_begun.set(id);
  auto attempt = std::make_shared<Attempt<Sync>>(id, Sync::thread_id());
  entry.attempt.set(attempt);
  entry.state.set(KeyState::Tuning);
  // With a store, the attempt may yet be a load: call_through_store reports it when it tunes.
  if (!store_.enabled()) report_tune_begin(entry, *attempt, inv);
  return {.kind = Route::Own, .attempt = std::move(attempt)};
}

template <class Sync>
typename BasicAutotuner<Sync>::Route BasicAutotuner<Sync>::reenter(const Entry& entry) {
  if (options_.reentry == ReentryPolicy::Fallback) {
    return {.kind = Route::Launch, .launch = &fallback_};
  }
  return {.kind = Route::Reentrant,
          .error = where(entry.key) +
              ": re-entrant call from the thread that is tuning this key (reentry policy "
              "'error'); use ReentryPolicy::Fallback to launch the fallback instead"};
}

template <class Sync>
typename BasicAutotuner<Sync>::Route BasicAutotuner<Sync>::close_cycle(const Entry& entry,
                                                                       const std::string& cycle) {
  if (options_.reentry == ReentryPolicy::Fallback) return {.kind = Route::Launch, .launch = &fallback_};
  return {.kind = Route::Cycle,
          .error = where(entry.key) + ": waiting would close a cycle of waits (" + cycle +
              "); reentry policy 'error'; use ReentryPolicy::Fallback to launch the fallback instead"};
}

template <class Sync>
typename BasicAutotuner<Sync>::Route BasicAutotuner<Sync>::wait_for(Entry& entry,
                                                                    const Invocation& inv,
                                                                    const AttemptPtr& attempt,
                                                                    typename Sync::Lock& lock,
                                                                    Yield& yield) {
  if (auto cycle = enter_wait(entry.key, inv.stream.id(), attempt)) return close_cycle(entry, *cycle);
  attempt->waited_on.set(true);
  const bool waits_on_its_trace = attempt->tune_reported.get();
  const std::uint64_t owner_store_waits = attempt->store_waits.get();
  if (!waits_on_its_trace) attempt->early_waiters.set(attempt->early_waiters.get() + 1);
  yield.release();  // never blocks, so it is safe under the key lock
  // A wait that began before the owner's tune_begin (the owner was still after the store's claim)
  // waits, in the trace, on the attempt then in flight in another process, or on the first to
  // begin after it. Once this process's owner begins its own, or waits anew for the claim (which
  // changed hands), the call waits anew too, on what the owner waits on: so the wait graphs (this
  // process's, the store's, the model's) read the same edge, and a wait that now closes a cycle is
  // refused (R11) instead of waiting for ever.
  const auto owner_moved_on = [&] {
    return !waits_on_its_trace && (attempt->tune_reported.get() || attempt->store_waits.get() != owner_store_waits);
  };
  while (!attempt->done.get() && !owner_moved_on()) entry.attempt_finished.wait(lock);
  report_wait_end(entry.key, inv.stream.id());
  if (!waits_on_its_trace) {  // the owner, past its tune_begin, may be waiting for this (call_through_store)
    attempt->early_waiters.set(attempt->early_waiters.get() - 1);
    entry.attempt_finished.notify_all();
  }
  // After the report: the model's edge lasts until then (a cycle found through it meanwhile was
  // there at the report, model_wait_cycle.cpp, remember_cycles).
  if (wait_graph_ != nullptr) wait_graph_->wait_ended(Sync::thread_id());
  if (!attempt->done.get()) return {.kind = Route::Again};
  const int winner = attempt->winner.get();
  // A wait that began before the attempt's tune_begin (the owner was still after the store's
  // claim) waited, in the trace, on no attempt of this process yet. Another process's success may
  // fall between, and the model then reads the wait as one on that success: raising this failure
  // would be R14. So the call goes round again, and tunes or waits anew.
  // A lease lost is no failure either: the key is Cold, and the call tunes, waits or loads anew.
  if (winner < 0 && (!waits_on_its_trace || attempt->lease_lost.get())) return {.kind = Route::Again};
  if (winner < 0) return {.kind = Route::Fail, .error = attempt->error.get()};
  return {.kind = Route::Launch, .launch = &choices_[static_cast<std::size_t>(winner)]};
}

template <class Sync>
int BasicAutotuner<Sync>::run_attempt(Entry& entry, const Invocation& inv,
                                      const AttemptPtr& attempt, Publication* publication) {
  int best = -1;
  double best_time = 0;
  std::string failures;
  std::string error;
  std::size_t next = 0;  // the first config not yet benched and reported
  bool lease_lost = false;
  try {
    for (; next < space_.size(); ++next) {
      lease_lost = claim_lost(publication);  // its publication would be refused: no more benches
      if (lease_lost) break;
      const std::optional<double> time = bench_one(inv, space_[next], failures);
      if (time && publication != nullptr) publication->times.push_back({.config = space_[next].str(), .time_ns = *time});
      if (time && (best < 0 || *time < best_time)) {  // strict: a tie keeps the earlier config
        best = static_cast<int>(next);
        best_time = *time;
      }
    }
    if (best < 0 && !lease_lost) {
      error = where(entry.key) + ": every config failed in tuning attempt " +
              std::to_string(attempt->id) + ": " + failures;
    }
  } catch (const std::exception& e) {  // what() as a pointer: abort_attempt must not allocate to start
    abort_attempt(entry, inv, attempt, next, e.what());
    throw;
  } catch (...) {
    abort_attempt(entry, inv, attempt, next, "unknown exception");
    throw;
  }
  if (lease_lost) return give_up_lost_lease(entry, inv, attempt);
  if (!finish_attempt(entry, inv, attempt, best, std::move(error), publication)) return kLeaseLost;
  // The owner reads back its own write: the attempt is finished, so a failure to copy the
  // message here (out of memory) leaves no key in Tuning.
  if (best < 0) throw TuningFailed(attempt->error.get());
  return best;
}

// Another process may hold the entry's claim by now (its lease ran out, and the heartbeat found
// it taken or could not renew it): the rest of the benches would be wasted, as the store refuses
// this owner's publication. The attempt ends as lease_lost, as a refused publication ends it.
template <class Sync>
bool BasicAutotuner<Sync>::claim_lost(const Publication* publication) const {
  return publication != nullptr && publication->claim != nullptr && publication->claim->lost();
}

// A failed attempt writes nothing, so no fenced write tells its owner that its lease ran out
// meanwhile (paused past it) and that another process may have begun its own attempt: the store
// is asked. Such an attempt ends as lease_lost, not as a failure: the key is the other owner's,
// and this process's calls on it wait for, or load, its winner.
template <class Sync>
bool BasicAutotuner<Sync>::failed_without_its_claim(const Publication* publication) const noexcept {
  return publication != nullptr && publication->claim != nullptr && !publication->claim->held_now();
}

// The store is asked as the end is reported, under the graph's lock when the store keeps one
// (SharedWaits): a takeover's tune_begin, reported under that lock too, then comes either before
// the question (which finds the claim gone: lease_lost) or after the report. Asked before the
// report, an owner paused between the two (SIGSTOP past its lease) would report a failure after
// another process's tune_begin on the key: an overlap that no lease_lost explains (R2).
template <class Sync>
bool BasicAutotuner<Sync>::report_failure_unless_lease_lost(std::string_view key, int stream, const std::string& error,
                                                            const Publication* publication) const noexcept {
  bool held = true;
  const auto attempt_end = [&] {
    held = !failed_without_its_claim(publication);
    if (held)
      report(model::EventKind::TuneEnd, key, stream, nullptr, &error);
    else
      report(model::EventKind::LeaseLost, key, stream);
  };
  report_through_waits([&](SharedWaits& waits) { waits.attempt_ended(store_.id_of(key), attempt_end); }, attempt_end);
  return held;
}

template <class Sync>
int BasicAutotuner<Sync>::give_up_lost_lease(Entry& entry, const Invocation& inv, const AttemptPtr& attempt) {
  typename Sync::Lock lock(entry.mutex);
  lose_lease(entry, inv, attempt);
  return kLeaseLost;
}

// Ends an attempt that something other than a failed bench interrupted. Only the attempt's own
// bookkeeping can (bench_one turns every exception of a kernel or a hook into a failed bench), so
// in practice this is running out of memory, and it allocates as little as it can:
// - the configs from `first_unreported` on are reported as failed benches with the abort's
//   message, so the trace still shows each config benched once in the attempt (R4);
// - the attempt fails for every waiter and the key goes back to Cold, as after any failure;
// - when even the message cannot be built, it is "out of memory", which fits in std::string's
//   own buffer. Anything else that throws here ends the process (noexcept): a key left in
//   Tuning would hang every later caller of it instead.
template <class Sync>
void BasicAutotuner<Sync>::abort_attempt(Entry& entry, const Invocation& inv,
                                         const AttemptPtr& attempt, std::size_t first_unreported,
                                         const char* what) noexcept {
  std::string error;
  try {
    error = where(entry.key) + ": tuning attempt " + std::to_string(attempt->id) + " aborted: " + what;
  } catch (...) {
    error = "out of memory";
  }
  for (std::size_t i = first_unreported; i < space_.size(); ++i) {
    report(model::EventKind::Bench, entry.key, inv.stream.id(), &space_[i].str(), &error);
  }
  finish_attempt(entry, inv, attempt, -1, std::move(error));
}

// Runs the hook and the benchmark of one config, reports the bench, and returns its time, or
// nothing when it failed (appending the reason to `failures`). The report comes last, and
// report() cannot throw: a config is reported exactly when bench_one returns, which is what
// abort_attempt relies on to report each config once.
template <class Sync>
std::optional<double> BasicAutotuner<Sync>::bench_one(const Invocation& inv, const Config& config,
                                                      std::string& failures) {
  std::string error;
  try {
    const double time = measure(inv, config);
    report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), nullptr, time);
    return time;
  } catch (...) {
    error = handled_error_text();
  }
  failures += (failures.empty() ? "" : "; ") + config.str() + ": " + error;
  report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), &error);
  return std::nullopt;
}

template <class Sync>
double BasicAutotuner<Sync>::measure(const Invocation& inv, const Config& config) {
  if (options_.pre_bench_hook) {
    try {
      options_.pre_bench_hook(inv, config);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("pre_bench_hook threw: ") + e.what());
    }
  }
  double time = 0;
  {
    BasicBenchLockHold<Sync> hold(options_.bench_lock);  // only the measurement, never a hook
    time = kernel_.benchmark(inv, config);
  }
  if (!std::isfinite(time) || time < 0) {
    throw LaunchError("benchmark returned an invalid time " + std::to_string(time));
  }
  return time;
}

template <class Sync>
bool BasicAutotuner<Sync>::finish_attempt(Entry& entry, const Invocation& inv,
                                          const AttemptPtr& attempt, int winner,
                                          std::string error, const Publication* publication) {
  const bool publishes = winner >= 0 && publication != nullptr && publication->claim != nullptr;
  // Held from before the publication to after tune_end is recorded, and taken before the key's
  // lock (invalidate()).
  std::unique_ptr<StoreView> view;
  if (publishes) view = view_of(entry.key, ResultsStore::ViewMode::Shared);
  typename Sync::Lock lock(entry.mutex);
  if (winner >= 0) {
    const auto& config = space_[static_cast<std::size_t>(winner)];
    // Before tune_end: a call that begins after the event, in any process, finds the entry (R10).
    // A load elsewhere may then be recorded before this tune_end, which the model reads as a
    // load of the winner that this attempt publishes.
    if (publishes && !publish_to_store(*publication, winner)) {
      lose_lease(entry, inv, attempt);
      return false;
    }
    report_tune_end(entry.key, inv.stream.id(), &config.str(), nullptr);
    // release: a lock-free reader that sees the winner also sees tune_end reported before it.
    entry.winner.store(&choices_[static_cast<std::size_t>(winner)], std::memory_order_release);
    entry.state.set(KeyState::Tuned);
  } else if (!report_failure_unless_lease_lost(entry.key, inv.stream.id(), error, publication)) {
    end_lost_attempt(entry, attempt);
    return false;
  } else {
    attempt->error.set(std::move(error));
    entry.state.set(KeyState::Cold);
  }
  attempt->winner.set(winner);
  attempt->done.set(true);
  // Before the waiters wake: from now on no wait on this attempt closes a cycle.
  if (attempt->waited_on.get() && wait_graph_ != nullptr) wait_graph_->attempt_finished(attempt.get());
  entry.attempt.set(nullptr);
  entry.attempt_finished.notify_all();
  return true;
}

// The store fenced the publication off: another process took the entry's claim after this
// owner's lease ran out, and may publish its own winner. The attempt is over, neither a success
// nor a failure (the model's lease_lost), and nothing of it is kept: the owner's call and its
// waiters go round again, and wait for, or load, whoever took over.
template <class Sync>
void BasicAutotuner<Sync>::lose_lease(Entry& entry, const Invocation& inv, const AttemptPtr& attempt) {
  const auto lease_lost = [&] { report(model::EventKind::LeaseLost, entry.key, inv.stream.id()); };
  report_through_waits([&](SharedWaits& waits) { waits.attempt_ended(store_.id_of(entry.key), lease_lost); }, lease_lost);
  end_lost_attempt(entry, attempt);
}

template <class Sync>
void BasicAutotuner<Sync>::end_lost_attempt(Entry& entry, const AttemptPtr& attempt) {
  entry.state.set(KeyState::Cold);
  attempt->lease_lost.set(true);
  attempt->done.set(true);  // winner -1, but no failure: waiters go round again (wait_for)
  if (attempt->waited_on.get() && wait_graph_ != nullptr) wait_graph_->attempt_finished(attempt.get());
  entry.attempt.set(nullptr);
  entry.attempt_finished.notify_all();
}

// The cross-process path of a cold key's in-process owner (DESIGN.md, "Across processes"):
//   1. a valid entry in the store is a hit: loaded, and launched with no benchmark;
//   2. otherwise the owner takes the entry's claim: at once if it is free; if another process
//      holds it, policy Fallback launches the fallback (the key stays Cold here), and policy Block
//      waits until the holder publishes or dies, reported as a wait;
//   3. under the claim, an entry published meanwhile is loaded, and a rejected one is reported,
//      warned of and quarantined; with none, the owner tunes, and publishes before it launches.
// A store that fails (StoreError) is warned of once, and the key is tuned locally: no call hangs
// on it and no unvalidated config is launched. Under StoreFailurePolicy::Fail the call ends with
// StoreFailed instead, tuning nothing; this process's waiters on it see the failure.
template <class Sync>
const Config* BasicAutotuner<Sync>::call_through_store(Entry& entry, const Invocation& inv,
                                                       const AttemptPtr& attempt, Yield& yield) {
  Publication publication{.claim = nullptr, .id = store_.id_of(entry.key), .times = {}};
  std::unique_ptr<StoreClaim> claim;
  std::optional<std::size_t> loaded;
  std::optional<std::string> cycle;
  bool fall_back = false;
  try {
    if (const StoreLookup found = look_up(entry, inv, publication.id); found.kind == StoreLookup::Hit) {
      loaded = found.winner;
    } else {
      claim = store_.store().claim(publication.id, ResultsStore::ClaimMode::Try);
      fall_back = !claim && options_.wait == WaitPolicy::Fallback;
      if (!claim && !fall_back) claim = wait_for_claim(entry, inv, attempt, publication.id, cycle, yield);
      if (claim) loaded = load_claimed(entry, inv, publication.id, *claim);
    }
  } catch (const StoreError& e) {
    // The store's reason, in the trace: the cause of a StoreFailed (R14), or of a local tuning.
    report_handled_error(options_.observer, model::EventKind::StoreFailed, kernel_.name(), entry.key, nullptr,
                         inv.stream.id());
    if (store_.failure_fails_calls()) fail_on_store(entry, attempt, e);
    store_.warn_failure(e.what());
    claim.reset();
  } catch (...) {  // out of memory, say: the key must not stay Tuning for this process's waiters
    give_back(entry, attempt, store_step_failure(entry.key));
    throw;
  }
  // The launches come after: a failed launch ends the call, and the key's attempt is over by then.
  if (loaded) return &settle_loaded(entry, inv, attempt, *loaded);
  if (fall_back) {
    give_back(entry, attempt, where(entry.key) + ": another process is tuning this key");
    return &launch(inv, fallback_);
  }
  if (cycle) {  // this process's waiters on the owner go round again (no tune_begin was reported)
    Route answer = close_cycle(entry, *cycle);
    give_back(entry, attempt, answer.error);
    if (answer.kind == Route::Launch) return &launch(inv, *answer.launch);
    throw TuningCycle(answer.error);
  }
  {
    typename Sync::Lock lock(entry.mutex);
    report_tune_begin(entry, *attempt, inv);
    entry.attempt_finished.notify_all();  // this process's waiters wait anew, on this attempt (wait_for)
    // The model reads a wait that began before the tune_begin as one on this attempt now, but
    // this process's graph holds no edge for it, and the store's graph may have dropped it (this
    // process was paused past its lease): a wait of this owner's hook that closed a cycle through
    // it would go unseen. So the attempt runs once each such wait has ended (its waiter, woken,
    // waits anew in both graphs); the waiters need nothing this owner holds to end it.
    while (attempt->early_waiters.get() > 0) entry.attempt_finished.wait(lock);
  }
  publication.claim = claim.get();
  const int winner = run_attempt(entry, inv, attempt, &publication);
  claim.reset();  // published (or failed, or fenced off): the next process may look
  if (winner == kLeaseLost) return nullptr;
  return &launch(inv, choices_[static_cast<std::size_t>(winner)]);
}

// Another process holds the entry's claim: wait until its holder is done, then try for it again;
// unless that wait would close a cycle of waits across processes. With the store's graph
// (SharedWaits), each wait is on one attempt and ends with it: a wait that went on when another
// process took the claim next would, in the trace and the graphs, still be on the attempt that
// ended, and a cycle through the new holder would go unseen. So the call waits anew, on that one.
template <class Sync>
std::unique_ptr<StoreClaim> BasicAutotuner<Sync>::wait_for_claim(Entry& entry, const Invocation& inv,
                                                                 const AttemptPtr& attempt, const EntryId& id,
                                                                 std::optional<std::string>& cycle, Yield& yield) {
  if (store_.waits() == nullptr) {
    yield.release();
    return wait_out_claim(entry, inv, id);
  }
  for (;;) {
    cycle = enter_wait(entry.key, inv.stream.id(), nullptr);
    if (cycle) return nullptr;
    // A hold kept while waiting could close a cycle that no graph sees: this process's owner of
    // the attempt waited on, through another process, may be waiting for the bench lock.
    yield.release();
    {
      typename Sync::Lock lock(entry.mutex);
      attempt->store_waits.set(attempt->store_waits.get() + 1);
      entry.attempt_finished.notify_all();  // this process's waiters wait anew, as this owner does
    }
    std::unique_ptr<StoreClaim> claim;
    try {
      store_.waits()->await_waited_attempt([&] {
        claim = store_.store().claim(id, ResultsStore::ClaimMode::Try);
        return claim != nullptr;
      });
    } catch (...) {
      report_wait_end(entry.key, inv.stream.id());
      throw;
    }
    report_wait_end(entry.key, inv.stream.id());
    if (!claim) claim = store_.store().claim(id, ResultsStore::ClaimMode::Try);
    if (claim) return claim;
  }
}

// With no graph across processes, one wait for the claim, however often it changes hands.
template <class Sync>
std::unique_ptr<StoreClaim> BasicAutotuner<Sync>::wait_out_claim(Entry& entry, const Invocation& inv, const EntryId& id) {
  report(model::EventKind::WaitBegin, entry.key, inv.stream.id());
  std::unique_ptr<StoreClaim> claim;
  try {
    claim = store_.store().claim(id, ResultsStore::ClaimMode::Wait);
  } catch (...) {
    report(model::EventKind::WaitEnd, entry.key, inv.stream.id());
    throw;
  }
  report(model::EventKind::WaitEnd, entry.key, inv.stream.id());
  return claim;
}

template <class Sync>
std::optional<std::size_t> BasicAutotuner<Sync>::load_claimed(Entry& entry, const Invocation& inv,
                                                               const EntryId& id, const StoreClaim& claim) {
  const StoreLookup found = look_up(entry, inv, id);
  if (found.kind == StoreLookup::Hit) return found.winner;
  if (found.kind == StoreLookup::Miss) return std::nullopt;
  store_.warn_rejected(id, found.reason);
  store_.store().quarantine(claim, id, found.reason);
  return std::nullopt;
}

template <class Sync>
std::optional<std::size_t> BasicAutotuner<Sync>::look_up_beside_owner(Entry& entry, const Invocation& inv) {
  try {
    const StoreLookup found = look_up(entry, inv, store_.id_of(entry.key));
    if (found.kind != StoreLookup::Hit) return std::nullopt;  // the owner quarantines a rejected entry
    return found.winner;
  } catch (const StoreError& e) {
    store_.warn_failure(e.what());
    return std::nullopt;
  }
}

// Every entry a call reads is in its trace: a valid one as the load of its winner, a rejected one
// as a load with the reason (and the winner it named, when known), so that the model sees the
// store lose the key before the call waits for it to be tuned again (R10, R3).
template <class Sync>
StoreLookup BasicAutotuner<Sync>::look_up(const Entry& entry, const Invocation& inv, const EntryId& id) {
  // Under a shared view: a withdrawal, in any process, falls wholly before or after this read and
  // its report (invalidate()).
  const std::unique_ptr<StoreView> view = store_.store().view(id, ResultsStore::ViewMode::Shared);
  StoreLookup found = store_.lookup(id);
  if (found.kind == StoreLookup::Hit) {
    report(model::EventKind::Load, entry.key, inv.stream.id(), &space_[found.winner].str());
  } else if (found.kind == StoreLookup::Rejected) {
    const std::string* named = found.rejected_winner.empty() ? nullptr : &found.rejected_winner;
    report(model::EventKind::Load, entry.key, inv.stream.id(), named, &found.reason);
  }
  return found;
}

template <class Sync>
const Config& BasicAutotuner<Sync>::settle_loaded(Entry& entry, const Invocation& inv,
                                                  const AttemptPtr& attempt, std::size_t winner) {
  {
    typename Sync::Lock lock(entry.mutex);
    // An invalidate of this process came after the load (invalidate_here): the owner launches the
    // winner, valid in its window, but the key stays Cold here, and its waiters go round again as
    // after a failure before tune_begin (wait_for): a wait may have begun after the invalidate.
    const bool kept = !attempt->invalidated.get();
    if (kept) {
      // release: as in finish_attempt, a reader that sees the winner sees the load (look_up)
      // reported.
      entry.winner.store(&choices_[winner], std::memory_order_release);
    }
    entry.state.set(kept ? KeyState::Tuned : KeyState::Cold);
    attempt->winner.set(kept ? static_cast<int>(winner) : -1);
    attempt->done.set(true);
    if (attempt->waited_on.get() && wait_graph_ != nullptr) wait_graph_->attempt_finished(attempt.get());
    entry.attempt.set(nullptr);
    entry.attempt_finished.notify_all();
  }
  return launch(inv, choices_[winner]);
}

template <class Sync>
void BasicAutotuner<Sync>::give_back(Entry& entry, const AttemptPtr& attempt, std::string why) {
  typename Sync::Lock lock(entry.mutex);
  entry.state.set(KeyState::Cold);
  attempt->done.set(true);  // winner -1: a waiter (none under policy Fallback) would see a failure
  attempt->error.set(std::move(why));
  if (attempt->waited_on.get() && wait_graph_ != nullptr) wait_graph_->attempt_finished(attempt.get());
  entry.attempt.set(nullptr);
  entry.attempt_finished.notify_all();
}

template <class Sync>
void BasicAutotuner<Sync>::fail_on_store(Entry& entry, const AttemptPtr& attempt, const StoreError& error) {
  std::string why = where(entry.key) + ": the results store failed (" + error.what() +
                    ") and the store-failure policy is fail: nothing was tuned or launched";
  give_back(entry, attempt, why);
  throw StoreFailed(why);
}

template <class Sync>
std::string BasicAutotuner<Sync>::store_step_failure(std::string_view key) const noexcept {
  try {
    const std::string text = where(key) + ": the owner's steps in the results store failed";
    try {
      throw;
    } catch (const std::exception& e) {
      return text + ": " + e.what();
    } catch (...) {
      return text;
    }
  } catch (...) {
    return {};
  }
}

// Under the key lock, just before tune_end: the winner goes to the store once. A failing store is
// warned of; the winner stays published in this process (the documented tune-locally policy).
template <class Sync>
bool BasicAutotuner<Sync>::publish_to_store(const Publication& publication, int winner) const noexcept {
  bool fenced = false;
  store_.warned_on_failure([&] {
    try {
      (void)store_.publish(*publication.claim, publication.id, static_cast<std::size_t>(winner), publication.times);
    } catch (const LeaseLost&) {  // no failure of the store: no warning, and nothing kept here
      fenced = true;
    }
  });
  return !fenced;
}

// With a store, an invalidate holds the entry's exclusive view (ResultsStore::view) from before
// its withdrawal to after its record. Every read of the entry and every publication, in any
// process, holds a shared view from before it to after its record, so across processes each falls
// wholly before or wholly after the invalidate: the merged trace shows the withdrawal where it
// happened. A view is always taken before any lock of this process (the key's, the index's), and
// while holding one a thread waits for those short locks only, never for a claim, an attempt or
// another view: so taking one cannot deadlock, even from a hook. A store that fails is warned of,
// and the invalidate still withdraws what it can.
template <class Sync>
void BasicAutotuner<Sync>::invalidate(std::string_view key) {
  std::unique_ptr<StoreView> view;
  if (store_.enabled()) view = view_of(key, ResultsStore::ViewMode::Exclusive);
  invalidate_here(key);
}

// A view of the key's entry, or none where the store fails (warned of).
template <class Sync>
std::unique_ptr<StoreView> BasicAutotuner<Sync>::view_of(std::string_view key, ResultsStore::ViewMode mode) const noexcept {
  std::unique_ptr<StoreView> view;
  store_.warned_on_failure([&] { view = store_.store().view(store_.id_of(key), mode); });
  return view;
}

template <class Sync>
void BasicAutotuner<Sync>::invalidate_here(std::string_view key) {
  // Not find_or_insert(): invalidating a key never called must not grow the index. Not a plain
  // find() either, which may miss an entry another thread inserted and tuned (Relacy's
  // invalidate suite found that): the miss is confirmed, and reported, under the index's insert
  // lock, so a first call of the key is ordered wholly after this invalidate: its withdrawal from
  // the store too, or that call could read the entry after the invalidate's record.
  Entry* const found = index_.find_or_on_miss(key, [&] {
    withdraw_from_store(key);
    report(model::EventKind::Invalidate, key, -1);
  });
  if (found == nullptr) return;
  Entry& entry = *found;
  typename Sync::Lock lock(entry.mutex);
  if (entry.state.get() == KeyState::Tuned) {
    // relaxed: lock-free readers need no ordering with the withdrawal; a reader that still sees
    // the old winner launched a config that was published during its call.
    entry.winner.store(nullptr, std::memory_order_relaxed);
    entry.state.set(KeyState::Cold);
  } else if (entry.state.get() == KeyState::Tuning) {
    // An owner still at the store may have loaded the entry this withdraws: it must not keep it.
    entry.attempt.get()->invalidated.set(true);
  }
  // The withdrawal, then its record: under the exclusive view (invalidate()), nothing of another
  // process falls between them.
  withdraw_from_store(key);
  report(model::EventKind::Invalidate, entry.key, -1);
}

template <class Sync>
void BasicAutotuner<Sync>::withdraw_from_store(std::string_view key) const noexcept {
  if (!store_.enabled()) return;
  store_.warned_on_failure([&] { store_.store().withdraw(store_.id_of(key)); });
}

template <class Sync>
std::optional<Config> BasicAutotuner<Sync>::tuned_config(std::string_view key) const {
  const Entry* entry = index_.find(key);
  if (entry == nullptr) return std::nullopt;
  // acquire: same pairing as in call().
  const LaunchChoice* winner = entry->winner.load(std::memory_order_acquire);
  if (winner == nullptr) return std::nullopt;
  return *winner->config;
}

template <class Sync>
const Config& BasicAutotuner<Sync>::launch(const Invocation& inv, const LaunchChoice& what) {
  try {
    if (what.prepared != nullptr) [[likely]] {
      what.prepared->launch(inv);
    } else {
      kernel_.launch(inv, *what.config);
    }
  } catch (...) {
    report_launch_failed(options_.observer, kernel_.name(), inv.key, what.config->str(), inv.stream.id());
    throw;
  }
  if (options_.observer != nullptr) report_launch(inv, *what.config);
  return *what.config;
}

template <class Sync>
void BasicAutotuner<Sync>::report_launch(const Invocation& inv, const Config& config) const {
  report(model::EventKind::Launch, inv.key, inv.stream.id(), &config.str());
}

template <class Sync>
std::string BasicAutotuner<Sync>::where(std::string_view key) const {
  return "kernel '" + kernel_.name() + "', key '" + std::string(key) + "'";
}

template <class Sync>
void BasicAutotuner<Sync>::report_tune_begin(Entry& entry, Attempt<Sync>& attempt, const Invocation& inv) {
  attempt.tune_reported.set(true);
  const auto tune_begin = [&] { report(model::EventKind::TuneBegin, entry.key, inv.stream.id()); };
  report_through_waits([&](SharedWaits& waits) { waits.attempt_began(store_.id_of(entry.key), tune_begin); }, tune_begin);
}

template <class Sync>
void BasicAutotuner<Sync>::report_tune_end(std::string_view key, int stream, const std::string* config,
                                           const std::string* error) const noexcept {
  const auto tune_end = [&] { report(model::EventKind::TuneEnd, key, stream, config, error); };
  report_through_waits([&](SharedWaits& waits) { waits.attempt_ended(store_.id_of(key), tune_end); }, tune_end);
}

template <class Sync>
template <class Change>
void BasicAutotuner<Sync>::report_through_waits(const Change& change, const SharedWaits::Report& report) const noexcept {
  SharedWaits* const waits = store_.waits();
  if (waits == nullptr || !store_.warned_on_failure([&] { change(*waits); })) report();
}

// `in_process`: the attempt of this process waited on, for this process's graph; null for a wait
// on another process's claim, which only the store's graph sees.
template <class Sync>
std::optional<std::string> BasicAutotuner<Sync>::enter_wait(std::string_view key, int stream,
                                                            const AttemptPtr& in_process) {
  const auto wait_begin = [&] { report(model::EventKind::WaitBegin, key, stream); };
  std::optional<std::string> cycle;
  // Reports the wait_begin and returns true, unless the store's graph finds a cycle.
  const auto enter_across_processes = [&] {
    if (store_.waits() == nullptr) {
      wait_begin();
    } else {
      report_through_waits([&](SharedWaits& waits) { cycle = waits.wait_unless_cycle(store_.id_of(key), wait_begin); },
                           wait_begin);
    }
    return !cycle;
  };
  // An attempt whose owner has not reported its tune_begin (it is still after the store's claim)
  // is no edge of this process's graph: the wait is then on the attempt in flight in another
  // process, or on the next to begin, as the store's graph and the model read it. It is entered
  // anew, here too, once the owner begins (wait_for).
  if (wait_graph_ == nullptr || in_process == nullptr || !in_process->tune_reported.get()) {
    enter_across_processes();
  } else if (auto edges = wait_graph_->wait_unless_cycle(
                 Sync::thread_id(), {in_process->owner, in_process.get(), kernel_.name(), std::string(key)},
                 enter_across_processes)) {
    cycle = describe_cycle<Sync>(Sync::thread_id(), *edges);
  }
  return cycle;
}

template <class Sync>
void BasicAutotuner<Sync>::report_wait_end(std::string_view key, int stream) const noexcept {
  const auto wait_end = [&] { report(model::EventKind::WaitEnd, key, stream); };
  report_through_waits([&](SharedWaits& waits) { waits.wait_ended(wait_end); }, wait_end);
}

template <class Sync>
void BasicAutotuner<Sync>::report(model::EventKind kind, std::string_view key, int stream,
                                  const std::string* config, const std::string* error,
                                  std::optional<double> time_ns) const noexcept {
  if (options_.observer == nullptr) return;
  options_.observer->record(
      ObservedEvent{.kind = kind,
                    .kernel = kernel_.name(),
                    .key = key,
                    .config = config,
                    .error = error,
                    .time_ns = time_ns,
                    .stream = stream});
}

}  // namespace safetune
