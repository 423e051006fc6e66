// store-writes-in-place: an entry is written straight into its own file, with no temp file and no
// rename, a piece at a time (as a large entry or a slow disk writes it). A reader in another
// process that looks the entry up meanwhile reads part of it: a torn entry, which it rejects as a
// miss (never launching it), although the store started empty and only the run's processes wrote
// it (R12: a published entry is whole). A writer killed mid-write would leave it torn for good.
// The shape of PyTorch TunableOp's CSV, rewritten in place at exit, and of TensorRT-LLM's cache
// (unparseable JSON after a kill mid-write).
#pragma once

#include <chrono>

#include "stress/subjects/stores/store_subject.h"

namespace safetune::stress::subjects {

class InPlaceStore final : public ForwardingStore {
 public:
  static constexpr std::size_t kPieceBytes = 8;
  static constexpr std::chrono::microseconds kBetweenPieces{500};

  InPlaceStore(DirectoryStore& directory, const SubjectEnvironment&) : ForwardingStore(directory) {}

  bool publish(const StoreClaim& claim, const EntryId& id, const std::string& text) override;
};

}  // namespace safetune::stress::subjects
