// The wait-for graph of every process on one Redis store (SharedWaits, results_store.h), so that
// a wait that would close a cycle through processes of any host is refused.
//
// Keys, under the store's namespace NS:
//   NS:waits:graph           the graph (WaitsRecord's text), replaced whole
//   NS:waits:lock:...        the graph's lock, first in first out (redis_fifo_lock.h), so that
//                            no process starves under load. Held while a process reads, changes
//                            and writes the graph and reports the change, so the reports across
//                            processes are in the graph's order. The write is fenced: it is made
//                            only while the lock is still this process's
//   NS:waits:live:<process>  set, with a lease, by the keeper of each process that uses the
//                            graph: a process whose key ran out died (or was paused past the
//                            lease: it is then dropped as if dead), and its waits are dropped by
//                            the next change, its attempts taken over (waits_record.h)
// A waiter polls the graph (and its owner's liveness) until the attempt it waits on ends.
//
// What the lease gives up: a holder of the lock paused (SIGSTOP) past its lease between its write
// and its report reports out of the graph's order. A paused process whose records were dropped
// finds its waits over and its attempts taken over when it goes on (docs/store.md); a change it
// was making when paused, its write refused, is made again on a new turn.
// One process: a RedisStore is not carried across fork (its connection would be shared).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/store/redis/redis_connection.h"
#include "impl/store/redis/redis_fifo_lock.h"
#include "impl/store/results_store.h"
#include "impl/store/waits_record.h"

namespace safetune {

class RedisStore;

class RedisWaits final : public SharedWaits {
 public:
  // The graph's lock's name under the store's namespace (redis_fifo_lock.h).
  static constexpr std::string_view kLockName = "waits:lock";
  explicit RedisWaits(RedisStore& store);
  ~RedisWaits() override;  // this process is no longer live in the graph
  RedisWaits(const RedisWaits&) = delete;
  RedisWaits& operator=(const RedisWaits&) = delete;

  std::optional<std::string> wait_unless_cycle(const EntryId& id, const Report& report) override;
  void wait_ended(const Report& report) override;
  void attempt_began(const EntryId& id, const Report& report) override;
  void attempt_ended(const EntryId& id, const Report& report) override;
  void await_waited_attempt(const std::function<bool()>& claimed) override;

 private:
  // Under the graph's lock: reads the graph (its dead processes' records dropped), runs `change` on
  // it, and when it returns true writes it back, then runs `report`. `change` may run more than
  // once, each time on the graph as it is then: it must give the same result whatever it ran before.
  template <class Change>
  void change_graph(const Change& change, const Report& report);
  // One turn of change_graph; false, with nothing written or reported, when the turn was dropped
  // before the write.
  template <class Change>
  bool change_graph_in_a_turn(const Change& change, const Report& report);
  // Under mutex_: one command on this graph's own connection (the store's serves its other steps).
  RedisReply command(const std::vector<std::string_view>& argv);
  RedisConnection::Timeouts timeouts() const;
  // Under mutex_ and the lock: the processes of `graph`, this one aside, whose liveness ran out.
  std::vector<std::string> dead_processes(const WaitsRecord& graph);
  // Under mutex_: this process is live in the store, kept so by the store's keeper.
  void start_living();
  std::string entry_name(const EntryId& id) const;
  std::string live_key_of(const std::string& process) const;

  RedisStore& store_;
  const std::string graph_key_;
  ProcessWaits this_process_;  // under mutex_ (its name is set once)
  const std::string live_key_;
  std::mutex mutex_;  // this process's threads: one changes the graph at a time
  RedisFifoLock lock_;  // under mutex_
  std::optional<RedisConnection> connection_;  // under mutex_
  std::optional<std::uint64_t> living_;  // the keeper's id of live_key_; under mutex_
};

}  // namespace safetune
