// The kinds of results store that keep the waits and views of all their processes, for the tests
// that hold for each (shared_waits_cases.h). A kind owns where its store lives, made fresh for
// each test, and opens a store there in any process (each forked child opens its own).
#pragma once

#include <chrono>
#include <memory>

#include "impl/posix/temp_directory.h"
#include "impl/store/directory_store.h"

namespace safetune::testing {

struct DirectoryStoreKind {
  posix::TempDirectory dir{"safetune-store"};
  std::unique_ptr<ResultsStore> open() const { return std::make_unique<DirectoryStore>(dir.path()); }
  // How long after a process is killed the store sees it dead: at once (its OFD locks go with it).
  static constexpr std::chrono::milliseconds kDeathSeenAfter{0};
  // How long a lease lasts unrenewed: there are none (OFD locks are held as long as they are).
  static constexpr std::chrono::milliseconds kLease{0};
};

}  // namespace safetune::testing
