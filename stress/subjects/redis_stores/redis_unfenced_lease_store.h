// redis-lease-without-fencing: the Redis store's lease, taken and renewed as the reference's, but
// nothing that checks whose lease it is: a publication is a plain SET, and a claim never says it
// was lost (StoreClaim::lost), so its owner benches on to the end. An owner paused past its lease
// (the scenario stops owners with SIGSTOP for twice it) has been taken over; continued, it
// publishes over the takeover's winner. Its attempt ends with a tune_end, not lease_lost, so the
// takeover's attempt overlapped one that kept the key (R2), and loads of the key disagree (R12).
// Fencing (the token checked by the publication script) is what prevents it.
#pragma once

#include <memory>
#include <utility>

#include "stress/subjects/redis_stores/redis_store_subject.h"

namespace safetune::stress::subjects {

// The Redis store's claim (its lease and heartbeat), which never reports itself lost.
class UnfencedClaim final : public StoreClaim {
 public:
  explicit UnfencedClaim(std::unique_ptr<StoreClaim> lease) : lease_(std::move(lease)) {}
  const StoreClaim& lease() const { return *lease_; }

 private:
  std::unique_ptr<StoreClaim> lease_;
};

class RedisUnfencedLeaseStore final : public RedisForwardingStore {
 public:
  RedisUnfencedLeaseStore(RedisStore& redis, const SubjectEnvironment&) : RedisForwardingStore(redis) {}

  std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) override {
    std::unique_ptr<StoreClaim> lease = store_.claim(id, mode);
    if (!lease) return nullptr;
    return std::make_unique<UnfencedClaim>(std::move(lease));
  }
  bool publish(const StoreClaim&, const EntryId& id, const std::string& text) override {
    set_entry_unchecked(store_, id, text);
    return true;
  }
  void quarantine(const StoreClaim& claim, const EntryId& id, const std::string& reason) override {
    store_.quarantine(static_cast<const UnfencedClaim&>(claim).lease(), id, reason);
  }
};

}  // namespace safetune::stress::subjects
