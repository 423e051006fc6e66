// store-skips-fsync: a publication is written to a temp file and linked into place, as the
// directory store does, but nothing is fsynced: not the file, not the directory. Every reader sees
// whole entries while the machine stays up; after the restart's simulated power loss
// (stress/harness/power_loss.h) the entries whose names were never made durable are gone, and the
// second generation tunes again what the first published (R3: a published winner outlives a
// restart); a name made durable by another step's directory fsync, with its data not, is left
// torn (R12 in a fresh store). The shape of PyTorch TunableOp's CSV and of Triton's cache writes,
// which rename without fsync.
#pragma once

#include "stress/subjects/stores/store_subject.h"

namespace safetune::stress::subjects {

class NoFsyncStore final : public ForwardingStore {
 public:
  NoFsyncStore(DirectoryStore& directory, const SubjectEnvironment&) : ForwardingStore(directory) {}

  bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) override;
};

}  // namespace safetune::stress::subjects
