// --store-down: with no store to share, each worker process is a machine of its own, and the
// store-failure policy (tune locally, with one warning) has each tune every key it calls. So the
// round's merged trace is judged process by process: every rule within each process, none across
// them (across them, every tuning would be a duplicate, which the policy promises).
#pragma once

#include "model/checker.h"
#include "model/event.h"

namespace safetune::stress {

// The verdicts of the trace's processes, each checked as a trace of its own (the same header,
// its events in their order), added up: violations (each with its merged seqs), totals, stats.
// Incomplete when any process's verdict is.
model::CheckResult check_process_by_process(const model::Trace& trace);

}  // namespace safetune::stress
