// The watchdog: turns a run in which nothing happens for too long into an R7 (termination)
// violation, so that `safetune stress` never hangs.
//
// It watches progress, not finished calls: any recorded event (a bench, a wait, a launch, a
// call_end) counts, so an attempt that benches ten thousand configs is not a hang, and a call
// that stops making events is. Watchdog::stalled is a pure function of what it is fed (progress
// counts and times), so it can be tested without threads.
#pragma once

#include <chrono>
#include <cstdint>

#include "model/checker.h"

namespace safetune::stress {

class Watchdog {
 public:
  using Clock = std::chrono::steady_clock;
  Watchdog(std::chrono::duration<double> limit, Clock::time_point start)
      : limit_(limit), last_change_(start) {}

  // True when `progress` has not changed for longer than the limit (measured from the last
  // change, or from the start).
  bool stalled(std::int64_t progress, Clock::time_point now);

 private:
  std::chrono::duration<double> limit_;
  std::int64_t last_progress_ = 0;
  Clock::time_point last_change_;
};

// `result` is the check of the trace recorded up to a stall: its R7 violations are exactly the
// calls still open, each with the model's state of its key and thread. Says of each that it is
// stuck, and for how long nothing happened.
void mark_stuck_calls(model::CheckResult& result, double stalled_seconds);

}  // namespace safetune::stress
