// The trace checker: folds the model's step function over a trace.
#include "checker.h"

#include <array>
#include <utility>

#include "model.h"

namespace safetune::model {

namespace {

// A broken trace can repeat one violation on most of its events; a report needs the first few of
// each rule, so each rule keeps at most this many.
constexpr std::size_t kMaxPerRule = 100;

class Collector {
 public:
  void add(std::vector<Violation> found) {
    for (auto& violation : found) add_one(std::move(violation));
  }
  std::vector<Violation> take() { return std::move(violations_); }

 private:
  void add_one(Violation violation) {
    auto& count = per_rule_.at(static_cast<std::size_t>(violation.rule) - 1);
    if (count >= kMaxPerRule || repeats_on_same_event(violation)) return;
    ++count;
    violations_.push_back(std::move(violation));
  }
  // One event can break one rule in several ways (e.g. R4: a wrong winner and a missing bench);
  // the report names the rule and the event once.
  bool repeats_on_same_event(const Violation& violation) const {
    for (auto it = violations_.rbegin(); it != violations_.rend(); ++it) {
      if (it->seqs.back() != violation.seqs.back()) return false;
      if (it->rule == violation.rule) return true;
    }
    return false;
  }

  std::vector<Violation> violations_;
  std::array<std::size_t, 10> per_rule_{};
};

std::int64_t open_calls(const State& state) {
  std::int64_t count = 0;
  for (const auto& [thread, calls] : state.threads) count += static_cast<std::int64_t>(calls.size());
  return count;
}

}  // namespace

CheckResult check(const Trace& trace) {
  Collector collector;
  State state = initial_state(trace.header);
  for (const Event& event : trace.events) {
    StepResult result = step(std::move(state), event);
    state = std::move(result.next);
    collector.add(std::move(result.violations));
  }
  CheckResult out;
  out.stats = state.stats;
  out.stats.hung_calls = open_calls(state);
  collector.add(finish(std::move(state)));
  out.violations = collector.take();
  return out;
}

}  // namespace safetune::model
