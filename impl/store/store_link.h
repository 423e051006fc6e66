// What one autotuner needs of its results store: its entries' ids, lookups validated against its
// fingerprint and space, publication of its winners, and its warnings. The autotuner's own
// cross-process steps (autotuner.h, call_through_store) are written with it.
//
// Warnings: each rejected entry once, naming the file and the reason (it is then quarantined, so
// it is not read again), and the first store failure (after which the autotuner tunes locally:
// a failing store never hangs a call and never launches an unvalidated config).
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/config.h"
#include "impl/store/entry_codec.h"
#include "impl/store/results_store.h"

namespace safetune {

// What a call does when the store fails before its key is tuned (the server is down, the disk is
// full): tune locally, with one warning (the default: this process's winners are then not
// shared), or end with StoreFailed and tune nothing, for a cluster that must not tune once per
// process. Either way no call hangs on the store and none launches an unvalidated config.
enum class StoreFailurePolicy { TuneLocally, Fail };

// The call's error under StoreFailurePolicy::Fail: it names the key, the store and what failed.
struct StoreFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The store options of an autotuner.
struct StoreOptions {
  ResultsStore* store = nullptr;  // null: in memory only (each process tunes, nothing outlives it)
  DeviceIdentity device{};        // the device part of the entries' fingerprint
  std::function<void(const std::string&)> warn{};  // null: standard error
  StoreFailurePolicy on_failure = StoreFailurePolicy::TuneLocally;
};

// A lookup: a valid winner (its index in the space), an entry rejected (why, and its winner when
// it could be read), or no entry.
struct StoreLookup {
  enum Kind { Miss, Hit, Rejected } kind = Miss;
  std::size_t winner = 0;      // Hit
  std::string reason{};        // Rejected
  std::string rejected_winner{};  // Rejected, when known
};

class StoreLink {
 public:
  StoreLink(const StoreOptions& options, const std::string& kernel, const ConfigSpace& space);
  ~StoreLink();

  bool enabled() const { return store_ != nullptr; }
  // StoreFailurePolicy::Fail: a store step that fails before the attempt ends the call.
  bool failure_fails_calls() const { return on_failure_ == StoreFailurePolicy::Fail; }
  ResultsStore& store() const { return *store_; }
  // The store's graph of every process's waits (results_store.h), or null.
  SharedWaits* waits() const { return waits_; }
  EntryId id_of(std::string_view key) const;
  StoreLookup lookup(const EntryId& id) const;  // StoreError from the store passes through
  // Publishes the winner and the attempt's times; false when an entry was already there.
  bool publish(const StoreClaim& claim, const EntryId& id, std::size_t winner, const std::vector<BenchTime>& times) const;
  void warn_rejected(const EntryId& id, const std::string& reason) const noexcept;
  // The first failure only: the autotuner then tunes locally.
  void warn_failure(const char* what) const noexcept;
  // Runs a store step whose failure must not fail the call (a publication, a withdrawal, a
  // view): a failure is warned of (warn_failure), and false returned.
  template <class Step>
  bool warned_on_failure(const Step& step) const noexcept {
    try {
      step();
      return true;
    } catch (const std::exception& e) {
      warn_failure(e.what());
    } catch (...) {
      warn_failure("the results store failed");
    }
    return false;
  }

 private:
  ResultsStore* const store_;
  SharedWaits* const waits_;
  const std::function<void(const std::string&)> warn_;
  const StoreFailurePolicy on_failure_;
  const ConfigSpace& space_;
  const Fingerprint fingerprint_;
  // Kept out of this header, which the model checkers' builds include with their own atomics.
  struct FailureWarned;
  const std::unique_ptr<FailureWarned> failure_warned_;
};

}  // namespace safetune
