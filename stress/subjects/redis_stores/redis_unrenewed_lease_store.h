// redis-lease-never-renewed: the Redis store's lease and fencing, but no heartbeat: a lease lasts
// one lease time from its claim, however long the attempt runs. An owner whose benchmark is slow
// (the scenario stalls owners mid-bench for twice the lease, their processes running on) loses
// its lease to a waiter of another process, which tunes the key again while the first attempt is
// still benching: a long attempt is duplicated. Fencing still stops the first owner's publication
// (its attempt ends as lease_lost), but no owner was paused (the trace says live_owners), so the
// overlap is R2: a live owner that renews its lease keeps it.
#pragma once

#include <memory>

#include "stress/subjects/redis_stores/redis_store_subject.h"

namespace safetune::stress::subjects {

// Its own RedisStore on the run's server and namespace, with renewal off: made before the
// forwarding base, which refers to it.
struct UnrenewedRedis {
  std::unique_ptr<RedisStore> unrenewed;
};

class RedisUnrenewedLeaseStore final : private UnrenewedRedis, public RedisForwardingStore {
 public:
  RedisUnrenewedLeaseStore(RedisStore& redis, const SubjectEnvironment&)
      : UnrenewedRedis{std::make_unique<RedisStore>(redis.address(), without_renewal(redis.options()))},
        RedisForwardingStore(*unrenewed) {}

 private:
  static RedisStoreOptions without_renewal(RedisStoreOptions options) {
    options.renew_leases = false;
    return options;
  }
};

}  // namespace safetune::stress::subjects
