// Progress of a long stress run: calls done and calls/s.
//
// On a terminal it keeps ONE line updated in place (\r); otherwise (a log, a pipe) it writes a
// plain line at most every 5 s. It stays silent for the first second, so short runs print
// nothing. update() is called by the monitoring thread only; it is not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>

namespace safetune::stress {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  Progress(std::ostream& out, bool terminal, Clock::time_point start)
      : out_(out), terminal_(terminal), start_(start), last_print_(start) {}

  void update(std::int64_t calls_done, Clock::time_point now);
  // Ends the updating line, if one was drawn, so that later output starts on a fresh line.
  void finish();

 private:
  std::ostream& out_;
  bool terminal_;
  Clock::time_point start_;
  Clock::time_point last_print_;
  bool printed_ = false;
};

}  // namespace safetune::stress
