// The results store: where tuned winners outlive their process and are shared by every process
// that uses the same store (DESIGN.md, "Across processes").
//
// No store configured is the in-memory default: each process tunes its keys once, and nothing
// outlives it (the autotuner's own index is the in-memory store). A ResultsStore adds:
//   - read(): the entry of (kernel, key, device), as the text that publish() wrote, or none;
//   - claim(): single-flight across processes: the holder of an entry's claim is the only process
//     that may tune it. A claim dies with its process (so a killed owner blocks no one), and is
//     given back when the StoreClaim is destroyed;
//   - publish(): once and atomically, under a claim: a reader sees a whole entry or none;
//   - quarantine(): under a claim, a damaged or foreign entry is renamed aside with its reason;
//   - withdraw(): invalidate(key) withdraws the entry atomically, so the next call anywhere tunes.
// What an entry holds, and when it is valid, is the store-independent part (entry_codec.h).
// Every method may throw StoreError (the disk is full, the directory cannot be written, ...); the
// autotuner then tunes locally, with one warning, and never launches a config it did not validate.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace safetune {

struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// From publish() or quarantine() of a store that grants claims by lease (Redis): the lease ran out
// and another process may hold the entry now, so nothing was written (fencing). The attempt is
// over (the model's `lease_lost`); its call may wait for, or load, whoever took over.
struct LeaseLost : StoreError {
  using StoreError::StoreError;
};

// Which entry: one per (kernel, key, device).
struct EntryId {
  std::string kernel;
  std::string key;
  std::string device;
};

// Proof of a held claim; destroying it gives the claim back.
class StoreClaim {
 public:
  virtual ~StoreClaim() = default;
  // The store already knows that the claim is gone (a lease that ran out and was not renewed):
  // its owner stops benchmarking, since its publication would be refused. False when the store
  // cannot tell before the publication, and always for a claim that cannot be lost (an OFD lock).
  virtual bool lost() const { return false; }
  // Asks the store whether the claim is still held now (a round trip, where a claim is a lease):
  // a failed attempt writes nothing that the store could refuse, so its owner learns so here,
  // before it reports the failure. True when the store cannot tell (a server that does not
  // answer), and always for a claim that cannot be lost.
  virtual bool held_now() const noexcept { return !lost(); }
};

// Proof of a held view of an entry (ResultsStore::view); destroying it lets the view go.
class StoreView {
 public:
  virtual ~StoreView() = default;
};

// The wait-for graph of every process that shares a store (DESIGN.md, R11 across processes).
//
// Threads wait on keys' attempts, and attempts belong to threads, in any process: A in one process
// owns k0 and, from a hook, calls k1, while B in another owns k1 and calls k0. Each would wait for
// the other's claim for ever. So every wait, attempt begin and attempt end of every process that
// shares the store is entered here, each with its report, under one lock, and a wait that would
// close a cycle is refused (the autotuner answers it as R11 says).
//
// What a wait waits on is what the model reads (model/model_wait_cycle.cpp): the key's attempt in
// flight when the wait begins, in any process, or, when none is, the first to begin there after
// it. The edge lasts until the waiter's wait_end; an attempt's edge to its owner from its begin to
// its end. A thread is named by its process and itself, and a process that died (SIGKILL
// included) drops out of the graph: its attempts are over and its threads wait on nothing.
// Each method calls `report` under the graph's lock, once the graph holds the change, so the
// order of the reports across processes is the order of the changes. A method that throws
// (StoreError) has changed nothing and reported nothing.
class SharedWaits {
 public:
  virtual ~SharedWaits() = default;
  using Report = std::function<void()>;
  // The calling thread waits on the key's attempt, and `report` runs; unless following the waits
  // from that attempt's owner leads back to the calling thread. Then nothing changes and the
  // cycle is returned, described for an error message.
  virtual std::optional<std::string> wait_unless_cycle(const EntryId& id, const Report& report) = 0;
  // The calling thread's wait is over.
  virtual void wait_ended(const Report& report) = 0;
  // The calling thread begins an attempt on the key, or ends the one it began.
  virtual void attempt_began(const EntryId& id, const Report& report) = 0;
  virtual void attempt_ended(const EntryId& id, const Report& report) = 0;
  // Blocks until the attempt that the calling thread's wait (wait_unless_cycle) waits on has
  // ended, its owner dead included. While that attempt has not begun (the claim's holder was
  // loading, or about to begin), `claimed` (which tries for the entry's claim) is called now and
  // then, and a true return ends the wait at once. A blocking wait for the claim would not do: the
  // claim may pass to another process's next attempt while the waiter sleeps, and the waiter,
  // still waiting on the attempt that ended (in the trace and in this graph), would close a cycle
  // through the new one unseen.
  virtual void await_waited_attempt(const std::function<bool()>& claimed) = 0;
};

class ResultsStore {
 public:
  virtual ~ResultsStore() = default;

  virtual std::optional<std::string> read(const EntryId& id) = 0;
  enum class ClaimMode { Try, Wait };
  // The entry's claim; under Try, null when another process holds it. Wait blocks until it is
  // free: its holder gave it back or died.
  virtual std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) = 0;
  // Publishes `text` as the entry; false when an entry is already there (it is then left as is).
  virtual bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) = 0;
  // Renames the entry aside, with `reason`, so that it is kept but never read again.
  virtual void quarantine(const StoreClaim& claim, const EntryId& id, const std::string& reason) = 0;
  virtual void withdraw(const EntryId& id) = 0;
  // A view of the entry, waited for. No withdrawal happens while a Shared view is held, and an
  // Exclusive one waits out every Shared one. The autotuner reads the entry, or publishes it, and
  // records what it did under a Shared view, and withdraws it and records the invalidate under an
  // Exclusive one, so that across processes a read or a publication falls wholly before or wholly
  // after a withdrawal and its record. A view is held for one step, and its holder waits for
  // nothing of the store meanwhile. Null: the store offers none (then that holds within one
  // process only).
  enum class ViewMode { Shared, Exclusive };
  virtual std::unique_ptr<StoreView> view(const EntryId& /*id*/, ViewMode /*mode*/) { return nullptr; }
  // The graph of waits of every process on this store; null: the store keeps none (then each
  // process detects the cycles of its own threads only).
  virtual SharedWaits* waits() { return nullptr; }
  // How a warning names the entry (its file, for a directory store).
  virtual std::string where(const EntryId& id) const = 0;
};

}  // namespace safetune
