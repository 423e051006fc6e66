// The three commands of `safetune`. Each returns the process exit code:
// 0 pass / valid, 1 violation, 2 usage or input error, 3 incomplete.
#pragma once

#include <iosfwd>

#include "stress/cli/options.h"

namespace safetune::stress {

inline constexpr int kPass = 0;
inline constexpr int kViolation = 1;
inline constexpr int kInputError = 2;  // also: an output file that could not be written
// The run could not be recorded or checked whole (events lost, a worker that could not start,
// out of memory): neither a pass nor a violation.
inline constexpr int kIncomplete = 3;

int run_stress(const StressOptions& options);
int run_check(const CheckOptions& options);
int list_subjects(std::ostream& out);

}  // namespace safetune::stress
