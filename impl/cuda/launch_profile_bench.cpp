// BM_LaunchProfile (safetune-cuda-bench, issue 20): where a tuned launch's cost goes, found by
// time-stamp-counter brackets around the runtime's enqueue.
//
// Each launch is cut into three spans, in TSC ticks (a constant rate, so spans compare):
//   before: from the call's start to the enqueue's start. For the tuned call: the key's lookup (or
//     the handle's entry), the winner's acquire load, the prepared launch's virtual enqueue and the
//     stream's kind check. For the bare launch: the call alone.
//   driver: the runtime's enqueue of the empty kernel (<<<>>>, cudaLaunchKernel).
//   after: from the enqueue's return to the call's end: the returns, and the launch error's read
//     (for a prepared launch, its virtual finish).
// The bare launch and the profiled path alternate in blocks on one thread and its own stream, the
// order swapped each time, as in BM_LaunchPaired. through:0 profiles the tuned call, 1 the
// winner's prepared launch alone (no autotuner), 5 the call through the key's handle.
// Counters, TSC ticks per launch: bare_before, bare_driver, bare_after and tuned_before,
// tuned_driver, tuned_after (tuned: whichever path through:N names).
//
// Both sides make the same bracketed enqueue, so the brackets' own cost (rdtscp waits for the
// instructions before it) is on both sides alike and cancels in their differences. What the tuned
// side adds in `before` is its own instructions and their cache misses; in `driver`, the driver
// slowed by what the tuned path evicted or left cold; in `after`, the way back.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench_empty_kernel.h"
#include "bench_skip.h"
#include "cuda_device.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#define SAFETUNE_HAS_TSC 1
#else
#define SAFETUNE_HAS_TSC 0
#endif

namespace safetune::cuda {
namespace {

#if SAFETUNE_HAS_TSC
inline std::uint64_t ticks() {
  unsigned core;
  return __rdtscp(&core);
}
#else
inline std::uint64_t ticks() { return 0; }  // never timed: the benchmark skips (below)
#endif

// Where the last enqueue on this thread began and ended: written by the enqueue, read by the
// loop as soon as the call returns.
struct DriverSpan {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};
thread_local DriverSpan driver_span;

inline cudaError_t enqueue_bracketed(int block, cudaStream_t stream) {
  driver_span.start = ticks();
  const cudaError_t code = enqueue_empty(block, stream);
  driver_span.end = ticks();
  return code;
}

using BracketedKernel = EmptyKernelOf<enqueue_bracketed>;

// One side's spans, summed over its launches.
struct SpanTotals {
  std::uint64_t before = 0;
  std::uint64_t driver = 0;
  std::uint64_t after = 0;

  template <class Launch>
  void time(int launches, const Launch& launch) {
    for (int i = 0; i < launches; ++i) {
      const std::uint64_t start = ticks();
      launch();
      const std::uint64_t end = ticks();
      before += driver_span.start - start;
      driver += driver_span.end - driver_span.start;
      after += end - driver_span.end;
    }
  }

  void report(benchmark::State& state, const char* side, double launches) const {
    const auto per_launch = [&](std::uint64_t total) { return static_cast<double>(total) / launches; };
    state.counters[std::string(side) + "_before"] = per_launch(before);
    state.counters[std::string(side) + "_driver"] = per_launch(driver);
    state.counters[std::string(side) + "_after"] = per_launch(after);
  }
};

// The alternating blocks of bare and tuned launches, then their counters.
template <class Bare, class Tuned>
void profile(benchmark::State& state, const Bare& bare, const Tuned& tuned) {
  constexpr int kPairBlock = 256;
  SpanTotals bare_spans, tuned_spans;
  bool bare_first = true;
  for (auto _ : state) {
    bare_first ? bare_spans.time(kPairBlock, bare) : tuned_spans.time(kPairBlock, tuned);
    bare_first ? tuned_spans.time(kPairBlock, tuned) : bare_spans.time(kPairBlock, bare);
    bare_first = !bare_first;
  }
  const double launches = static_cast<double>(state.iterations()) * kPairBlock;
  bare_spans.report(state, "bare", launches);
  tuned_spans.report(state, "tuned", launches);
}

void BM_LaunchProfile(benchmark::State& state) {
  if (skip_without_cuda(state)) return;
  if (!SAFETUNE_HAS_TSC) return state.SkipWithError("the profile's brackets read x86-64's time-stamp counter");
  CudaDevice device;
  BracketedKernel kernel(device);
  Autotuner tuner(kernel, ConfigSpace::parse("BLOCK=32;BLOCK=64;BLOCK=128"), device.tuner_options());
  auto stream = device.new_stream();
  const Invocation inv{"tuned", *stream};
  const Config& winner = tuner.call(inv);
  const KeyHandle handle = tuner.handle(inv.key);
  const std::unique_ptr<PreparedLaunch> prepared = kernel.prepare(winner);
  const int block = config_param("empty", winner, "BLOCK");
  stream->synchronize();
  // Each path its own loop, chosen here: a choice inside the timed call would be timed with it.
  const auto bare = [&] { bare_launch<enqueue_bracketed>(block, stream->handle()); };
  switch (state.range(0)) {
    case 0: profile(state, bare, [&] { benchmark::DoNotOptimize(&tuner.call(inv)); }); break;
    case 1: profile(state, bare, [&] { prepared->launch(inv); }); break;
    case 5: profile(state, bare, [&] { benchmark::DoNotOptimize(&handle.call(*stream)); }); break;
    default: return state.SkipWithError("BM_LaunchProfile profiles through:0, 1 or 5");
  }
  stream->synchronize();
}

BENCHMARK(BM_LaunchProfile)->ArgName("through")->Arg(0)->Arg(1)->Arg(5)->MinTime(1.0)->UseRealTime();

}  // namespace
}  // namespace safetune::cuda
