#include "stress/subjects/redis_stores/redis_store_subject.h"

namespace safetune::stress::subjects {

void set_entry_unchecked(RedisStore& store, const EntryId& id, const std::string& text) {
  store.run({"SET", store.key("entry", id), text});
  store.run({"PUBLISH", store.key("released", id), "published"});
}

}  // namespace safetune::stress::subjects
