// The human violation report: for each listed violation, the rule id and name, the message, a
// short excerpt of the trace (the events involved, marked `>>`, and a few around each, with
// their line in the file when the trace came from one), the model state just before the breaking
// event, and the line that replays the run when there is one. When the checker listed only part
// of the violations it found, the report says how many there were in all, rule by rule.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "stress/report/excerpts.h"
#include "model/checker.h"

namespace safetune::stress {

// `replay` is the full command line that replays the run (stress), or nullopt (check).
void write_violation_report(std::ostream& out, ExcerptSource& excerpts, const model::CheckResult& result,
                            const std::optional<std::string>& replay);

// "750000 violations in all (R3: 749990, R2: 10); listed: the first 100 of each rule" when the
// list was cut; "" otherwise.
std::string truncation_note(const model::CheckResult& result);

}  // namespace safetune::stress
