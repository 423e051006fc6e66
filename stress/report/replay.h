// The one command line that replays a stress run: every flag that shapes the program or the
// subject, and the seed. Output flags (--trace, --chrome, --json) are left out on purpose, so
// that the line replays the same behaviour wherever it is pasted. It starts with the program's
// name (StressOptions::program), so that a user's binary with extra subjects replays itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "stress/cli/options.h"

namespace safetune::stress {

// `round`: the round of a --seconds run that failed (added as --round), or nullopt.
std::string replay_command(const StressOptions& options, std::optional<std::uint64_t> round);

}  // namespace safetune::stress
