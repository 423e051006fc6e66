// The human violation report: for each violation, the rule id and name, the message, a short
// excerpt of the trace (the events involved, marked `>>`, and a few around each), the model
// state just before the breaking event, and the line that replays the run when there is one.
//
// Excerpts print events as trace lines (model::write_event), prefixed with their line number
// in the file when the trace was read from one, so a reader can find them.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/violation.h"

namespace safetune::stress {

// Events within this many positions of an involved event are shown as context.
inline constexpr int kExcerptContext = 2;

std::string trace_excerpt(const model::Trace& trace, const model::Violation& violation);

// `replay` is the full command line that replays the run (stress), or nullopt (check).
void write_violation_report(std::ostream& out, const model::Trace& trace,
                            const std::vector<model::Violation>& violations,
                            const std::optional<std::string>& replay);

}  // namespace safetune::stress
