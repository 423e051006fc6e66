// The end-of-run summaries: the text form (one `name: value` per line) and the --json form
// (one object; its field names are a fixed contract, see DESIGN "The command line").
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/checker.h"
#include "stress/cli/options.h"
#include "stress/harness/round_faults.h"

namespace safetune::stress {

struct StressSummary {
  const StressOptions& options;
  model::TraceStats stats{};    // summed over every round
  model::CheckResult result{};  // the last round's check: its violations, listed and counted
  std::optional<std::string> incomplete{};  // why the run could not be recorded or checked whole
  std::uint64_t rounds = 0;
  double elapsed_s = 0;
  RoundFaults faults{};  // summed over every round

  bool passed() const { return result.ok() && !incomplete; }
  // "pass", "fail" or "incomplete": a run that lost events is neither a pass nor a violation.
  std::string verdict() const { return incomplete ? "incomplete" : result.ok() ? "pass" : "fail"; }
};

nlohmann::json violations_json(const std::vector<model::Violation>& violations);
nlohmann::json stats_json(const model::TraceStats& stats);
// violations (listed), violations_total, violation_totals (by rule id), truncated.
nlohmann::json violation_counts_json(const model::CheckResult& result);
// `safetune check --json`: verdict, events, the violation counts and the stats.
nlohmann::json check_json(const model::CheckResult& result);

nlohmann::json stress_json(const StressSummary& summary);
void write_stress_text(std::ostream& out, const StressSummary& summary);

// Adds `more` into `total`, field by field (for --seconds runs).
void accumulate(model::TraceStats& total, const model::TraceStats& more);

}  // namespace safetune::stress
