#include "stress/harness/progress.h"

#include <ostream>

namespace safetune::stress {
namespace {

constexpr std::chrono::seconds kQuietStart{1};
constexpr std::chrono::milliseconds kTerminalPeriod{200};
constexpr std::chrono::seconds kLogPeriod{5};

}  // namespace

void Progress::update(std::int64_t calls_done, Clock::time_point now) {
  if (now - start_ < kQuietStart) return;
  if (now - last_print_ < (terminal_ ? Clock::duration(kTerminalPeriod) : Clock::duration(kLogPeriod))) return;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(calls_done) / seconds : 0.0;
  out_ << (terminal_ ? "\r" : "") << "progress: " << calls_done << " calls, "
       << static_cast<std::int64_t>(rate) << " calls/s" << (terminal_ ? "   " : "\n");
  out_.flush();
  last_print_ = now;
  printed_ = true;
}

void Progress::finish() {
  if (terminal_ && printed_) out_ << '\n';
  printed_ = false;
}

}  // namespace safetune::stress
