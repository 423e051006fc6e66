// The Redis store as a store kind (store_kinds.h): a fresh real redis-server for each test.
#pragma once

#include <chrono>
#include <memory>

#include "impl/store/redis/redis_store.h"
#include "tests/store/redis_server.h"

namespace safetune::testing {

struct RedisStoreKind {
  RedisServer server;
  // Leases short enough for a test to outlast, long enough for a heartbeat of a loaded machine.
  static constexpr std::chrono::milliseconds kLease{1000};
  std::unique_ptr<ResultsStore> open() const {
    return std::make_unique<RedisStore>(server.parsed(), RedisStoreOptions{.lease = kLease});
  }
  // A killed process's liveness key runs out within a lease.
  static constexpr std::chrono::milliseconds kDeathSeenAfter{kLease + kLease / 2};
};

}  // namespace safetune::testing
