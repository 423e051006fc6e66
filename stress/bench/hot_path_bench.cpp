// The hot path: what a call on an already-tuned key costs, and whether it scales with threads.
//
// BM_DirectLaunch calls the kernel's launch directly; BM_TunedLaunch makes the same launch
// through a tuned Autotuner, and BM_HandleLaunch through the tuned key's handle (no lookup). The kernel is the sim kernel in no-op mode, so the difference is the
// autotuner's own cost. Each benchmark thread uses its own stream; the key is tuned before any
// timing loop starts. Benchmark thread i is pinned to the i-th CPU (cpu_pin.h says why).
// overhead.py computes per-call overhead and relative scaling from
// `--benchmark_format=json` output. By default it runs 9 interleaved repetitions (main, below).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "impl/autotuner.h"
#include "impl/sim/sim_device.h"
#include "impl/sim/sim_kernel.h"
#include "stress/bench/cpu_pin.h"

namespace safetune::bench {
namespace {

constexpr const char* kKey = "n=4096";

// Shared by every benchmark thread, built once (function-local static: thread-safe init).
struct HotPath {
  sim::SimDevice device;
  sim::SimKernel kernel{device, {.name = "hot_path", .noop = true}};
  Autotuner tuner{kernel, ConfigSpace::parse("BLOCK=64;BLOCK=128;BLOCK=256;BLOCK=512"), {}};
};

HotPath& hot_path() {
  static HotPath shared;
  return shared;
}

void BM_DirectLaunch(benchmark::State& state) {
  const ScopedCpuPin pin(state.thread_index());
  HotPath& shared = hot_path();
  auto stream = shared.device.new_stream();
  const Invocation inv{kKey, *stream};
  const Config& config = shared.tuner.call(inv);  // the tuned winner, as the tuned loop uses
  // Through a laundered base pointer, so the compiler cannot devirtualize and delete the no-op
  // launch: the tuned path pays a virtual call too.
  Kernel* kernel = &shared.kernel;
  benchmark::DoNotOptimize(kernel);
  for (auto _ : state) {
    kernel->launch(inv, config);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_TunedLaunch(benchmark::State& state) {
  const ScopedCpuPin pin(state.thread_index());
  HotPath& shared = hot_path();
  auto stream = shared.device.new_stream();
  const Invocation inv{kKey, *stream};
  shared.tuner.call(inv);  // tunes the key (or waits for the thread that does) before timing
  for (auto _ : state) {
    benchmark::DoNotOptimize(&shared.tuner.call(inv));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_HandleLaunch(benchmark::State& state) {
  const ScopedCpuPin pin(state.thread_index());
  HotPath& shared = hot_path();
  auto stream = shared.device.new_stream();
  const KeyHandle handle = shared.tuner.handle(kKey);
  handle.call(*stream);  // tunes the key (or waits for the thread that does) before timing
  for (auto _ : state) {
    benchmark::DoNotOptimize(&handle.call(*stream));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_DirectLaunch)->Threads(1)->Threads(2)->Threads(16)->UseRealTime();
BENCHMARK(BM_TunedLaunch)->Threads(1)->Threads(2)->Threads(16)->UseRealTime();
BENCHMARK(BM_HandleLaunch)->Threads(1)->Threads(2)->Threads(16)->UseRealTime();

}  // namespace
}  // namespace safetune::bench

// Defaults that make the scaling figure hold still on a noisy machine (overhead.py says why).
// They go first, so the same flags given on the command line win.
int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  char repetitions[] = "--benchmark_repetitions=9";
  char interleaving[] = "--benchmark_enable_random_interleaving=true";
  args.insert(args.begin() + (args.empty() ? 0 : 1), {repetitions, interleaving});
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);  // argv[argc] is null, as for main's own argv
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
