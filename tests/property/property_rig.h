// What the property tests share: one generated scenario (configs, faults, policies, seed), the
// sim device and recorder built from it, recorded calls, and the winner the contract predicts.
//
// A scenario fixes everything random about one test case, so the case replays from its values.
// Faults are per config and the same for every key: a config that fails, fails everywhere.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "impl/autotuner.h"
#include "impl/sim/sim_device.h"
#include "impl/sim/sim_kernel.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"

namespace safetune::property {

enum class Fault : std::uint8_t { None, LaunchFails, BenchmarkFails, HookThrows };

struct Scenario {
  std::uint64_t seed = 1;
  std::vector<Fault> faults;  // one per config; configs are BLOCK=64, BLOCK=128, ...
  WaitPolicy wait = WaitPolicy::Block;
  ReentryPolicy reentry = ReentryPolicy::Error;
};
void showValue(const Scenario& scenario, std::ostream& out);

// The fallback config: outside the space and never failing, so a launch of it is recognisable.
inline constexpr const char* kFallback = "BLOCK=8";
inline constexpr const char* kKernel = "prop";

std::string key_name(int key);  // "k0", "k1", ...

// How one call ended, in the terms the contract promises.
struct Outcome {
  std::string key;
  std::optional<std::string> config;  // the launched config on success
  std::string error_kind;             // "reentrant", "tuning_failed", "launch_error", "other"
  bool operator==(const Outcome&) const = default;
};
void showValue(const Outcome& outcome, std::ostream& out);

// The device, kernel, recorder and autotuner for one scenario. The pre-bench hook runs the
// injected hook faults, then `hook_action` (when set) for the calls the test chooses.
class Rig {
 public:
  Rig(const Scenario& scenario, std::optional<sim::RandomDelayOptions> noise);

  // call_begin, the autotuner call, call_end; never throws: the outcome says how it ended.
  Outcome recorded_call(const std::string& key, Stream& stream);
  // The winner the contract predicts for `key`: argmin of expected_time_ns over the configs
  // with no fault (first in list order on a tie); nothing when every config fails.
  std::optional<std::string> expected_winner(const std::string& key) const;
  // The model's verdict on the trace so far: empty when it passes, else every violation.
  std::string violations() const;

  sim::PreBenchHook hook_action;  // set by the test; runs inside a bench, with no lock held
  sim::SimDevice device;
  ConfigSpace space;
  sim::SimKernel kernel;
  TraceRecorder recorder;
  Autotuner tuner;

 private:
  const Scenario scenario_;
};

}  // namespace safetune::property
