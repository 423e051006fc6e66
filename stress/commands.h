// The three commands of `safetune`. Each returns the process exit code:
// 0 pass / valid, 1 violation, 2 usage or input error.
#pragma once

#include <iosfwd>

#include "options.h"

namespace safetune::stress {

int run_stress(const StressOptions& options);
int run_check(const CheckOptions& options);
int list_subjects(std::ostream& out);

}  // namespace safetune::stress
