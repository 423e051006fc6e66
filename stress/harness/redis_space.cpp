#include "stress/harness/redis_space.h"

#include <string>

#include "impl/store/redis/redis_store.h"
#include "stress/harness/pause_gate.h"
#include "stress/harness/redis_server_process.h"

namespace safetune::stress {

bool this_build_has_redis() { return true; }

namespace {

class OwnServer final : public OwnRedisServer {
 public:
  std::string address() const override { return server_.address(); }
  void kill_and_restart() override { server_.kill_and_restart(); }

 private:
  RedisServerProcess server_;
};

}  // namespace

std::unique_ptr<OwnRedisServer> start_own_redis_server() { return std::make_unique<OwnServer>(); }

std::unique_ptr<ResultsStore> open_redis_store(const RedisAddress& address, std::chrono::milliseconds lease,
                                               PauseGate* gate) {
  const RedisStoreOptions options{.lease = lease};
  if (gate != nullptr) return std::make_unique<PauseGated<RedisStore>>(*gate, address, options);
  return std::make_unique<RedisStore>(address, options);
}

void check_redis_server(const RedisAddress& address) { RedisStore(address).run({"PING"}); }

// SCAN, not KEYS: the server may hold other namespaces, and SCAN never blocks it for long. A
// namespace has no ':' (redis_address.h), so "NS:*" matches this namespace's keys alone.
void delete_redis_space(const RedisAddress& address) {
  RedisStore store(address);
  const std::string pattern = address.space + ":*";
  std::string cursor = "0";
  do {
    const RedisReply page = store.run({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
    if (page.kind != RedisReply::Kind::Array || page.items.size() != 2)
      throw StoreError(address.show() + ": SCAN answered with something other than a cursor and a page of keys");
    cursor = page.items[0].text;
    std::vector<std::string_view> unlink{"UNLINK"};
    for (const RedisReply& key : page.items[1].items) unlink.push_back(key.text);
    if (unlink.size() > 1) store.run(unlink);
  } while (cursor != "0");
}

}  // namespace safetune::stress
