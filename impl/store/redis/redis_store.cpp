#include "impl/store/redis/redis_store.h"

#include "impl/store/redis/redis_claim.h"
#include "impl/store/redis/redis_scripts.h"
#include "impl/store/redis/redis_view.h"

namespace safetune {

namespace {

// Length-prefixed, so that no two (kernel, key, device) give the same name.
std::string id_part(const EntryId& id) {
  std::string part;
  for (const std::string* piece : {&id.kernel, &id.key, &id.device}) part += std::to_string(piece->size()) + ":" + *piece;
  return part;
}

const RedisClaim& redis_claim(const StoreClaim& claim) {
  const auto* held = dynamic_cast<const RedisClaim*>(&claim);
  if (held == nullptr) throw StoreError("results store: a claim of another store was given to the Redis store");
  return *held;
}

}  // namespace

RedisStore::RedisStore(RedisAddress address, RedisStoreOptions options)
    : address_(std::move(address)),
      options_(options),
      connection_(address_, RedisConnection::Timeouts{.connect = options.connect_timeout, .read = options.read_timeout},
                  RedisConnection::Connect::AtFirstCommand),
      keeper_(*this),
      waits_(*this) {}

std::string RedisStore::key(std::string_view kind, const EntryId& id) const {
  return address_.space + ":" + std::string(kind) + ":" + id_part(id);
}

std::string RedisStore::where(const EntryId& id) const { return address_.show() + " key " + key("entry", id); }

RedisReply RedisStore::run(const std::vector<std::string_view>& argv) {
  std::lock_guard guard(mutex_);
  return connection_.command(argv);
}

std::optional<std::string> RedisStore::read(const EntryId& id) {
  RedisReply reply = run({"GET", key("entry", id)});
  if (reply.kind == RedisReply::Kind::Nil) return std::nullopt;
  return std::move(reply.text);
}

std::unique_ptr<StoreClaim> RedisStore::try_claim(const EntryId& id) {
  const RedisReply token = run({"EVAL", redis_scripts::kClaim, "2", key("lease", id), address_.space + ":fence",
                                std::to_string(options_.lease.count())});
  if (token.integer == 0) return nullptr;
  return std::make_unique<RedisClaim>(*this, id, std::to_string(token.integer));
}

// A waiter subscribes to the entry's channel first, then tries: a release between the two is
// then a message, not a lost wake-up. A lease that expires sends nothing: the poll finds it.
std::unique_ptr<StoreClaim> RedisStore::claim(const EntryId& id, ClaimMode mode) {
  if (auto held = try_claim(id); held || mode == ClaimMode::Try) return held;
  RedisConnection subscriber(address_, RedisConnection::Timeouts{.connect = options_.connect_timeout, .read = options_.read_timeout});
  subscriber.command({"SUBSCRIBE", key("released", id)});
  for (;;) {
    if (auto held = try_claim(id)) return held;
    subscriber.await_message(options_.longest_poll);
  }
}

bool RedisStore::publish(const StoreClaim& claim, const EntryId& id, const std::string& text) {
  const RedisClaim& held = redis_claim(claim);
  if (held.lost()) throw LeaseLost(where(id) + ": the claim's lease ran out before its publication");
  const RedisReply done =
      run({"EVAL", redis_scripts::kPublish, "3", key("lease", id), key("entry", id), key("released", id), held.token(), text});
  if (done.integer < 0) throw LeaseLost(where(id) + ": the claim's lease ran out, and another process took it, before its publication");
  return done.integer == 1;
}

void RedisStore::quarantine(const StoreClaim& claim, const EntryId& id, const std::string& reason) {
  const RedisClaim& held = redis_claim(claim);
  const std::string aside = key("quarantine", id) + ":" + held.token();
  const RedisReply done = run({"EVAL", redis_scripts::kQuarantine, "4", key("lease", id), key("entry", id), aside,
                               aside + ":reason", held.token(), reason});
  if (done.integer < 0) throw LeaseLost(where(id) + ": the claim's lease ran out before the entry's quarantine");
}

// Aside under a fresh token of the fence counter: every withdrawal keeps its own copy.
void RedisStore::withdraw(const EntryId& id) {
  const RedisReply stamp = run({"INCR", address_.space + ":fence"});
  run({"EVAL", redis_scripts::kWithdraw, "2", key("entry", id), key("withdrawn", id) + ":" + std::to_string(stamp.integer)});
}

std::unique_ptr<StoreView> RedisStore::view(const EntryId& id, ViewMode mode) {
  return std::make_unique<RedisView>(*this, id, mode);
}

}  // namespace safetune
