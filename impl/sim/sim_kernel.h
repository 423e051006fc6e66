// SimKernel: a tunable "kernel" on the sim device whose best config is known in advance.
//
// Contract:
// - launch() enqueues one unit of real work (a short spin, `work` long, jittered) on the
//   caller's SimStream and returns without waiting, like a device launch.
// - benchmark() really runs: warm-up launches, a synchronize, then `repetitions` timed launches
//   each followed by a synchronize. But the time it RETURNS is expected_time_ns(key, config): a
//   pure function of (device seed, kernel name, key, config), so tests know the right winner.
// - Injected faults: configs in fail_launch make launch() and benchmark() throw LaunchError;
//   configs in fail_benchmark make only benchmark() throw. The faults are fixed at construction,
//   so a SimKernel is safe to call from any number of threads.
// - In no-op mode launch() does nothing (no queue, no counter): the hot-path benchmark measures
//   the autotuner, not the device. benchmark() then skips the real work too.
// - Streams passed in must be SimStreams (std::invalid_argument otherwise), except in no-op mode.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "impl/kernel.h"
#include "impl/sim/sim_device.h"

namespace safetune::sim {

struct SimKernelOptions {
  std::string name = "sim_kernel";       // non-empty; the trace's `kernel`
  int warmup = 1;                        // untimed launches before timing, in [0, 100]
  int repetitions = 3;                   // timed launches, in [1, 100]
  std::chrono::nanoseconds work{1000};   // real duration of one launch, in [0, 1 ms]
  double jitter = 0.0;                   // real duration varies by up to +-jitter*work, in [0, 1]
  bool noop = false;                     // launch does nothing (hot-path benchmark)
  std::vector<Config> fail_launch = {};   // launch and benchmark throw LaunchError
  std::vector<Config> fail_benchmark = {};  // benchmark throws LaunchError; launch works
  // 0: times are all but never equal. n > 0: each time is one of n values, so that configs tie
  // (the tie rule, R4: the config benchmarked first wins). In [0, 1000000].
  int time_levels = 0;
};

// Throws std::invalid_argument naming the option, its value and the kernel.
void validate(const SimKernelOptions& options);

class SimKernel final : public Kernel {
 public:
  // Throws std::invalid_argument on bad options (see validate).
  SimKernel(const SimDevice& device, SimKernelOptions options);

  const std::string& name() const override { return options_.name; }
  void launch(const Invocation& inv, const Config& config) override;
  double benchmark(const Invocation& inv, const Config& config) override;

  // The time benchmark() returns: an integer number of ns in [1000, 1000999], one of
  // time_levels values when that is set. Cheap (a hash).
  double expected_time_ns(std::string_view key, const Config& config) const;

  std::uint64_t launches() const { return launches_.load(std::memory_order_relaxed); }
  std::uint64_t benchmarks() const { return benchmarks_.load(std::memory_order_relaxed); }

 private:
  void enqueue_work(SimStream& stream);
  std::chrono::nanoseconds jittered_work();

  const std::uint64_t seed_;
  const SimKernelOptions options_;
  const std::unordered_set<std::string> fail_launch_;     // canonical config strings
  const std::unordered_set<std::string> fail_benchmark_;  // canonical config strings
  // Counters for tests and summaries; relaxed: they order nothing, they are only read after
  // the threads that bump them have been joined or synchronized.
  std::atomic<std::uint64_t> launches_{0};
  std::atomic<std::uint64_t> benchmarks_{0};
  std::atomic<std::uint64_t> work_items_{0};  // numbers each work item, to draw its jitter
};

// The exception a failing pre-bench hook throws.
struct InjectedHookFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using PreBenchHook = std::function<void(const Invocation&, const Config&)>;

// A pre_bench_hook that throws InjectedHookFailure for the `failing` configs and otherwise
// calls `next` (when set), so a fault can be stacked on a hook that nests or re-enters.
PreBenchHook failing_pre_bench_hook(std::vector<Config> failing, PreBenchHook next = {});

}  // namespace safetune::sim
