// Writing a run's output files: the JSON Lines trace (--trace) and the Chrome timeline
// (--chrome). Each file is written whole or not at all: into a temporary file beside it, renamed
// into place only when every byte was written, and removed on any failure (out of memory
// included), so a reader never finds a half-written file under the name it asked for.
// Failures are reported on stderr, naming the file, and return false. The command line checks
// both paths before a run (cli.cpp), so a failure here is one that came later: a full disk, say.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/violation.h"

namespace safetune::stress {

// Writes `path` through `write`, whole or not at all (see above). `write` may throw; the
// temporary file is then removed and the exception passed on.
bool write_file_whole(const std::string& path, const std::function<void(std::ostream&)>& write);

bool write_trace_outputs(const model::Trace& trace, const std::vector<model::Violation>& violations,
                         const std::optional<std::string>& trace_path,
                         const std::optional<std::string>& chrome_path);

}  // namespace safetune::stress
