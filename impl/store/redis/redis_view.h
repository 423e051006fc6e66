// A view of one entry of the Redis store (ResultsStore::view), held across every process and host
// on the server. Shared views are the members of a sorted set, each scored by when its lease ends
// on the server's clock; the Exclusive view is a lease key, taken first, so that no new Shared view
// begins while it waits out the ones held (scripts kViewShared, kViewExclusive). A view is held
// for one step, renewed meanwhile by the store's keeper (redis_keeper.h): a dead holder's runs out
// within a lease, and so does the view of a holder paused past it (SIGSTOP, docs/store.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "impl/store/results_store.h"

namespace safetune {

class RedisStore;

class RedisView final : public StoreView {
 public:
  // Waits for the view, as the directory store's does: its holders let it go after one step, and
  // a dead holder's runs out within a lease. StoreError when the server fails.
  RedisView(RedisStore& store, const EntryId& id, ResultsStore::ViewMode mode);
  ~RedisView() override;
  RedisView(const RedisView&) = delete;
  RedisView& operator=(const RedisView&) = delete;

 private:
  // One try: true when the view is held.
  bool try_hold();
  void let_go() noexcept;

  RedisStore& store_;
  const ResultsStore::ViewMode mode_;
  const std::string exclusive_key_;
  const std::string shared_key_;
  const std::string token_;
  std::optional<std::uint64_t> kept_;  // renewed by the store's keeper while held
};

}  // namespace safetune
