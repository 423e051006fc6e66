// redis-lease-without-fencing: the Redis store's lease, taken and renewed as the reference's, but a
// publication that does not check that the lease still holds the owner's token: a plain SET. An
// owner paused past its lease (the scenario stops owners with SIGSTOP for twice it) has been taken
// over; continued, it publishes over the takeover's winner. Its attempt ends with a tune_end, not
// lease_lost, so the takeover's attempt overlapped one that kept the key (R2), and loads of the
// key disagree (R12). Fencing (the token checked by the publication script) is what prevents it.
#pragma once

#include "stress/subjects/redis_stores/redis_store_subject.h"

namespace safetune::stress::subjects {

class RedisUnfencedLeaseStore final : public RedisForwardingStore {
 public:
  RedisUnfencedLeaseStore(RedisStore& redis, const SubjectEnvironment&) : RedisForwardingStore(redis) {}

  bool publish(const StoreClaim&, const EntryId& id, const std::string& text) override {
    set_entry_unchecked(store_, id, text);
    return true;
  }
};

}  // namespace safetune::stress::subjects
