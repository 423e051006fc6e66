// The store subjects: the reference autotuner over a results store with one bug. The bug lives in
// the store alone, so what catches it is what the store does to the reference's promises across
// processes (the scenario runs worker processes on a directory store, DESIGN.md "Across
// processes"). Each broken store wraps the run's DirectoryStore and breaks one of its steps.
//
// Adding one: a class derived from ForwardingStore that overrides the step its bug is in, with the
// constructor below, and a registry row with `.make = make_store_subject<ItsClass>` and a scenario
// with `.store = true`.
#pragma once

#include <memory>

#include "impl/store/directory_store.h"
#include "stress/subjects/subject.h"

namespace safetune::stress::subjects {

// Does what the run's directory store does; a broken store overrides the step its bug is in.
class ForwardingStore : public ResultsStore {
 public:
  explicit ForwardingStore(DirectoryStore& directory) : directory_(directory) {}

  std::optional<std::string> read(const EntryId& id) override { return directory_.read(id); }
  std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) override { return directory_.claim(id, mode); }
  bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) override {
    return directory_.publish(claim, id, text);
  }
  void quarantine(const StoreClaim& claim, const EntryId& id, const std::string& reason) override {
    directory_.quarantine(claim, id, reason);
  }
  void withdraw(const EntryId& id) override { directory_.withdraw(id); }
  std::unique_ptr<StoreView> view(const EntryId& id, ViewMode mode) override { return directory_.view(id, mode); }
  std::string where(const EntryId& id) const override { return directory_.where(id); }
  SharedWaits* waits() override { return directory_.waits(); }

 protected:
  DirectoryStore& directory_;
};

// The reference subject over `store`, which it owns.
std::unique_ptr<Subject> make_reference_over(const SubjectEnvironment& environment, std::unique_ptr<ResultsStore> store);

// The run's directory store; std::invalid_argument when the run has none (a store subject runs
// only with one: its scenario asks for it).
DirectoryStore& directory_store_of(const SubjectEnvironment& environment);

// BrokenStore(DirectoryStore& the_runs_store, const SubjectEnvironment& environment).
template <class BrokenStore>
std::unique_ptr<Subject> make_store_subject(const SubjectEnvironment& environment) {
  return make_reference_over(environment, std::make_unique<BrokenStore>(directory_store_of(environment), environment));
}

}  // namespace safetune::stress::subjects
