// store-stale-lock: claims are lock files made with O_EXCL, and a lock file older than a fixed
// staleness time is taken to be a dead owner's and taken over. A live owner slower than that loses
// its exclusion, and two attempts run at once (R2); a dead owner's lock blocks everyone for that
// long. The shape of CubeCL's autotune lock (a 30 s timeout; 2 ms here, the scale of a sim
// attempt). The OFD lock of the directory store needs no timeout: the kernel drops it with its
// holder.
#pragma once

#include <chrono>

#include "stress/subjects/stores/store_subject.h"

namespace safetune::stress::subjects {

class StaleLockStore final : public ForwardingStore {
 public:
  static constexpr std::chrono::milliseconds kStaleAfter{2};

  StaleLockStore(DirectoryStore& directory, const SubjectEnvironment&) : ForwardingStore(directory) {}

  std::unique_ptr<StoreClaim> claim(const EntryId& id, ClaimMode mode) override;
};

}  // namespace safetune::stress::subjects
