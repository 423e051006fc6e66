// The trace checker: folds the model's step function over a trace.
#include "checker.h"

#include <numeric>
#include <optional>
#include <utility>

#include "model.h"

namespace safetune::model {

std::int64_t CheckResult::violations_total() const {
  return std::accumulate(violation_totals.begin(), violation_totals.end(), std::int64_t{0});
}

Checker::Checker(const Header& header, std::size_t max_listed_per_rule)
    : state_(std::make_unique<State>(initial_state(header))), max_listed_(max_listed_per_rule) {}

Checker::~Checker() = default;

void Checker::add(const Event& event) {
  ++result_.events;
  found_.clear();
  advance(*state_, event, found_);
  if (!found_.empty()) collect(found_);
}

CheckResult Checker::finish() {
  // Calls open where an incomplete check stopped may end later in the trace: not hangs.
  const auto hung_calls = state_->incomplete ? 0 : static_cast<std::int64_t>(state_->calls.size());
  result_.incomplete = state_->incomplete;
  std::vector<Violation> at_end = model::finish(*state_);
  result_.stats = state_->stats;  // after finish: it counts the duplicates judged at the end
  result_.stats.hung_calls = hung_calls;
  collect(at_end);
  return std::move(result_);
}

void Checker::collect(std::vector<Violation>& found) {
  for (Violation& violation : found) {
    if (repeats_on_same_event(violation)) continue;
    std::int64_t& total = result_.violation_totals[rule_index(violation.rule)];
    if (static_cast<std::size_t>(total++) < max_listed_) result_.violations.push_back(std::move(violation));
  }
}

// One event can break one rule in several ways (e.g. R4: a wrong winner and a missing bench);
// the report names the rule and the event once, and counts it once.
bool Checker::repeats_on_same_event(const Violation& violation) {
  if (violation.seqs.empty()) return false;
  std::optional<std::int64_t>& last = last_breaking_seq_[rule_index(violation.rule)];
  if (last == violation.seqs.back()) return true;
  last = violation.seqs.back();
  return false;
}

CheckResult check(const Trace& trace) {
  Checker checker(trace.header);
  for (const Event& event : trace.events) checker.add(event);
  return checker.finish();
}

}  // namespace safetune::model
