// Stress programs: what each worker thread does in one round, generated from a seed.
//
// Invariant: generate_program is a pure function of (shape, mix, seed, round). The same inputs
// give the same calls, keys, invalidations, hook actions, failing configs and device seed on
// every run and every compiler (it draws only through dice.h, never through the
// implementation-defined std distributions). That is what makes the printed replay line replay.
//
// A nested call goes from its key to any other key, so programs contain cycles of nested tunings
// (A tunes k0 and nests into k1 while B tunes k1 and nests into k0). Waiting there would deadlock;
// a correct subject answers the call that would close the cycle as it answers re-entry (R11).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace safetune::stress {

// Rates in [0, 1]. The default is plain calls only, so that a run's counts are exact.
struct ProgramMix {
  double invalidate = 0;      // a step is an invalidate instead of a call
  // A call that owns an attempt: the pre-bench hook of one of its configs (any, drawn per call)...
  double reenter = 0;         // ... re-enters the same key
  double nested = 0;          // ... or calls another key (nested tuning, in any order)
  double throwing_hook = 0;   // ... or throws (a failed bench of that config)
  double failing_attempt = 0; // ... or every hook of the call throws: the whole attempt fails
  double failing_config = 0;  // each config of the space fails to launch and to benchmark
  double bench_lock = 0;      // the round shares one bench lock between the subject's benchmarks
  int time_levels = 0;        // > 0: the sim's times take this many values, so configs tie
  bool sync_noise = false;    // the sync policy's schedule noise: spurious wake-ups, delays before
                             // a lock is taken (StdSync::schedule_noise)
  // An event waits up to kRecorderDelay before it takes its seq (TraceRecorder::delay_before_seq),
  // so that an effect made before its report shows in the trace.
  double recorder_delay = 0;

  static ProgramMix plain() { return {}; }
  // Every path of the reference, each at a rate that shows in every default-length run.
  static ProgramMix full();
};

// The named mixes `--mix` accepts. Besides plain and full, each names the situation one bug class
// lives in (a broken subject declares it as its scenario, stress/subjects/subject.h):
//   reentry: half of the owners' first hooks re-enter the same key, with invalidations so that
//            keys are tuned again and again;
//   nested:  half of them call another key (nested tuning, cycles included), with invalidations;
//   faults:  seven in ten owners' attempts fail on every config, with 5% invalidations, so that
//            keys go cold and fail again all through the run (each failure with waiters is a
//            chance for a bug of error propagation to show).
// The reference passes under every one of them (the reference rows of the catch table,
// tests/stress/subject_catch_table.cpp).
const std::vector<std::string>& mix_names();
// The mix called `name`, which must be one of mix_names() (std::invalid_argument otherwise).
ProgramMix mix_named(const std::string& name);

struct ProgramShape {
  int threads = 16;
  int keys = 4;
  int configs = 16;
  int calls = 200;  // steps per thread
};

// Throw fails the config whose hook fires; FailAll fails every config the call benches.
enum class HookAction : std::uint8_t { None, Reenter, Nested, Throw, FailAll };

struct ProgramStep {
  bool invalidate = false;  // true: invalidate `key`; false: call `key`
  int key = 0;
  HookAction hook = HookAction::None;
  int hook_config = 0;      // the config (index) whose pre-bench hook (or benchmark) fires it
  int nested_key = -1;      // the key a Nested hook calls (!= key)
  // A Nested action fires inside the kernel's benchmark of hook_config, where the subject holds
  // its bench lock, rather than in the pre-bench hook before it (BenchmarkHookKernel).
  bool in_benchmark = false;
};

struct ThreadProgram {
  std::vector<ProgramStep> steps;
};

struct Program {
  std::vector<ThreadProgram> threads;
  std::vector<int> failing_configs;  // indexes into the config space, ascending
  std::uint64_t device_seed = 0;     // seeds the sim device: stream noise and bench times
  bool bench_lock = false;           // the round's subject shares one bench lock
  int time_levels = 0;               // as ProgramMix::time_levels
  bool sync_noise = false;           // as ProgramMix::sync_noise
  double recorder_delay = 0;         // as ProgramMix::recorder_delay
};

Program generate_program(const ProgramShape& shape, const ProgramMix& mix, std::uint64_t seed,
                         std::uint64_t round);

// One line per thread and one for the faults; equal programs print equally (--print-program).
std::string describe(const Program& program);

// The trace names of keys: "k0", "k1", ...
std::string key_name(int key);

}  // namespace safetune::stress
