// The results store that a multi-process round's workers share (`--store`, process_round.h):
//   - a directory store: DIR/round-N, emptied when the round begins;
//   - a Redis store (redis://HOST:PORT/NS, unix:///SOCKET[#NS]): a namespace of the round's own on
//     that server, NS.<random run id>.round-N, so that runs that share a server (in parallel, or
//     one after another) never read each other's entries. Its keys are deleted when the round
//     ends. Its leases last a quarter of the watchdog's limit (at most the store's default): a
//     killed owner then blocks its waiters for at most that, so the watchdog never reads the wait
//     for its lease as a hang.
//   - with --restart-store, a Redis store on a redis-server that the round starts itself (AOF on),
//     and kills and starts again on its data between the generations (restart_server); so too
//     for a subject whose scenario wants a Redis store when --store names none (own_redis), but
//     never restarted;
//   - with --store-down, a Redis store with no server at all (a socket path in an empty temporary
//     folder): every store step fails, and the workers follow the store-failure policy.
// Each round's store starts empty: every entry a worker loads was published in the round (the
// trace header's fresh_store says so, and the model holds loads to it).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "impl/posix/temp_directory.h"
#include "impl/store/results_store.h"
#include "stress/harness/redis_space.h"

namespace safetune::stress {

class PauseGate;  // pause_gate.h

struct StressOptions;

// True for a --store that names a Redis server rather than a directory.
bool names_redis_store(const std::string& store);

// Why this build cannot open `store`, a Redis address (its text is wrong, or this build has no
// Redis store); empty when it can. For the command line's check of --store.
std::string redis_store_problem(const std::string& store);

// A stress run's Redis lease: a quarter of the watchdog's limit, from 100 ms up to the store's
// default lease. --pause-owners pauses for twice it (owner_kills.h), so a paused owner's lease runs
// out, and a killed owner blocks its waiters for no longer, so the watchdog reads no hang.
std::chrono::milliseconds stress_lease(const StressOptions& options);

class RoundStore {
 public:
  // The round's fresh store, or none when the run has no --store. std::runtime_error (StoreError
  // for a server that does not answer), naming the store and the reason, when it cannot be made
  // ready.
  RoundStore(const StressOptions& options, std::uint64_t round);
  ~RoundStore();
  RoundStore(const RoundStore&) = delete;
  RoundStore& operator=(const RoundStore&) = delete;

  // The round's folder, for a directory store (what --damage-store and a power loss act on).
  const std::optional<std::string>& directory() const { return directory_; }
  // A worker's own connection to the store (`journal`: where a directory store records what it
  // made durable, for --restart's power loss), its views gated by `gate` when there is one
  // (--pause-owners, pause_gate.h). Null when the run has no store.
  std::unique_ptr<ResultsStore> open(const std::optional<std::string>& journal, PauseGate* gate = nullptr) const;
  // --restart-store: SIGKILL the round's own server, and start it again on the same data.
  void restart_server();

 private:
  std::optional<std::string> directory_;
  std::optional<std::string> redis_;  // the round's address, its own namespace in it
  std::chrono::milliseconds lease_{};
  std::optional<posix::TempDirectory> no_server_;  // --store-down: where no server listens
  std::unique_ptr<OwnRedisServer> own_server_;      // --restart-store, own_redis: the round's own server
};

}  // namespace safetune::stress
