// One stress round: a fresh subject on a fresh sim device runs one generated program with one
// worker thread (and one stream) per program thread, and the round's trace is returned.
//
// What the harness records, for every subject: call_begin before each call() and call_end
// after it returns or throws (a re-entrant or nested call from a hook nests inside its caller).
// For black-box subjects it also records benches and launches (RecordingKernel), invalidates,
// and the failed bench of an injected throwing hook, since such subjects report nothing.
//
// The calling thread watches the round while it runs: it reports progress and, when no call
// has completed for `watchdog_limit`, hands a snapshot of the trace so far to `on_hang`, which
// must end the process (std::_Exit) without joining the stuck workers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "model/event.h"
#include "options.h"
#include "program.h"
#include "subject.h"

namespace safetune::stress {

struct RoundMonitor {
  std::chrono::duration<double> watchdog_limit{2.0};
  std::function<void(std::int64_t calls_completed_in_round)> on_progress;  // may be empty
  std::function<void(const model::Trace& snapshot)> on_hang;  // must not return
};

// The kernel's trace name and its config space: C configs BLOCK=32, BLOCK=64, ...
inline constexpr const char* kStressKernelName = "stress_kernel";
ConfigSpace stress_config_space(int configs);

model::Trace run_round(const StressOptions& options, const SubjectInfo& subject,
                       const Program& program, const RoundMonitor& monitor);

}  // namespace safetune::stress
