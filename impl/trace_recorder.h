// An Observer that records what the autotuner and the harness do, as a model::Trace.
//
// Contract:
//   - Every event gets the next seq under one mutex, so seq order is the order in which the
//     reports were made; the autotuner reports at points that make that order correct
//     (impl/observer.h). t_ns is steady_clock time since the recorder was built, taken under the
//     same mutex, so it never decreases along seq.
//   - A thread is named by an integer: the index it gave bind_thread(), or else, at its first
//     event in this recorder, the next integer above every index this recorder has seen. Bind a
//     thread before its first event to keep its name.
//   - call_begin/call_end are for the harness that makes the calls (the autotuner does not report
//     them).
//   - Recording never does I/O and never calls back into an autotuner; it allocates only the
//     event's own strings (the event list is reserved up front).
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/observer.h"
#include "model/event.h"

namespace safetune {

// How a call ended: with the config it launched, or with an error.
struct CallOutcome {
  std::optional<std::string> config;
  std::optional<std::string> error;
  static CallOutcome returned(std::string config) { return {std::move(config), std::nullopt}; }
  static CallOutcome raised(std::string error) { return {std::nullopt, std::move(error)}; }
};

class TraceRecorder : public Observer {
 public:
  explicit TraceRecorder(model::Header header, std::size_t expected_events = 1 << 16);

  // Names the calling thread `index` in every recorder from now on.
  static void bind_thread(int index);

  void record(const ObservedEvent& event) noexcept override;
  void call_begin(std::string_view kernel, std::string_view key, int stream);
  void call_end(std::string_view kernel, std::string_view key, const CallOutcome& outcome,
                int stream = -1);

  model::Trace snapshot() const;  // the header and every event so far, in seq order
  std::size_t size() const;

 private:
  void append(model::Event event) noexcept;
  int thread_index_locked();  // needs mutex_

  const model::Header header_;
  const std::chrono::steady_clock::time_point start_;
  const std::uint64_t recorder_id_;  // tells this recorder's auto-assigned names from others'
  mutable std::mutex mutex_;
  std::vector<model::Event> events_;  // guarded by mutex_
  int next_free_index_ = 0;           // guarded by mutex_
};

}  // namespace safetune
