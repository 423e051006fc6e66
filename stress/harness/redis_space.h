// The Redis side of a round's store (round_store.h). A build without the Redis store (no hiredis:
// the GPU runner's) links redis_space_missing.cpp instead, whose functions say so.
#pragma once

#include <chrono>
#include <memory>

#include "impl/store/redis/redis_address.h"
#include "impl/store/results_store.h"

namespace safetune::stress {

bool this_build_has_redis();

// A worker's connection to the store at `address` (its namespace the round's), its claims leases
// of `lease`. StoreError naming the address when the server cannot be reached.
std::unique_ptr<ResultsStore> open_redis_store(const RedisAddress& address, std::chrono::milliseconds lease);

// StoreError, naming the server and why, unless it answers a PING.
void check_redis_server(const RedisAddress& address);

// Deletes every key under address.space (entries, leases, the fence, what was put aside).
// StoreError when the server cannot be reached.
void delete_redis_space(const RedisAddress& address);

}  // namespace safetune::stress
