#include "impl/store/redis/redis_view.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "impl/store/hex_hash.h"
#include "impl/store/redis/redis_scripts.h"
#include "impl/store/redis/redis_store.h"

namespace safetune {

namespace {

std::string new_token() {
  static thread_local std::mt19937_64 bits{std::random_device{}()};
  return store_hash::hex64(bits()) + store_hash::hex64(bits());
}

}  // namespace

RedisView::RedisView(RedisStore& store, const EntryId& id, ResultsStore::ViewMode mode)
    : store_(store),
      mode_(mode),
      exclusive_key_(store.key("view-exclusive", id)),
      shared_key_(store.key("view-shared", id)),
      token_(new_token()) {
  for (auto pause = std::chrono::microseconds(50);; pause = std::min(2 * pause, std::chrono::microseconds(5000))) {
    try {
      if (try_hold()) {
        kept_ = store.keeper().keep(mode == ResultsStore::ViewMode::Shared ? RedisKeeper::Kind::SharedMember : RedisKeeper::Kind::LeaseKey,
                                    mode == ResultsStore::ViewMode::Shared ? shared_key_ : exclusive_key_, token_);
        return;
      }
    } catch (...) {
      let_go();
      throw;
    }
    std::this_thread::sleep_for(pause);
  }
}

RedisView::~RedisView() { let_go(); }

bool RedisView::try_hold() {
  const std::string lease = std::to_string(store_.options().lease.count());
  if (mode_ == ResultsStore::ViewMode::Shared)
    return store_.run({"EVAL", redis_scripts::kViewShared, "2", exclusive_key_, shared_key_, token_, lease}).integer == 1;
  return store_.run({"EVAL", redis_scripts::kViewExclusive, "2", exclusive_key_, shared_key_, token_, lease}).integer == 2;
}

// A view not let go runs out by itself: a failure here delays the next Exclusive one only.
void RedisView::let_go() noexcept {
  if (kept_) store_.keeper().give_up(*kept_);
  try {
    if (mode_ == ResultsStore::ViewMode::Shared)
      store_.run({"ZREM", shared_key_, token_});
    else
      store_.run({"EVAL", redis_scripts::kUnlock, "1", exclusive_key_, token_});
  } catch (...) {
  }
}

}  // namespace safetune
