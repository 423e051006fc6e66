#include "impl/store/redis/redis_claim.h"

#include <chrono>
#include <optional>

#include "impl/store/redis/redis_scripts.h"
#include "impl/store/redis/redis_store.h"

namespace safetune {

RedisClaim::RedisClaim(RedisStore& store, const EntryId& id, std::string token)
    : store_(store),
      lease_key_(store.key("lease", id)),
      channel_(store.key("released", id)),
      token_(std::move(token)),
      lapses_at_claim_(store.keeper().liveness_lapses()) {
  if (store.options().renew_leases) thread_ = std::thread([this] { heartbeat(); });
}

RedisClaim::~RedisClaim() {
  {
    std::lock_guard guard(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable()) thread_.join();
  try {  // a lease not given back expires by itself: a failure here delays the next owner only
    store_.run({"EVAL", redis_scripts::kRelease, "2", lease_key_, channel_, token_});
  } catch (...) {
  }
}

bool RedisClaim::lost() const {
  return lost_.load(std::memory_order_acquire) || store_.keeper().liveness_lapses() != lapses_at_claim_;
}

bool RedisClaim::held_now() const noexcept {
  if (lost()) return false;
  try {
    return store_.run({"GET", lease_key_}).text == token_;
  } catch (...) {  // the server cannot tell: the failure stands, as it would without a store
    return true;
  }
}

// Renews the lease every third of it, on a connection of its own (the store's may be busy with a
// slow command of another thread). The lease is lost when it holds another token, or when no
// renewal got through for a whole lease: by then it may have expired on the server.
void RedisClaim::heartbeat() {
  const auto lease = store_.options().lease;
  const std::string lease_ms = std::to_string(lease.count());
  auto renewed = std::chrono::steady_clock::now();
  std::optional<RedisConnection> connection;
  std::unique_lock lock(mutex_);
  while (!stop_.wait_for(lock, lease / 3, [&] { return stopping_; })) {
    if (lost()) return;  // renewed no more: it runs out, and a waiter takes the key over
    lock.unlock();
    try {
      if (!connection) connection.emplace(store_.address(), RedisConnection::Timeouts{.connect = store_.options().connect_timeout,
                                                                                      .read = store_.options().read_timeout});
      const RedisReply reply = connection->command({"EVAL", redis_scripts::kRenew, "1", lease_key_, token_, lease_ms});
      if (reply.integer != 1) lost_.store(true, std::memory_order_release);
      renewed = std::chrono::steady_clock::now();
    } catch (const StoreError&) {
      connection.reset();
      if (std::chrono::steady_clock::now() - renewed >= lease) lost_.store(true, std::memory_order_release);
    }
    lock.lock();
    if (lost_.load(std::memory_order_relaxed)) return;
  }
}

}  // namespace safetune
