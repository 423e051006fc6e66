// --pause-owners stops a worker process (SIGSTOP) where none of its threads holds a view of an
// entry, never inside a store step and its record.
//
// Why: the reference makes each store step and records it under the entry's view
// (ResultsStore::view): a read and its load, a publication and its tune_end, a withdrawal and its
// invalidate. On a Redis server a view is a lease. A process stopped inside such a step past the
// lease loses its view, and another process's step can then fall between the effect and its
// record: the store was right, but the trace places the effect late. An invalidator stopped
// between its withdrawal and its record, for one, lets another process tune the key before the
// trace shows the invalidate, and the run reads as a duplicate tuning (R3; docs/store.md, "Paused
// owners: where the stop lands"). No recorder that takes t_ns in the process can place a record
// exactly across such a stop, so the harness stops a process where none of its threads holds a
// view, as a garbage collector stops threads at safepoints. What --pause-owners is for is
// untouched: the owner is stopped in its attempt, past its claim's lease (the fencing case), and an
// attempt holds no view.
//
// Not gated: a change to the store's graph of waits and its report, made under that graph's lock
// (SharedWaits), also a lease. The autotuner makes some of them under a key's lock (tune_begin),
// and a thread held at the gate with that lock would hold back a view's holder that needs it,
// which the stop waits for: a deadlock (a run of the full mix found it). A view is never asked for
// under a lock of the process (impl/autotuner.h, invalidate()), so a thread held at the gate holds
// back no one. What a stop between such a change and its report leaves is in docs/store.md.
//
// Not gated either: --kill-owners. A kill inside a view leaves the same hole (an effect whose
// record never comes), not seen in CI's kill runs so far; gated, no stress run would kill a view's
// holder, which tests/store's AKilledHoldersViewGoesWithItsProcess alone would then cover.
//
// Must stay true: the thread that stops its process holds no view (it stops at a bench), and a
// view's holder waits only for the process's short locks, whose holders never wait at the gate,
// so the views held end and the stop comes.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
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

// A store's view, held as one step of the gate's: the step is entered before the view is asked
// for (`ask`), so that a stop never falls between its grant and its step, and ends after the view
// is let go. A throwing `ask` leaves the step (its member is built by then).
class GatedView final : public StoreView {
 public:
  GatedView(PauseGate& gate, const std::function<std::unique_ptr<StoreView>()>& ask)
      : step_(gate), view_(ask()) {}

 private:
  GatedStep step_;                   // declared first: entered first, left last
  std::unique_ptr<StoreView> view_;  // may be null (a store that offers none)
};

// A stress worker's store (a DirectoryStore, a RedisStore) whose views are steps of `gate`'s.
// Derived, not wrapped: a broken store subject finds the run's store by its class
// (store_subject.h).
template <class Store>
class PauseGated final : public Store {
 public:
  template <class... StoreArguments>
  explicit PauseGated(PauseGate& gate, StoreArguments&&... arguments)
      : Store(std::forward<StoreArguments>(arguments)...), gate_(gate) {}

  std::unique_ptr<StoreView> view(const EntryId& id, ResultsStore::ViewMode mode) override {
    return std::make_unique<GatedView>(gate_, [&] { return Store::view(id, mode); });
  }

 private:
  PauseGate& gate_;
};

}  // namespace safetune::stress
