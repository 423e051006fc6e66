// The directory store: the results store of one machine, with no server (DESIGN.md, "Across
// processes"). Every process of the machine that opens the same directory shares its entries.
//
// Layout of DIR:
//   <name>.json         an entry, published whole (entry_codec.h); <name> is a hash of (kernel,
//                       key, device), so any key is a safe file name
//   <name>.lock         byte 0: the entry's claim, an OFD lock (F_OFD_SETLK) held for the whole
//                       attempt. The kernel drops it when its holder dies, even on SIGKILL, so a
//                       killed owner blocks no one and no time-out guess is needed. Byte 1: the
//                       entry's views (ResultsStore::view), a read or a write OFD lock, held for
//                       one read, publication or withdrawal and its record only. Byte 2 + n:
//                       held by the owner of the entry's attempt number n (directory_waits.h)
//   .tmp.<host>.<pid>.<random>   a publication being written
//   quarantine/<name>.<random>.json and .reason   damaged or foreign entries, kept with why
//   withdrawn/<name>.<random>.json                entries that invalidate() withdrew
//   waits/                 the graph of every process's waits (directory_waits.h)
//
// Publication: write the temp file in DIR, fsync it, link() it to <name>.json (which fails if an
// entry is there: published once), unlink the temp name, fsync DIR. A reader sees a whole entry
// or none, and after a crash the entry is either fully there or absent. The durable steps go
// through a DurabilityJournal, which a simulated power loss reads (durability_journal.h).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "impl/store/directory_waits.h"
#include "impl/store/durability_journal.h"
#include "impl/store/results_store.h"

namespace safetune {

// Not final: the stress harness derives from it to gate its steps (stress/harness/pause_gate.h).
class DirectoryStore : public ResultsStore {
 public:
  // Creates DIR (and its quarantine/ and withdrawn/ folders) if needed; StoreError naming the
  // path and the OS's reason when it cannot.
  // With `journal`, every durable step is also noted there (for a simulated power loss).
  explicit DirectoryStore(std::string directory, const std::optional<std::string>& journal = std::nullopt);

  std::optional<std::string> read(const EntryId& id) override;
  std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) override;
  bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) override;
  void quarantine(const StoreClaim& claim, const EntryId& id, const std::string& reason) override;
  void withdraw(const EntryId& id) override;
  std::unique_ptr<StoreView> view(const EntryId& id, ViewMode mode) override;
  std::string where(const EntryId& id) const override;
  SharedWaits* waits() override { return &waits_; }

  const std::string& directory() const { return directory_; }
  // The file name stem of an entry: a hash of (kernel, key, device).
  static std::string entry_name(const EntryId& id);
  // A fresh name for a publication being written: DIR/.tmp.<host>.<pid>.<random>.
  std::string new_temp_path() const;
  const DurabilityJournal& journal() const { return journal_; }

 private:
  std::string path_of(const EntryId& id, const char* suffix) const;
  // An OFD lock of `type` on one byte of the entry's lock file: its descriptor, or -1 when `wait`
  // is false and another description holds a conflicting lock.
  int lock_byte(const EntryId& id, off_t byte, short type, bool wait) const;
  void sync_directory() const;
  void move_aside(const EntryId& id, const std::string& folder, const std::string* reason);

  std::string directory_;
  DurabilityJournal journal_;
  DirectoryWaits waits_;  // made after the directory
};

}  // namespace safetune
