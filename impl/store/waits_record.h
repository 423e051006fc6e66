// The record of every process's waits on one store (SharedWaits, results_store.h): what a store
// that keeps the graph (the directory store, the Redis store) reads, changes and writes back whole
// under its graph's lock. Where it is kept and how that lock is held is the store's.
//
// A thread is (its process's name, its thread's); a key is named by the store (its entry's name).
// Each attempt begun on a key gets the key's next number; a wait is on one attempt of its key: the
// one in flight when it began, or, when none was, the next to begin (model/model_wait_cycle.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "impl/store/results_store.h"

namespace safetune {

struct WaitsRecord {
  struct Thread {
    std::string process;
    std::string thread;
    auto operator<=>(const Thread&) const = default;
  };
  struct Key {
    std::string kernel;
    std::string key;
    std::uint64_t begun = 0;      // attempts begun, so the one in flight is number `begun`
    std::optional<Thread> owner;  // the owner of the attempt in flight, if one is
  };
  struct Wait {
    std::string key;
    std::uint64_t attempt = 0;  // the key's attempt waited on (begun, or begun + 1 when none was)
  };
  std::map<std::string, Key> keys;
  std::map<Thread, Wait> waits;

  // The record that `text` holds (empty: none yet); StoreError naming `where` when it is damaged.
  static WaitsRecord parse(const std::string& text, const std::string& where);
  std::string text() const;

  // The processes that own an attempt or wait.
  std::set<std::string> processes() const;
  // A process that died: its attempts are over, and its threads wait on nothing.
  void drop_process(const std::string& process);
  // A key that no attempt is in flight on and no thread waits on needs no record: a later wait on
  // it waits on the next attempt to begin, whatever its number. So a number is not reused while
  // anything refers to it.
  void drop_idle_keys();

  // The key's record, made when there is none.
  Key& key_record(const std::string& name, const EntryId& id);
  // `me` begins the key's next attempt, whose number is returned. An owner recorded still (its
  // claim was lost, and taken over) is no longer one: its attempt is over.
  std::uint64_t begin_attempt(const Thread& me, const std::string& name, const EntryId& id);
  // `me`'s attempt on the key is over; false when `me` owns none there (it was taken over, or `me`
  // was dropped).
  bool end_attempt(const Thread& me, const std::string& name);
  // `me` waits on the key's attempt, and the wait is returned; unless following the waits from
  // that attempt's owner leads back to `me`: then nothing changes, and `cycle` describes it.
  std::optional<Wait> wait_unless_cycle(const Thread& me, const std::string& name, const EntryId& id, std::string& cycle);
  // Whether attempt `attempt` of the key has begun (ended included).
  bool attempt_begun(const std::string& name, std::uint64_t attempt) const;
  // Whether attempt `attempt` of the key has ended (its owner dropped out included); false while it
  // is in flight or has not begun.
  bool attempt_over(const std::string& name, std::uint64_t attempt) const;
};

std::string thread_text(const WaitsRecord::Thread& thread);

// One process's side of the record: its name, and what each of its waiting threads waits on, which
// it reads back without the graph (SharedWaits::await_waited_attempt). Not thread-safe: a store
// keeps it under the mutex its threads take to change the graph.
struct ProcessWaits {
  struct Waited {
    std::string entry;
    std::uint64_t attempt = 0;
  };
  std::string process;
  std::map<std::string, Waited> waited;  // by thread name

  // The calling thread, as the record names it.
  WaitsRecord::Thread me() const;
  // The calling thread waits on the key's attempt (true: `graph` changed); unless that closes a
  // cycle, which is then described in `cycle` (reset otherwise: it may run again, on a newer graph).
  bool wait_unless_cycle(WaitsRecord& graph, const std::string& name, const EntryId& id, std::optional<std::string>& cycle);
  // The calling thread's wait is over (true: `graph` changed).
  bool wait_ended(WaitsRecord& graph);
  std::optional<Waited> waited_by_me() const;
};

}  // namespace safetune
