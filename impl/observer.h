// How the autotuner reports what it does, for traces (white-box events).
//
// Contract: the autotuner reports each event at a point that orders it correctly against every
// other thread's events: tune_end is reported before the winner becomes visible to any reader,
// wait_end after the wake-up it resumes from, invalidate after the winner is withdrawn. An
// Observer therefore only needs to give each report the next sequence number, under its own lock.
// record() must not call back into any autotuner and must not throw.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "../model/event.h"
#include "handled_error.h"

namespace safetune {

struct ObservedEvent {
  model::EventKind kind{};
  std::string_view kernel{};
  std::string_view key{};
  const std::string* config = nullptr;  // canonical config, when the event carries one
  const std::string* error = nullptr;   // error message, when the event carries one
  std::optional<double> time_ns{};      // bench time
  int stream = -1;                      // stream id, -1 when not applicable
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void record(const ObservedEvent& event) noexcept = 0;
};

// Reports an event whose `error` is the exception being handled (launch_failed, store_failed):
// call it only inside a catch block. The trace then says why the call may end with an error
// (R14). It never throws, so that the handled error is the one that goes on: a message that
// cannot be copied (out of memory) is replaced by a fixed one, and the event is still reported.
inline void report_handled_error(Observer* observer, model::EventKind kind, std::string_view kernel,
                                 std::string_view key, const std::string* config, int stream) noexcept {
  if (observer == nullptr) return;
  static const std::string kUncopied = "(the error message could not be copied)";
  ObservedEvent event{.kind = kind, .kernel = kernel, .key = key, .config = config, .error = &kUncopied,
                      .time_ns = std::nullopt, .stream = stream};
  try {
    const std::string error = handled_error_text();
    event.error = &error;
    observer->record(event);
  } catch (...) {
    observer->record(event);
  }
}

// The launch of `config` failed with the exception being handled; the catch block then rethrows,
// and the call ends with that error.
inline void report_launch_failed(Observer* observer, std::string_view kernel, std::string_view key,
                                 const std::string& config, int stream) noexcept {
  report_handled_error(observer, model::EventKind::LaunchFailed, kernel, key, &config, stream);
}

}  // namespace safetune
