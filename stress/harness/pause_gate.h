// --pause-owners stops a worker process (SIGSTOP) between two of its store steps, never inside one.
//
// Why: the reference makes each store step and records it as one step under the entry's view
// (ResultsStore::view): a read and its load, a publication and its tune_end, a withdrawal and its
// invalidate; and each change to the store's graph of waits with its report, under that graph's
// lock (SharedWaits). On a Redis server both are leases. A process stopped inside such a step past
// the lease loses it, and another process's step can then fall between the effect and its record:
// the store was right, but the trace places the effect late. An invalidator stopped between its
// withdrawal and its record, for one, lets another process tune the key before the trace shows the
// invalidate, and the run reads as a duplicate tuning (R3; docs/store.md, "Paused owners with
// nested tuning, again"). No recorder that takes t_ns in the process can place a record exactly
// across such a stop, so the harness stops a process where none of its threads is inside a step,
// as a garbage collector stops threads at safepoints. What --pause-owners is for is untouched: the
// owner is stopped in its attempt, past its claim's lease (the fencing case), and an attempt is no
// step (it holds no view and no lock of the graph).
//
// Must stay true: the thread that stops its process is inside no step (it stops at a bench), and
// a step waits for nothing that thread holds, so the steps in flight end and the stop comes.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "impl/store/results_store.h"

namespace safetune::stress {

class PauseGate {
 public:
  // Around one step: enter() waits while a stop is asked for or under way, unless the calling
  // thread is inside a step already (a step within a step, which must not wait on itself).
  void enter();
  void leave() noexcept;
  // Lets no new step begin, waits until none is in flight, runs `stop` (which returns once the
  // process was continued), and lets the steps go on.
  void stop_between_steps(const std::function<void()>& stop);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int in_steps_ = 0;
  bool closed_ = false;
};

// One step of the gate's, from construction to destruction.
class GatedStep {
 public:
  explicit GatedStep(PauseGate& gate) : gate_(gate) { gate_.enter(); }
  ~GatedStep() { gate_.leave(); }
  GatedStep(const GatedStep&) = delete;
  GatedStep& operator=(const GatedStep&) = delete;

 private:
  PauseGate& gate_;
};

// A store's view, held as one step of the gate's: it is let go before the step ends.
class GatedView final : public StoreView {
 public:
  GatedView(std::unique_ptr<GatedStep> step, std::unique_ptr<StoreView> view)
      : step_(std::move(step)), view_(std::move(view)) {}

 private:
  std::unique_ptr<GatedStep> step_;  // declared first: ends after the view is let go
  std::unique_ptr<StoreView> view_;  // may be null (a store that offers none)
};

// A store's graph of waits whose changes are steps of the gate's. await_waited_attempt is none:
// it waits for another thread's attempt, which may be the stopping thread's own.
class GatedWaits final : public SharedWaits {
 public:
  GatedWaits(PauseGate& gate, SharedWaits& waits) : gate_(gate), waits_(waits) {}
  std::optional<std::string> wait_unless_cycle(const EntryId& id, const Report& report) override;
  void wait_ended(const Report& report) override;
  void attempt_began(const EntryId& id, const Report& report) override;
  void attempt_ended(const EntryId& id, const Report& report) override;
  void await_waited_attempt(const std::function<bool()>& claimed) override { waits_.await_waited_attempt(claimed); }

 private:
  PauseGate& gate_;
  SharedWaits& waits_;
};

// A stress worker's store (a DirectoryStore, a RedisStore) whose views and changes to its graph of
// waits are steps of `gate`'s. Derived, not wrapped: a broken store subject finds the run's store
// by its class (store_subject.h).
template <class Store>
class PauseGated final : public Store {
 public:
  template <class... StoreArguments>
  explicit PauseGated(PauseGate& gate, StoreArguments&&... arguments)
      : Store(std::forward<StoreArguments>(arguments)...), gate_(gate) {}

  std::unique_ptr<StoreView> view(const EntryId& id, ResultsStore::ViewMode mode) override {
    // Entered before the view is asked for: a stop never falls between its grant and its step.
    auto step = std::make_unique<GatedStep>(gate_);
    return std::make_unique<GatedView>(std::move(step), Store::view(id, mode));
  }
  SharedWaits* waits() override {
    SharedWaits* waits = Store::waits();
    if (waits == nullptr) return nullptr;
    std::call_once(waits_made_, [&] { waits_.emplace(gate_, *waits); });
    return &*waits_;
  }

 private:
  PauseGate& gate_;
  std::once_flag waits_made_;
  std::optional<GatedWaits> waits_;
};

}  // namespace safetune::stress
