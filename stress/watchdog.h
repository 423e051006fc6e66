// The watchdog: turns a run where no call completes for too long into an R7 (termination)
// violation, so that `safetune stress` never hangs.
//
// Watchdog::stalled is a pure function of what it is fed (completed-call counts and times), so
// it can be tested without threads. describe_hang reads a snapshot of the trace taken while the
// workers are stuck: the calls it names are exactly the call_begins with no call_end yet.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/violation.h"

namespace safetune::stress {

class Watchdog {
 public:
  using Clock = std::chrono::steady_clock;
  Watchdog(std::chrono::duration<double> limit, Clock::time_point start)
      : limit_(limit), last_change_(start) {}

  // True when `completed` has not changed for longer than the limit (measured from the last
  // change, or from the start).
  bool stalled(std::int64_t completed, Clock::time_point now);

 private:
  std::chrono::duration<double> limit_;
  std::int64_t last_completed_ = 0;
  Clock::time_point last_change_;
};

struct OpenCall {
  model::ThreadName thread;
  std::string kernel;
  std::string key;
  std::int64_t since_seq = 0;  // the seq of its call_begin
};

// The calls still open at the end of `trace`, in seq order of their call_begin.
std::vector<OpenCall> open_calls(const model::Trace& trace);

// One R7 violation naming every open call and how long nothing completed.
model::Violation hang_violation(const std::vector<OpenCall>& calls, double stalled_seconds);

}  // namespace safetune::stress
