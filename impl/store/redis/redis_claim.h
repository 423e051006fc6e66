// A held claim of the Redis store: the entry's lease with its fencing token, kept alive by a
// heartbeat thread until the claim is destroyed, which gives the lease back (with
// RedisStoreOptions::renew_leases off, no heartbeat runs: the lease lasts one lease time).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "impl/store/results_store.h"

namespace safetune {

class RedisStore;

class RedisClaim final : public StoreClaim {
 public:
  RedisClaim(RedisStore& store, const EntryId& id, std::string token);
  ~RedisClaim() override;
  RedisClaim(const RedisClaim&) = delete;
  RedisClaim& operator=(const RedisClaim&) = delete;

  const std::string& token() const { return token_; }
  // The heartbeat found the lease taken, or could not renew it for a whole lease: the store
  // refuses this claim's writes anyway (its scripts check the token); this only says so sooner.
  // Or this process's liveness lapsed since the claim was taken (redis_keeper.h): the lease is
  // given up, as its attempt may stand in a cycle of waits that the graph no longer sees.
  bool lost() const override;
  // The lease on the server holds this claim's token.
  bool held_now() const noexcept override;

 private:
  void heartbeat();

  RedisStore& store_;
  const std::string lease_key_;
  const std::string channel_;
  const std::string token_;
  std::atomic<bool> lost_{false};
  const std::uint64_t lapses_at_claim_;  // RedisKeeper::liveness_lapses() when it was taken
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest is made; not started without renewal
};

}  // namespace safetune
