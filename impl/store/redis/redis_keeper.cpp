#include "impl/store/redis/redis_keeper.h"

#include <optional>
#include <vector>

#include "impl/store/redis/redis_connection.h"
#include "impl/store/redis/redis_scripts.h"
#include "impl/store/redis/redis_store.h"

namespace safetune {

RedisKeeper::RedisKeeper(RedisStore& store) : store_(store) {}

RedisKeeper::~RedisKeeper() {
  {
    const std::lock_guard guard(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t RedisKeeper::keep(Kind kind, std::string key, std::string token) {
  const std::lock_guard guard(mutex_);
  const std::uint64_t id = next_id_++;
  kept_.emplace(id, Kept{.kind = kind, .key = std::move(key), .token = std::move(token)});
  if (!thread_.joinable()) thread_ = std::thread([this] { beat(); });
  return id;
}

void RedisKeeper::give_up(std::uint64_t id) {
  const std::lock_guard guard(mutex_);
  kept_.erase(id);
}

// Each renewal checks, on the server, that the holder still holds what it renews: one given up
// (or taken over) meanwhile is not renewed.
void RedisKeeper::beat() {
  const auto lease = store_.options().lease;
  const std::string lease_ms = std::to_string(lease.count());
  std::optional<RedisConnection> connection;
  std::unique_lock lock(mutex_);
  while (!stop_.wait_for(lock, lease / 3, [&] { return stopping_; })) {
    std::vector<Kept> kept;
    for (const auto& [id, held] : kept_) kept.push_back(held);
    lock.unlock();
    try {
      if (!connection)
        connection.emplace(store_.address(), RedisConnection::Timeouts{.connect = store_.options().connect_timeout,
                                                                       .read = store_.options().read_timeout});
      for (const Kept& held : kept) {
        switch (held.kind) {
          case Kind::LeaseKey: connection->command({"EVAL", redis_scripts::kRenew, "1", held.key, held.token, lease_ms}); break;
          case Kind::SharedMember: connection->command({"EVAL", redis_scripts::kRenewShared, "1", held.key, held.token, lease_ms}); break;
          case Kind::Liveness: keep_living(*connection, held, lease_ms); break;
        }
      }
    } catch (const StoreError&) {
      connection.reset();  // tried again at the next beat; meanwhile what it keeps may run out
    }
    lock.lock();
  }
}

// XX sets the key only if it is there still: a lapse is counted before the key is set again, so
// that a claim taken after the new key is set was taken while this process was live again.
void RedisKeeper::keep_living(RedisConnection& connection, const Kept& held, const std::string& lease_ms) {
  if (connection.command({"SET", held.key, held.token, "PX", lease_ms, "XX"}).kind != RedisReply::Kind::Nil) return;
  lapses_.fetch_add(1, std::memory_order_acq_rel);
  connection.command({"SET", held.key, held.token, "PX", lease_ms});
}

}  // namespace safetune
