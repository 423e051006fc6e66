// The record of every process's waits on one store (SharedWaits, results_store.h): what a store
// that keeps the graph (the directory store, the Redis store) reads, changes and writes back whole
// under its graph's lock. Where it is kept and how that lock is held is the store's.
//
// A thread is (its process's name, its thread's); a key is named by the store (its entry's name).
// Each attempt begun on a key gets the key's next number; a wait is on one attempt of its key: the
// one in flight when it began, or, when none was, the next to begin (model/model_wait_cycle.cpp).
// An attempt whose claim ran out (another process began over it, or its process was dropped as
// dead) is kept as taken over until its owner ends it: the model holds it in flight until its
// `lease_lost`, and reads a wait on it from another process as a wait on the takeover, whose claim
// the waiter keeps trying for. So the walk for a cycle follows such a wait as the model does.
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
    // Earlier attempts taken over, by number, whose owners have not ended them (see the top).
    std::map<std::uint64_t, Thread> taken_over;
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

  // The processes that own an attempt (taken over included) or wait.
  std::set<std::string> processes() const;
  // A process that died (its lock went with it: the directory store): its attempts are over, and
  // its threads wait on nothing.
  void drop_process(const std::string& process);
  // A process whose liveness ran out (the Redis store): it died, or it was paused past its lease
  // and goes on. Its attempts are taken over (their claims ran out), and its threads wait on
  // nothing. True when that changed the record.
  bool drop_lapsed_process(const std::string& process);
  // A key that no attempt is in flight on (taken over included) and no thread waits on needs no
  // record: a later wait on it waits on the next attempt to begin, whatever its number. So a
  // number is not reused while anything refers to it. (An attempt of a killed process stays taken
  // over: the Redis store cannot tell it from a paused one, whose `lease_lost` ends it.)
  void drop_idle_keys();

  // The key's record, made when there is none.
  Key& key_record(const std::string& name, const EntryId& id);
  // `me` begins the key's next attempt, whose number is returned. An owner recorded still (its
  // claim was lost) is no longer one: its attempt is taken over.
  std::uint64_t begin_attempt(const Thread& me, const std::string& name, const EntryId& id);
  // `me`'s attempt on the key (in flight, or taken over) is over; false when `me` owns none there
  // (its key was dropped meanwhile).
  bool end_attempt(const Thread& me, const std::string& name);
  // `me` waits on the key's attempt, and the wait is returned; unless following the waits from
  // that attempt's owner leads back to `me`: then nothing changes, and `cycle` describes it. The
  // attempt is the model's (model_wait_cycle.cpp, attempt_for_new_wait): the latest in flight of
  // `me`'s process, else the latest in flight (taken over included), else the next to begin.
  std::optional<Wait> wait_unless_cycle(const Thread& me, const std::string& name, const EntryId& id, std::string& cycle);
  // The thread that `waiter`, waiting with `wait`, waits for now, or null: the owner of the attempt
  // waited on while it is not over; when it was taken over and `waiter` is of another process,
  // the owner of the latest attempt on the key, if that is of a third process (the model's
  // reading, model_wait_cycle.cpp, waited_now).
  const Thread* waited_for(const Thread& waiter, const Wait& wait) const;
  // The owner of attempt `attempt` of the key while it is the one in flight (not taken over).
  const Thread* current_owner(const std::string& name, std::uint64_t attempt) const;
  // The attempt of the key that a new wait of `me` would wait on (wait_unless_cycle). A waiter
  // whose wait is on another waits anew: the one it waited on ended, or a later one began.
  std::uint64_t attempt_to_wait_on(const Thread& me, const std::string& name) const;
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
