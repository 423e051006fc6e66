// `future-single-flight`: a correct autotuner built differently from the reference, as another
// team would write one: a per-key std::shared_future single-flight.
//   - A map from key to its flight (a shared_future of the winner's index, and the owner's
//     thread id), under one mutex held only to look the flight up or change the map.
//   - A key with no flight: the caller puts a new flight in the map and tunes outside any lock
//     (pre-bench hook, then the benchmark under the bench lock, each config in order); the
//     fastest success wins (a tie keeps the first); set_value publishes it.
//   - A flight that has a value is the tuned key: the call launches the winner.
//   - A flight in progress: its owner's own call (re-entry) gets the re-entry policy's answer;
//     another thread launches the fallback (policy fallback) or waits on the future (block),
//     unless that wait would close a cycle of waits (safetune's WaitGraph, as a team may reuse
//     it): then it gets the re-entry policy's answer too.
//   - Every config failed: the owner erases the flight, so that the next call retries, then
//     sets the failure as the future's exception, which every waiter's get() throws.
//   - invalidate() erases a flight that has a value; a flight in progress is left alone.
// White-box events go to the environment's observer when it has one (subject
// `future-single-flight-wb`): tune_end and the erase or publish happen under the mutex, and a
// wait_begin is reported under it before the wait, so that the order of events is the order of
// what readers can see. As a black-box subject the harness records benches, launches, calls and
// invalidates around it.
//
// WaiterTimeout makes it `timeout-retune`, the same team's subtly wrong version: a waiter that
// has waited that long tunes the key again itself.
#pragma once

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "impl/wait_graph.h"
#include "stress/subjects/subject.h"

namespace safetune::stress::subjects {

class FutureSingleFlight : public Subject {
 public:
  using WaiterTimeout = std::optional<std::chrono::microseconds>;
  explicit FutureSingleFlight(const SubjectEnvironment& environment, WaiterTimeout timeout = std::nullopt)
      : env_(environment), waiter_timeout_(timeout) {}

  Config call(const Invocation& inv) override;
  void invalidate(std::string_view key) override;

 private:
  struct Flight {
    std::shared_future<int> winner;  // the winner's index in the space, or the failure
    std::thread::id owner;
    const void* identity = nullptr;  // its promise's address, for the wait graph
  };

  Config own(const Invocation& inv, std::unique_lock<std::mutex>& lock);
  Config wait(const Invocation& inv, std::unique_lock<std::mutex>& lock, std::shared_future<int> winner);
  // Benches every config (no lock held) and returns the winner's index, or -1 with `failures`.
  int tune(const Invocation& inv, std::string& failures);
  Config launch(const Invocation& inv, const Config& config);
  Config reentry_answer(const Invocation& inv, const std::string& why);
  void report(model::EventKind kind, std::string_view key, int stream, const std::string* config = nullptr,
              const std::string* error = nullptr, std::optional<double> time_ns = std::nullopt) const;

  const SubjectEnvironment env_;
  const WaiterTimeout waiter_timeout_;
  std::mutex mutex_;
  std::map<std::string, Flight, std::less<>> flights_;  // guarded by mutex_
  WaitGraph wait_graph_;  // every walk of it holds mutex_ too
};

}  // namespace safetune::stress::subjects
