// redis-unbounded-wait-on-dead-server: a Redis store that, when the server does not answer,
// waits for it to come back: each lookup (its view first) and each claim tries again every poll,
// for ever, where the reference's gives up within its connect and read timeouts (a StoreError: the
// call then tunes locally, the documented policy). Its scenario has no server at all (--store-down): every
// cold call waits on a dead server, and never ends (R7, the watchdog).
#pragma once

#include <thread>

#include "stress/subjects/redis_stores/redis_store_subject.h"

namespace safetune::stress::subjects {

class RedisUnboundedWaitStore final : public RedisForwardingStore {
 public:
  RedisUnboundedWaitStore(RedisStore& redis, const SubjectEnvironment&) : RedisForwardingStore(redis) {}

  std::optional<std::string> read(const EntryId& id) override {
    return until_the_server_answers([&] { return store_.read(id); });
  }
  std::unique_ptr<StoreView> view(const EntryId& id, ViewMode mode) override {
    return until_the_server_answers([&] { return store_.view(id, mode); });
  }
  std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) override {
    return until_the_server_answers([&] { return store_.claim(id, mode); });
  }

 private:
  template <class Step>
  auto until_the_server_answers(const Step& step) -> decltype(step()) {
    for (;;) {
      try {
        return step();
      } catch (const StoreError&) {
        std::this_thread::sleep_for(store_.options().longest_poll);
      }
    }
  }
};

}  // namespace safetune::stress::subjects
