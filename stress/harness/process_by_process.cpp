#include "stress/harness/process_by_process.h"

#include <map>
#include <memory>
#include <optional>

#include "stress/report/summary.h"

namespace safetune::stress {

model::CheckResult check_process_by_process(const model::Trace& trace) {
  // One streaming checker per process, fed in the merged order: no copy of the trace.
  std::map<std::optional<model::Name>, std::unique_ptr<model::Checker>> checkers;
  for (const model::Event& event : trace.events) {
    auto& checker = checkers[event.process];
    if (!checker) checker = std::make_unique<model::Checker>(trace.header);
    checker->add(event);
  }
  model::CheckResult total;
  for (auto& [process, checker] : checkers) {
    model::CheckResult one = checker->finish();
    total.violations.insert(total.violations.end(), one.violations.begin(), one.violations.end());
    for (std::size_t rule = 0; rule < total.violation_totals.size(); ++rule) total.violation_totals[rule] += one.violation_totals[rule];
    total.events += one.events;
    accumulate(total.stats, one.stats);
    if (one.incomplete && !total.incomplete) total.incomplete = std::move(one.incomplete);
  }
  return total;
}

}  // namespace safetune::stress
