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

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace safetune {

struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
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
};

// Proof of a held view of an entry (ResultsStore::view); destroying it lets the view go.
class StoreView {
 public:
  virtual ~StoreView() = default;
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
  // How a warning names the entry (its file, for a directory store).
  virtual std::string where(const EntryId& id) const = 0;
};

}  // namespace safetune
