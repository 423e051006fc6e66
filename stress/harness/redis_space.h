// The Redis side of a round's store (round_store.h). A build without the Redis store (no hiredis:
// the GPU runner's) links redis_space_missing.cpp instead, whose functions say so.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "impl/store/redis/redis_address.h"
#include "impl/store/results_store.h"

namespace safetune::stress {

class PauseGate;

bool this_build_has_redis();
// Why a build without the Redis store cannot use one, for every message that says so.
inline constexpr const char* kNoRedisInThisBuild = "this build has no Redis store (hiredis was not found when it was configured)";

// A redis-server that the run starts itself (--restart-store), on a Unix socket in a temporary
// folder with AOF on (redis_server_process.h): killed with SIGKILL and started again on its data
// between the generations. Stopped when it goes.
class OwnRedisServer {
 public:
  virtual ~OwnRedisServer() = default;
  virtual std::string address() const = 0;
  virtual void kill_and_restart() = 0;
};
// std::runtime_error when it cannot be started.
std::unique_ptr<OwnRedisServer> start_own_redis_server();

// A worker's connection to the store at `address` (its namespace the round's), its claims leases
// of `lease`, its views gated by `gate` when there is one (pause_gate.h). StoreError naming the
// address when the server cannot be reached.
std::unique_ptr<ResultsStore> open_redis_store(const RedisAddress& address, std::chrono::milliseconds lease,
                                               PauseGate* gate);

// StoreError, naming the server and why, unless it answers a PING.
void check_redis_server(const RedisAddress& address);

// Deletes every key under address.space (entries, leases, the fence, what was put aside).
// StoreError when the server cannot be reached.
void delete_redis_space(const RedisAddress& address);

}  // namespace safetune::stress
