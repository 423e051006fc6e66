// The Redis store subjects: the reference autotuner over a RedisStore with one bug (the shapes of
// the remote caches that Inductor and Triton ship), run by worker processes on a redis-server that
// the run starts itself (the scenario's `.redis`), or on the one --store names. Built only with
// the Redis store (hiredis), as is --store redis://...
#pragma once

#include <string>

#include "impl/store/redis/redis_store.h"
#include "stress/subjects/stores/store_subject.h"

namespace safetune::stress::subjects {

template <>
inline std::string needed_store<RedisStore>() {
  return "a Redis store (--store redis://HOST:PORT/NS or unix:///SOCKET, or its scenario's own server)";
}

using RedisForwardingStore = ForwardingTo<RedisStore>;

// The entry's text put in place with a plain SET, whatever is there and whoever holds the lease,
// and its waiters told: the publication of both broken Redis stores.
void set_entry_unchecked(RedisStore& store, const EntryId& id, const std::string& text);

}  // namespace safetune::stress::subjects
