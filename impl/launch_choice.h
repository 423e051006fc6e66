// LaunchChoice: a config the autotuner may launch, with everything a launch of it needs.
//
// The autotuner builds one per config of its space, and one for its fallback, when it is built,
// and never changes them. A tuned key's entry publishes a pointer to its winner's choice, so a
// call on a tuned key finds the config and its launch in one place, and every path that
// launches (tuned, waited, fallback) launches a choice the same way.
//
// Invariants: `config` is never null in a choice that is launched (the fallback's choice has
// none when there is no fallback, and is then never launched) and outlives the choice;
// `prepared`, when not null, is the kernel's prepared launch of exactly `config`.
#pragma once

#include "impl/config.h"
#include "impl/kernel.h"

namespace safetune {

struct LaunchChoice {
  const Config* config = nullptr;
  const PreparedLaunch* prepared = nullptr;  // null: Kernel::launch(inv, *config)
};

}  // namespace safetune
