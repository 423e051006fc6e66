// The autotuner's index from a key to its per-key entry: lock-free to read, locked to insert.
//
// Contract:
//   - find() takes no lock and writes nothing shared, so any number of threads may look up tuned
//     keys without contending (the hot path).
//   - find_or_insert() and find_or_on_miss() take the index's own mutex only when the key is not
//     there yet; they never block on any key's lock or on a tuning attempt.
//   - An entry, once inserted, is never moved or freed until the index is destroyed, so a pointer
//     from find() stays valid for the index's whole life.
// Implementation: a fixed array of buckets, each a singly linked list that only ever grows at
// its head. An entry's `next` is fixed when it is built, before it is published, so readers walk
// immutable links. A lookup costs one hash plus the entries that share its bucket.
//
// Entry must have a constructor Entry(std::string key, Entry* next) and public members
// `const std::string key` and `Entry* const next`.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "impl/short_key_hash.h"
#include "impl/sync.h"

namespace safetune {

template <class Sync, class Entry>
class KeyIndex {
 public:
  static constexpr std::size_t kBuckets = 256;

  Entry* find(std::string_view key) const {
    // acquire: pairs with the release in find_or_insert, so the entry's key and next are seen
    // fully built.
    for (Entry* entry = bucket(key).load(std::memory_order_acquire); entry != nullptr;
         entry = entry->next) {
      if (short_key_equal(entry->key, key)) return entry;
    }
    return nullptr;
  }

  // find(), with a miss confirmed under the insert mutex, where `on_miss` then runs: an insert
  // of `key` by another thread is ordered either before this lookup (and found) or after
  // on_miss returns. A plain find() may miss an entry that another thread inserted without
  // synchronizing with this one.
  template <class OnMiss>
  Entry* find_or_on_miss(std::string_view key, OnMiss&& on_miss) SAFETUNE_EXCLUDES(insert_mutex_) {
    if (Entry* found = find(key)) return found;
    typename Sync::Lock lock(insert_mutex_);
    if (Entry* found = find(key)) return found;
    on_miss();
    return nullptr;
  }

  Entry& find_or_insert(std::string_view key) SAFETUNE_EXCLUDES(insert_mutex_) {
    if (Entry* found = find(key)) [[likely]] return *found;
    return insert(key);
  }

 private:
  using Head = typename Sync::template Atomic<Entry*>;

  // Out of line, so that a lookup of a key already there is a few instructions in its caller.
  [[gnu::noinline]] Entry& insert(std::string_view key) SAFETUNE_EXCLUDES(insert_mutex_) {
    typename Sync::Lock lock(insert_mutex_);
    if (Entry* found = find(key)) return *found;  // another thread inserted it meanwhile
    auto& head = bucket(key);
    // relaxed: every store to a head happens under insert_mutex_, which we hold.
    auto entry = std::make_unique<Entry>(std::string(key), head.load(std::memory_order_relaxed));
    Entry* published = entry.get();
    owned_.mut().push_back(std::move(entry));
    // release: readers that see this pointer must also see the entry fully constructed.
    head.store(published, std::memory_order_release);
    return *published;
  }

  Head& bucket(std::string_view key) const {
    return heads_[short_key_hash(key) % kBuckets];
  }

  mutable std::array<Head, kBuckets> heads_{};
  typename Sync::Mutex insert_mutex_;
  typename Sync::template Var<std::vector<std::unique_ptr<Entry>>> owned_
      SAFETUNE_GUARDED_BY(insert_mutex_);
};

}  // namespace safetune
