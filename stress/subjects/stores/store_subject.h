// The store subjects: the reference autotuner over a results store with one bug. The bug lives in
// the store alone, so what catches it is what the store does to the reference's promises across
// processes (the scenario runs worker processes on a directory store or a Redis server, DESIGN.md
// "Across processes"). Each broken store wraps the run's store and breaks one of its steps.
//
// Adding one: a class derived from ForwardingStore (a directory store's) or ForwardingTo<RedisStore>
// (redis_stores/) that overrides the step its bug is in, with the constructor below, and a
// registry row with `.make = make_store_subject<ItsClass>` and a scenario with `.store = true`
// (and `.redis = true` for a Redis store's).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "impl/store/directory_store.h"
#include "stress/subjects/subject.h"

namespace safetune::stress::subjects {

// Does what the run's store (a DirectoryStore, a RedisStore) does; a broken store overrides the
// step its bug is in.
template <class Store>
class ForwardingTo : public ResultsStore {
 public:
  using Wrapped = Store;
  explicit ForwardingTo(Store& store) : store_(store) {}

  std::optional<std::string> read(const EntryId& id) override { return store_.read(id); }
  std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) override { return store_.claim(id, mode); }
  bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) override {
    return store_.publish(claim, id, text);
  }
  void quarantine(const StoreClaim& claim, const EntryId& id, const std::string& reason) override {
    store_.quarantine(claim, id, reason);
  }
  void withdraw(const EntryId& id) override { store_.withdraw(id); }
  std::unique_ptr<StoreView> view(const EntryId& id, ViewMode mode) override { return store_.view(id, mode); }
  std::string where(const EntryId& id) const override { return store_.where(id); }
  SharedWaits* waits() override { return store_.waits(); }

 protected:
  Store& store_;
};

using ForwardingStore = ForwardingTo<DirectoryStore>;

// The reference subject over `store`, which it owns.
std::unique_ptr<Subject> make_reference_over(const SubjectEnvironment& environment, std::unique_ptr<ResultsStore> store);

// What a store subject says it needs when the run's store is of another kind.
template <class Store>
std::string needed_store();
template <>
inline std::string needed_store<DirectoryStore>() {
  return "a directory store (--store DIR, or its scenario's own)";
}

// The run's store, as a `Store`; std::invalid_argument when the run has none of that kind (a store
// subject's scenario asks for its kind).
template <class Store>
Store& store_of(const SubjectEnvironment& environment) {
  auto* store = dynamic_cast<Store*>(environment.store);
  if (store == nullptr) throw std::invalid_argument("a store subject needs " + needed_store<Store>());
  return *store;
}

// BrokenStore(BrokenStore::Wrapped& the_runs_store, const SubjectEnvironment& environment).
template <class BrokenStore>
std::unique_ptr<Subject> make_store_subject(const SubjectEnvironment& environment) {
  using Store = typename BrokenStore::Wrapped;
  return make_reference_over(environment, std::make_unique<BrokenStore>(store_of<Store>(environment), environment));
}

}  // namespace safetune::stress::subjects
