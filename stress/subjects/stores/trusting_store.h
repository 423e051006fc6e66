// store-trusts-any-entry: an entry is trusted whatever it says: its key, schema and fingerprint
// are not checked (this store stamps the reader's own on whatever it reads, so the autotuner's
// validation passes). Another key's entry, swapped in by --damage-store, is loaded and its winner
// launched: a load that is not the key's published winner (R12), and a launch of a config that is
// no valid answer (R5). The shape of Triton's cache_results, whose hits are trusted unvalidated.
#pragma once

#include "impl/store/entry_codec.h"
#include "stress/subjects/stores/store_subject.h"

namespace safetune::stress::subjects {

class TrustingStore final : public ForwardingStore {
 public:
  TrustingStore(DirectoryStore& directory, const SubjectEnvironment& environment);

  std::optional<std::string> read(const EntryId& id) override;

 private:
  const Fingerprint fingerprint_;  // the reader's own, stamped on every entry read
};

}  // namespace safetune::stress::subjects
