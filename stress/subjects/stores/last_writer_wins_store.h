// store-last-writer-wins: no single flight. Every claim is granted at once, so every process whose
// first call misses tunes the key, and each publication replaces the entry before it: the last
// writer wins. The shape of Inductor's remote autotune cache (plain GET/SET) and of Triton's
// cache_results (a lock path computed but never used). Across processes: attempts overlap (R2)
// and a key tuned and published is tuned again (R3).
#pragma once

#include "stress/subjects/stores/store_subject.h"

namespace safetune::stress::subjects {

class LastWriterWinsStore final : public ForwardingStore {
 public:
  LastWriterWinsStore(DirectoryStore& directory, const SubjectEnvironment&) : ForwardingStore(directory) {}

  std::unique_ptr<StoreClaim> claim(const EntryId&, ClaimMode) override { return std::make_unique<StoreClaim>(); }
  // The bug's second half: whatever is there is moved out of the way, and this one goes in.
  bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) override {
    store_.withdraw(id);
    return store_.publish(claim, id, text);
  }
};

}  // namespace safetune::stress::subjects
