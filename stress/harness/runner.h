// One stress round: a fresh subject on a fresh sim device runs one generated program with one
// worker thread (and one stream) per program thread, and the round's trace is returned.
//
// What the harness records, for every subject: call_begin before each call() and call_end
// after it returns or throws (a re-entrant or nested call from a hook nests inside its caller).
// For black-box subjects it also records benches and launches (RecordingKernel), invalidates,
// and the failed bench of an injected throwing hook, since such subjects report nothing.
//
// The calling thread watches the round while it runs: it reports progress and, when no event has
// been recorded for `watchdog_limit`, hands a snapshot of the trace so far to `on_hang`, which
// must end the process (std::_Exit) without joining the stuck workers. A worker process that is
// being killed (ProcessRole::kill_at_bench) is no stall: the watchdog stands down.
//
// A round that could not be recorded whole says so (RoundResult::incomplete): events the recorder
// could not store, a worker thread that could not start, a call that ran out of memory. Its trace
// is then no evidence of a rule broken or kept.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/event.h"
#include "stress/cli/options.h"
#include "stress/harness/program.h"
#include "stress/harness/round_faults.h"
#include "stress/subjects/subject.h"

namespace safetune::stress {

struct RoundResult {
  model::Trace trace;
  std::optional<std::string> incomplete;  // what was lost, when something was
  RoundFaults faults{};
};

struct RoundMonitor {
  std::chrono::duration<double> watchdog_limit{2.0};
  // A worker process's round (round_progress.h): the watchdog then reads the whole round's
  // progress, not only this process's. Null: this process's only.
  std::atomic<std::int64_t>* round_progress = nullptr;
  std::function<void(std::int64_t calls_completed_in_round)> on_progress;  // may be empty
  // Must not return. `incomplete` says what was lost, as in RoundResult.
  std::function<void(const model::Trace& snapshot, const std::optional<std::string>& incomplete)> on_hang;
};

// The kernel's trace name and its config space: C configs BLOCK=32, BLOCK=64, ...
inline constexpr const char* kStressKernelName = "stress_kernel";
ConfigSpace stress_config_space(int configs);
// The fallback of the fallback policies: BLOCK=16, in no space, so that a launch of the fallback
// is never mistaken for a tuned one (and no injected fault makes it fail).
Config stress_fallback_config();

// One worker process of a multi-process round (process_round.h).
struct ProcessRole {
  int process = 0;                                // its name in the trace
  std::optional<std::string> host{};              // --hosts: its host's name, which its trace name
                                                  // carries ("host-1/7")
  std::chrono::steady_clock::time_point origin{};  // t_ns counts from here in every process
  ResultsStore* store = nullptr;                  // shared with the other processes; null: none
  // --kill-owners: > 0, this process is killed at its n-th bench, inside the benchmark, where it
  // owns the attempt. `killed` gets its trace until then, ending with its exit (the recording is
  // frozen: no thread records, or acts on a report, after it); it has the harness send SIGKILL,
  // and never returns.
  int kill_at_bench = 0;
  std::function<void(model::Trace until_killed)> killed{};
  // --pause-owners: > 0, this process is stopped (SIGSTOP) at its n-th bench, where it owns the
  // attempt, past a Redis store's lease; `paused` returns once it was continued (SIGCONT).
  int pause_at_bench = 0;
  std::function<void()> paused{};
  // --stall-owners: > 0, this process's owner sleeps `stall_length` at its n-th bench, the process
  // running on (its lease's heartbeat too).
  int stall_at_bench = 0;
  std::chrono::milliseconds stall_length{};
};

RoundResult run_round(const StressOptions& options, const SubjectInfo& subject, const Program& program,
                      const RoundMonitor& monitor, const ProcessRole* role = nullptr);

}  // namespace safetune::stress
