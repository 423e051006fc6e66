// The autotuner's per-key state: one KeyEntry per key, one Attempt per tuning attempt.
//
// Invariants (each Var is read and written only with the entry's mutex held):
//   - state == Tuning   <=>  attempt != null, and attempt->done is false.
//   - state == Tuned    <=>  winner != null (winner is also readable without the lock).
//   - state == Cold     <=>  winner == null and attempt == null.
//   - An Attempt is shared with the threads waiting on it, so each waiter reads the outcome of
//     the attempt it waited for even if a later attempt has begun since.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "impl/launch_choice.h"
#include "impl/sync.h"

namespace safetune {

enum class KeyState : std::uint8_t { Cold, Tuning, Tuned };

template <class Sync>
struct Attempt {
  Attempt(std::uint64_t attempt_id, typename Sync::ThreadId owner_thread)
      : id(attempt_id), owner(owner_thread) {}

  const std::uint64_t id;                      // 1, 2, ... per key
  const typename Sync::ThreadId owner;         // the thread running it
  typename Sync::template Var<bool> done{false};
  typename Sync::template Var<int> winner{-1};  // index into the config space; -1: it failed
  typename Sync::template Var<std::string> error;  // why it failed, when it failed
  // Some thread waited on it: it is in the wait graph, to be taken out when it ends.
  typename Sync::template Var<bool> waited_on{false};
  // Its tune_begin is in the trace. With a store the owner reports it only once it holds the
  // entry's claim, so a waiter may begin to wait before it (R8, R14: such a wait waited on no
  // attempt of the trace, and a failure of this one is no reason for it to raise).
  typename Sync::template Var<bool> tune_reported{false};
  // Each wait of the owner for another process's claim on the store: this process's waiters that
  // began before the owner's tune_begin wait anew with it (autotuner.h, wait_for).
  typename Sync::template Var<std::uint64_t> store_waits{0};
  // This process's waiters whose wait began before the tune_begin and has not yet ended (their
  // wait_end is not reported). The owner runs its attempt only once there are none: until then
  // their waits are in the store's graph alone, which a drop of this process from it loses
  // (autotuner.h, call_through_store).
  typename Sync::template Var<int> early_waiters{0};
  // An invalidate of this process came while its owner was still at the store: a winner it then
  // loads is launched by the owner alone, not kept as the key's nor given to its waiters.
  typename Sync::template Var<bool> invalidated{false};
  // Its owner's lease ran out before it published (a store that grants claims by lease): it ended
  // with no result and no failure, and its waiters go round again, as its owner does.
  typename Sync::template Var<bool> lease_lost{false};
};

// Aligned to a cache line, so that what a tuned call reads (key, next, winner: the first 48
// bytes with libstdc++) is one line, not two.
template <class Sync>
struct alignas(64) KeyEntry {
  KeyEntry(std::string entry_key, KeyEntry* next_in_bucket)
      : key(std::move(entry_key)), next(next_in_bucket) {}

  const std::string key;
  KeyEntry* const next;  // the index's bucket link; fixed before the entry is published

  // The published winner's choice (one of the autotuner's, never freed before it), or null.
  // The only per-key state read without the lock.
  typename Sync::template Atomic<const LaunchChoice*> winner{nullptr};

  typename Sync::Mutex mutex;
  // Notified when an attempt publishes or fails, and when an owner that was after the results
  // store's claim begins its attempt (its waiters then wait on that attempt).
  typename Sync::CondVar attempt_finished;
  typename Sync::template Var<KeyState> state SAFETUNE_GUARDED_BY(mutex){KeyState::Cold};
  typename Sync::template Var<std::shared_ptr<Attempt<Sync>>> attempt SAFETUNE_GUARDED_BY(mutex);
  typename Sync::template Var<std::uint64_t> attempts_begun SAFETUNE_GUARDED_BY(mutex){0};
};

}  // namespace safetune
