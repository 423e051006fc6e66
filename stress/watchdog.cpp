#include "watchdog.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace safetune::stress {

bool Watchdog::stalled(std::int64_t completed, Clock::time_point now) {
  if (completed != last_completed_) {
    last_completed_ = completed;
    last_change_ = now;
    return false;
  }
  return now - last_change_ > limit_;
}

std::vector<OpenCall> open_calls(const model::Trace& trace) {
  std::map<model::ThreadName, std::vector<OpenCall>> stacks;
  for (const model::Event& event : trace.events) {
    std::vector<OpenCall>& stack = stacks[event.thread];
    if (event.kind == model::EventKind::CallBegin) {
      stack.push_back({event.thread, event.kernel, event.key, event.seq});
    } else if (event.kind == model::EventKind::CallEnd && !stack.empty()) {
      stack.pop_back();
    }
  }
  std::vector<OpenCall> open;
  for (auto& [thread, stack] : stacks) open.insert(open.end(), stack.begin(), stack.end());
  std::sort(open.begin(), open.end(),
            [](const OpenCall& a, const OpenCall& b) { return a.since_seq < b.since_seq; });
  return open;
}

model::Violation hang_violation(const std::vector<OpenCall>& calls, double stalled_seconds) {
  std::ostringstream message;
  message << "hang: no call completed for " << stalled_seconds << " s; " << calls.size()
          << " call(s) still open:";
  model::Violation violation{model::Rule::R7, {}, "", ""};
  for (const OpenCall& call : calls) {
    message << " [thread " << call.thread.show() << ", kernel " << call.kernel << ", key "
            << call.key << ", since seq " << call.since_seq << "]";
    violation.seqs.push_back(call.since_seq);
  }
  violation.message = message.str();
  return violation;
}

}  // namespace safetune::stress
