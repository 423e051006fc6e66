#include "stress/harness/watchdog.h"

#include <sstream>

namespace safetune::stress {

bool Watchdog::stalled(std::int64_t progress, Clock::time_point now) {
  if (progress != last_progress_) {
    last_progress_ = progress;
    last_change_ = now;
    return false;
  }
  return now - last_change_ > limit_;
}

void mark_stuck_calls(model::CheckResult& result, double stalled_seconds) {
  std::ostringstream prefix;
  prefix << "stuck: no event for " << stalled_seconds << " s; ";
  for (model::Violation& violation : result.violations)
    if (violation.rule == model::Rule::R7) violation.message = prefix.str() + violation.message;
}

}  // namespace safetune::stress
