// The wait-for graph of every process on one directory store (SharedWaits, results_store.h).
//
// Each attempt begun on an entry gets the next number n of that entry, and its owner holds an OFD
// write lock on byte 2 + n of the entry's lock file (DIR/<name>.lock) from its begin to its end:
// a waiter on attempt n blocks for a read lock there, and wakes when that attempt ends (or its
// owner dies), never later when the claim went on to another attempt.
//
// Layout of DIR/waits/:
//   graph          the graph: each key's attempts begun and its owner in flight, and each waiting
//                  thread's key and attempt (JSON). Replaced whole (a temp file renamed over
//                  it), so a process killed while it writes leaves the last graph intact
//   graph.lock     byte 0, an OFD write lock: held (with a mutex among this process's threads)
//                  while a process reads, changes and rewrites the graph and reports the change
//   live/<process> held with an OFD lock for as long as its process lives: a process whose file
//                  no one holds died, and its records are dropped by the next change
// The graph needs no fsync: it describes live processes only, and a crash of the machine ends
// them all.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "impl/posix/fd.h"
#include "impl/store/results_store.h"
#include "impl/store/waits_record.h"

namespace safetune {

class DirectoryWaits final : public SharedWaits {
 public:
  // DIR/waits/ and DIR/waits/live/ are made if needed (StoreError when they cannot be).
  explicit DirectoryWaits(const std::string& store_directory);

  std::optional<std::string> wait_unless_cycle(const EntryId& id, const Report& report) override;
  void wait_ended(const Report& report) override;
  void attempt_began(const EntryId& id, const Report& report) override;
  void attempt_ended(const EntryId& id, const Report& report) override;
  void await_waited_attempt(const std::function<bool()>& claimed) override;

  static constexpr off_t kFirstAttemptByte = 2;

 private:
  // Under the lock: reads the graph (its dead processes' records dropped), runs `change` on it,
  // and when it returns true writes it back, then runs `report`.
  template <class Change>
  void change_graph(const Change& change, const Report& report);
  // Under mutex_: this process's name in the graph, with its live/ file held and its own
  // descriptor of graph.lock. Both are made again after a fork: a child shares its parent's open
  // file descriptions, whose OFD locks would then not exclude each other.
  void open_for_this_process();

  // The number of attempts begun on an entry so far.
  std::uint64_t attempts_begun(const std::string& entry);

  const std::string store_directory_;
  const std::string directory_;  // DIR/waits
  std::mutex mutex_;             // this process's threads, which share lock_fd_'s lock
  int pid_ = -1;                 // the process the three below belong to
  ProcessWaits this_process_;    // its name, and its waiting threads' waits
  std::optional<posix::Fd> live_fd_;
  std::optional<posix::Fd> lock_fd_;
  // The attempt bytes this process's owners hold, by entry name (one attempt per entry in flight).
  std::map<std::string, std::unique_ptr<posix::Fd>> attempt_locks_;
};

}  // namespace safetune
