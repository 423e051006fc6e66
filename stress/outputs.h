// Writing a run's trace files: the JSON Lines trace (--trace) and the Chrome timeline
// (--chrome). Failures are reported on stderr, naming the file, and return false. The command
// line checks both paths before a run (cli.cpp), so a failure here is one that came later: a
// full disk, say.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/violation.h"

namespace safetune::stress {

bool write_trace_outputs(const model::Trace& trace, const std::vector<model::Violation>& violations,
                         const std::optional<std::string>& trace_path,
                         const std::optional<std::string>& chrome_path);

}  // namespace safetune::stress
