// redis-last-writer-wins: a Redis store of plain GET and SET, with no lease. Every claim is granted
// at once, so every process whose first call misses tunes the key, and each publication SETs over
// the one before it: the last writer wins. The shape of Inductor's remote autotune cache (GET/SET
// with a TTL) and of Triton's (MGET/SET). Across processes: attempts overlap (R2) and a key tuned
// and published is tuned again (R3).
#pragma once

#include "stress/subjects/redis_stores/redis_store_subject.h"

namespace safetune::stress::subjects {

class RedisLastWriterWinsStore final : public RedisForwardingStore {
 public:
  RedisLastWriterWinsStore(RedisStore& redis, const SubjectEnvironment&) : RedisForwardingStore(redis) {}

  std::unique_ptr<StoreClaim> claim(const EntryId&, ClaimMode) override { return std::make_unique<StoreClaim>(); }
  bool publish(const StoreClaim&, const EntryId& id, const std::string& text) override {
    set_entry_unchecked(store_, id, text);
    return true;
  }
  // A claim of this store holds no lease, which the Redis store's own quarantine checks: a damaged
  // entry is simply dropped.
  void quarantine(const StoreClaim&, const EntryId& id, const std::string&) override {
    store_.run({"DEL", store_.key("entry", id)});
  }
};

}  // namespace safetune::stress::subjects
