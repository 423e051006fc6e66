// Stress programs: what each worker thread does in one round, generated from a seed.
//
// Invariant: generate_program is a pure function of (shape, mix, seed, round). The same inputs
// give the same calls, keys, invalidations, hook actions, failing configs and device seed on
// every run and every compiler (it uses only std::mt19937_64 and modular arithmetic, never the
// implementation-defined std distributions). That is what makes the printed replay line replay.
//
// Nested calls only go from key i to a key j > i. Under the block policy a cycle of nested
// tunings (A tunes k0 and nests into k1 while B tunes k1 and nests into k0) is a real deadlock of
// the protocol, not a bug of the subject, so programs never contain one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace safetune::stress {

// Rates in [0, 1]. The default is plain calls only, so that a run's counts are exact.
struct ProgramMix {
  double invalidate = 0;      // a step is an invalidate instead of a call
  double reenter = 0;         // a call's first pre-bench hook re-enters the same key
  double nested = 0;          // ... or calls a later key (nested tuning)
  double throwing_hook = 0;   // ... or throws (a failed bench)
  double failing_config = 0;  // each config but the fallback fails to launch and to benchmark
  double failing_attempt = 0; // ... or throws before EVERY config: the whole attempt fails

  static ProgramMix plain() { return {}; }
  static ProgramMix full() { return {0.05, 0.05, 0.05, 0.05, 0.1}; }
};

// The named mixes `--mix` accepts. Besides plain and full, each names the situation one bug class
// lives in (a broken subject declares it as its scenario, stress/subject.h):
//   reentry: half of the owners' first hooks re-enter the same key, with invalidations so that
//            keys are tuned again and again;
//   nested:  half of them call a later key (nested tuning), with invalidations;
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

// The fallback config (index 0) never fails: the fallback policies promise a launch of it, so a
// failing fallback would make the reference break R6/R9 through no fault of its own.
inline constexpr int kFallbackConfig = 0;

// Throw fails the first benched config of the call; FailAll fails every config it benches.
enum class HookAction : std::uint8_t { None, Reenter, Nested, Throw, FailAll };

struct Step {
  bool invalidate = false;  // true: invalidate `key`; false: call `key`
  int key = 0;
  HookAction hook = HookAction::None;
  int nested_key = -1;      // the key a Nested hook calls (> key)
};

struct ThreadProgram {
  std::vector<Step> steps;
};

struct Program {
  std::vector<ThreadProgram> threads;
  std::vector<int> failing_configs;  // indexes into the config space, ascending
  std::uint64_t device_seed = 0;     // seeds the sim device: stream noise and bench times
};

Program generate_program(const ProgramShape& shape, const ProgramMix& mix, std::uint64_t seed,
                         std::uint64_t round);

// One line per thread and one for the faults; equal programs print equally (--print-program).
std::string describe(const Program& program);

// The trace names of keys: "k0", "k1", ...
std::string key_name(int key);

}  // namespace safetune::stress
