// The end-of-run summaries: the text form (one `name: value` per line) and the --json form
// (one object; its field names are a fixed contract, see DESIGN "The command line").
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/checker.h"
#include "options.h"

namespace safetune::stress {

struct StressSummary {
  const StressOptions& options;
  model::TraceStats stats;  // summed over every round
  std::vector<model::Violation> violations;
  std::uint64_t rounds = 0;
  double elapsed_s = 0;

  bool passed() const { return violations.empty(); }
};

nlohmann::json violations_json(const std::vector<model::Violation>& violations);
nlohmann::json stats_json(const model::TraceStats& stats);

nlohmann::json stress_json(const StressSummary& summary);
void write_stress_text(std::ostream& out, const StressSummary& summary);

// Adds `more` into `total`, field by field (for --seconds runs).
void accumulate(model::TraceStats& total, const model::TraceStats& more);

}  // namespace safetune::stress
