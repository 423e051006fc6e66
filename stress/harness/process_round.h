// A round of `safetune stress --processes P [--hosts H] [--store DIR|redis://...] [--restart]`:
// H x P worker processes (H groups with host names of their own), each running its own generated
// program (seed + its process number) with --threads threads on its own streams, all on one
// store, fresh for the round (round_store.h); with --restart, as many more after them on the same
// store. Each process records its white-box trace with the round's shared time origin; the files
// merge by t_ns (model/trace_merge.h) into the round's one trace, which the model checks as one
// run: R2 and R3 then count tunings per store (a machine's, or a cluster's). The faults:
// --kill-owners and --pause-owners (owner_kills.h), --damage-store and a power loss between the
// generations of a directory store, --restart-store and --store-down (round_store.h).
//
// A worker's own watchdog writes its trace so far and ends it when the round stalls (nothing
// recorded in any of its processes for the limit: round_progress.h), so a hang anywhere in the
// process group shows as R7 in the merged trace, and the round never hangs. A worker that
// could not start, lost events, or ended any other way than by its exit makes the round
// incomplete, with what was lost.
#pragma once

#include <cstdint>
#include <vector>

#include "stress/cli/options.h"
#include "stress/harness/runner.h"
#include "stress/subjects/subject.h"

namespace safetune::stress {

// What each worker process runs, when a test gives it rather than the seed: by process number
// (the first generation's are 0 .. P-1, a restart's P .. 2P-1), its program and its kill point
// (0: none; n: killed at its n-th bench, as --kill-owners would).
struct ProcessPlan {
  std::vector<Program> programs;
  std::vector<int> kill_at_bench;
};

// `plan`, when given, holds one entry per process of every generation.
RoundResult run_process_round(const StressOptions& options, const SubjectInfo& subject, std::uint64_t round,
                              const ProcessPlan* plan = nullptr);

}  // namespace safetune::stress
