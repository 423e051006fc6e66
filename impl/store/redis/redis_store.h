// The Redis store: the results store of a cluster (DESIGN.md, "Across processes"). Every process
// of every host that names the same server and namespace shares its entries.
//
// Keys, under the namespace NS (every name part is length-prefixed, so any kernel or key is safe):
//   NS:entry:<id>        an entry, published whole (entry_codec.h), once
//   NS:lease:<id>        the entry's claim: the owner's fencing token, with a time to live (PX)
//   NS:fence             the fencing tokens' counter (INCR): each claim gets a larger one
//   NS:released:<id>     a channel: a claim given back, or an entry published (waiters wake)
//   NS:quarantine:<id>:<token>, NS:withdrawn:<id>:<token>   entries renamed aside (with :reason)
//
// Single-flight across hosts is a lease: `SET lease NX PX <lease>`, taken with a fresh token by
// one script. The owner renews it from a heartbeat thread, with its own connection, every third of
// the lease, and only while the token is still its own. Publication is a script that writes the
// entry only if the lease still holds the owner's token and no entry is there: an owner paused
// past its lease (SIGSTOP, a stalled host), whose lease another process then took, cannot publish
// (LeaseLost). A killed owner blocks others for at most the lease.
//
// A view of an entry (ResultsStore::view) and the graph of every process's waits (SharedWaits)
// are kept on the server too: NS:view-shared:<id>, NS:view-exclusive:<id> and NS:waits:*.
//
// Waiters subscribe to the entry's channel and try again on each message, and at least every
// `longest_poll` (a lease that expired sends none). Every command has bounded connect and read
// timeouts: a server that is down or stops answering is a StoreError within them, never a hang.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "impl/store/redis/redis_address.h"
#include "impl/store/redis/redis_connection.h"
#include "impl/store/redis/redis_keeper.h"
#include "impl/store/redis/redis_waits.h"
#include "impl/store/results_store.h"

namespace safetune {

struct RedisStoreOptions {
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds read_timeout{1000};
  std::chrono::milliseconds lease{10000};        // renewed every third of it while an attempt runs
  std::chrono::milliseconds longest_poll{100};   // a waiter's longest sleep between two tries
  // false only to show what it prevents (the broken subject redis-lease-never-renewed): no
  // heartbeat, so an attempt longer than `lease` loses it to a waiter of another process.
  bool renew_leases = true;
};

// Not final: the stress harness derives from it to gate its steps (stress/harness/pause_gate.h).
class RedisStore : public ResultsStore {
 public:
  // Connects at its first command: a server that is down when the store is made (or later) is a
  // StoreError of each command until it answers (the autotuner then tunes locally, with one
  // warning: the documented policy), and one that comes up serves the next command.
  explicit RedisStore(RedisAddress address, RedisStoreOptions options = {});

  std::optional<std::string> read(const EntryId& id) override;
  std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) override;
  // LeaseLost when `claim`'s lease ran out: nothing is written.
  bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) override;
  void quarantine(const StoreClaim& claim, const EntryId& id, const std::string& reason) override;
  void withdraw(const EntryId& id) override;
  // Held across every process on the server (redis_view.h).
  std::unique_ptr<StoreView> view(const EntryId& id, ViewMode mode) override;
  // The graph of waits of every process on the server and namespace (redis_waits.h).
  SharedWaits* waits() override { return &waits_; }
  std::string where(const EntryId& id) const override;

  // The key of `kind` ("entry", "lease", "released", ...) for `id`.
  std::string key(std::string_view kind, const EntryId& id) const;
  const RedisAddress& address() const { return address_; }
  const RedisStoreOptions& options() const { return options_; }
  // One command on the store's shared connection (serialized).
  RedisReply run(const std::vector<std::string_view>& argv);
  // Renews the short leases of this store's views, graph lock and liveness (redis_keeper.h).
  RedisKeeper& keeper() { return keeper_; }

 private:
  std::unique_ptr<StoreClaim> try_claim(const EntryId& id);

  RedisAddress address_;
  RedisStoreOptions options_;
  std::mutex mutex_;  // guards connection_
  RedisConnection connection_;
  RedisKeeper keeper_;  // after connection_, and before waits_, which keep leases with it
  RedisWaits waits_;
};

}  // namespace safetune
