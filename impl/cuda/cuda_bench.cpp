// safetune-cuda-bench (Google Benchmark; --benchmark_format=json): issue 5's figures on a GPU.
//
//   BM_BareLaunch / BM_TunedLaunch: an empty kernel launched with cudaLaunchKernel directly,
//     against the same launch through a tuned Autotuner, at 1, 4 and 16 threads, each thread on
//     its own stream. items_per_second is the aggregate launch rate.
//   BM_LaunchPaired/through:0: the same two launches, alternated in blocks within one run in
//     each thread (each on its own stream), at 1, 4 and 16 threads, each side through 8 copies of
//     its loop at different addresses; counter tuned_over_bare is the cost ratio, averaged over
//     the threads (issue 5 asks <= 1.01).
//     through:5 makes the tuned call through the key's handle (impl/autotuner_key_handle.h: no
//     lookup of the key), and through:3 the bare launch again (a control, whose ratio is the
//     method's own bias), at the same thread counts. At 1 thread only: through:1 replaces the
//     tuned call by the winner's prepared launch alone (no autotuner at all), through:2 by the
//     kernel object's launch(inv, winner), which reads the config every time, and through:4 by
//     the tuned call of an autotuner whose kernel prepares nothing (what prepared launches save).
//   BM_ColdKeys/parallel:1 and /parallel:0: 8 distinct cold keys of the fp32 matmul tuned by 8
//     threads at once, against one thread tuning them one after another (bench lock on).
//   BM_TuningQuality/size: tunes the matmul at one size, then re-measures every config with 10
//     times the repetitions; counter `ratio` = re-measured winner / re-measured best (<= 1.03).
// Without a GPU every benchmark reports SkipWithError naming the reason.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_empty_kernel.h"
#include "bench_skip.h"
#include "cuda_device.h"
#include "matmul_kernel.h"

namespace safetune::cuda {
namespace {

// The empty kernel, preparing nothing: its autotuner launches through Kernel::launch on every
// call (through:4), which shows what prepared launches save.
class UnpreparedEmptyKernel final : public EmptyKernel {
 public:
  using EmptyKernel::EmptyKernel;
  std::unique_ptr<PreparedLaunch> prepare(const Config&) override { return nullptr; }
};

// Built once, shared by every benchmark thread (function-local static: thread-safe init).
struct LaunchFixture {
  CudaDevice device;
  EmptyKernel kernel{device};
  Autotuner tuner{kernel, ConfigSpace::parse("BLOCK=32;BLOCK=64;BLOCK=128"), device.tuner_options()};
};

LaunchFixture& launch_fixture() {
  static LaunchFixture fixture;
  return fixture;
}

// The tuned key's winner (tuned once, by whichever benchmark thread gets here first), so the bare
// loop makes exactly the launch the tuned loop makes: a different block size would put a
// difference in GPU-side work into a comparison of CPU-side call costs.
int tuned_block(LaunchFixture& fixture, Stream& stream) {
  return config_param("empty", fixture.tuner.call(Invocation{"tuned", stream}), "BLOCK");
}

void BM_BareLaunch(benchmark::State& state) {
  if (skip_without_cuda(state)) return;
  LaunchFixture& fixture = launch_fixture();
  auto stream = fixture.device.new_stream();
  const int block = tuned_block(fixture, *stream);
  stream->synchronize();
  for (auto _ : state) {
    bare_launch(block, stream->handle());
  }
  stream->synchronize();
  state.SetItemsProcessed(state.iterations());
}

void BM_TunedLaunch(benchmark::State& state) {
  if (skip_without_cuda(state)) return;
  LaunchFixture& fixture = launch_fixture();
  auto stream = fixture.device.new_stream();
  const Invocation inv{"tuned", *stream};
  fixture.tuner.call(inv);  // tunes once (the first thread), outside the timed loop
  stream->synchronize();
  for (auto _ : state) benchmark::DoNotOptimize(&fixture.tuner.call(inv));
  stream->synchronize();
  state.SetItemsProcessed(state.iterations());
}

constexpr int kPairBlock = 256;
// Copies of each side's loop at distinct addresses (below).
constexpr int kPlacements = 8;

// One block of kPairBlock launches, `body` inlined into the loop: a function of its own for
// each (Copy, Body), so each copy is the same machine code at its own address. noipa keeps the
// copies apart (no inlining into the caller, no folding of identical copies).
template <int Copy, class Body>
[[gnu::noipa]] void launch_block_at(const Body& body) {
  for (int i = 0; i < kPairBlock; ++i) body();
}

using LaunchBlock = std::function<void()>;

template <int First, class Body, std::size_t... Copy>
std::vector<LaunchBlock> launch_blocks_at(const Body& body, std::index_sequence<Copy...>) {
  return {[&body] { launch_block_at<First + static_cast<int>(Copy)>(body); }...};
}

// kPlacements copies of one side's block, numbered from First: copies of different sides never
// share a number, so the control's two sides (the same body) are still at different addresses.
template <int First, class Body>
std::vector<LaunchBlock> placed_launch_blocks(const Body& body) {
  return launch_blocks_at<First>(body, std::make_index_sequence<kPlacements>{});
}

// Bare and tuned launches of one thread alternate in blocks of kPairBlock, the order swapped
// every iteration, so that a drift of the host's clock or the driver's state in the middle of
// the run moves both alike: separate benchmarks, seconds apart, differ by more than the 1% this
// is meant to resolve. With several threads each pairs its own blocks on its own stream, so the
// other threads load both sides alike.
// Where a loop's code lands moves its cost by up to 1% (issue 20's placement test on the H100:
// the same bare loop at four addresses in one process, 0.996 to 1.010 of the bare loop), as
// much as the goal's margin. So each side runs its blocks through kPlacements copies of its loop
// in turn, each copy with both orders, and each side's figure is a mean over its placements.
// Counters: bare_ns and tuned_ns per launch, tuned_over_bare; each the mean over the threads of
// each thread's own figure.
void BM_LaunchPaired(benchmark::State& state) {
  if (skip_without_cuda(state)) return;
  using Clock = std::chrono::steady_clock;
  LaunchFixture& fixture = launch_fixture();
  auto stream = fixture.device.new_stream();
  const Invocation inv{"tuned", *stream};
  const Config& winner = fixture.tuner.call(inv);  // tunes, unless another benchmark or thread did
  const KeyHandle handle = fixture.tuner.handle(inv.key);
  const int block = config_param("empty", winner, "BLOCK");
  stream->synchronize();
  UnpreparedEmptyKernel unprepared(fixture.device);
  // Its space is the winner alone, so it launches exactly what the tuned call launches.
  Autotuner unprepared_tuner(unprepared, ConfigSpace({winner}), fixture.device.tuner_options());
  unprepared_tuner.call(inv);
  const std::unique_ptr<PreparedLaunch> prepared = fixture.kernel.prepare(winner);
  // What is put against the bare launch (through:N): 0 the tuned call; 1 the winner's prepared
  // launch, without the autotuner's lookup; 2 the kernel object's launch(inv, winner), which
  // reads the config on every call; 3 the bare launch itself, a control that shows the method's
  // own bias (it should be 1.000); 4 the tuned call of an autotuner whose kernel prepares nothing;
  // 5 the tuned call through the key's handle.
  const auto bare = [&] { bare_launch(block, stream->handle()); };
  const auto tuned_call = [&] { benchmark::DoNotOptimize(&fixture.tuner.call(inv)); };
  const auto prepared_launch = [&] { prepared->launch(inv); };
  const auto kernel_launch = [&] { fixture.kernel.launch(inv, winner); };
  const auto unprepared_call = [&] { benchmark::DoNotOptimize(&unprepared_tuner.call(inv)); };
  const auto handle_call = [&] { benchmark::DoNotOptimize(&handle.call(*stream)); };
  const std::vector<LaunchBlock> bare_blocks = placed_launch_blocks<0>(bare);
  const std::vector<LaunchBlock> tuned_blocks = [&] {
    switch (state.range(0)) {
      case 0: return placed_launch_blocks<kPlacements>(tuned_call);
      case 1: return placed_launch_blocks<kPlacements>(prepared_launch);
      case 2: return placed_launch_blocks<kPlacements>(kernel_launch);
      case 4: return placed_launch_blocks<kPlacements>(unprepared_call);
      case 5: return placed_launch_blocks<kPlacements>(handle_call);
      default: return placed_launch_blocks<kPlacements>(bare);
    }
  }();
  Clock::duration bare_time{}, tuned_time{};
  long long iteration = 0;
  for (auto _ : state) {
    // Two iterations per placement, one in each order, so no placement keeps one order.
    const bool bare_first = iteration % 2 == 0;
    const auto placement = static_cast<std::size_t>(iteration / 2 % kPlacements);
    const LaunchBlock& first = bare_first ? bare_blocks[placement] : tuned_blocks[placement];
    const LaunchBlock& second = bare_first ? tuned_blocks[placement] : bare_blocks[placement];
    const auto t0 = Clock::now();
    first();
    const auto t1 = Clock::now();
    second();
    const auto t2 = Clock::now();
    bare_time += bare_first ? t1 - t0 : t2 - t1;
    tuned_time += bare_first ? t2 - t1 : t1 - t0;
    ++iteration;
  }
  stream->synchronize();
  const double launches = static_cast<double>(state.iterations()) * kPairBlock;
  const double bare_ns = std::chrono::duration<double, std::nano>(bare_time).count() / launches;
  const double tuned_ns = std::chrono::duration<double, std::nano>(tuned_time).count() / launches;
  // kAvgThreads: each thread's figure, averaged (the default would add them up).
  state.counters["bare_ns"] = benchmark::Counter(bare_ns, benchmark::Counter::kAvgThreads);
  state.counters["tuned_ns"] = benchmark::Counter(tuned_ns, benchmark::Counter::kAvgThreads);
  state.counters["tuned_over_bare"] = benchmark::Counter(tuned_ns / bare_ns, benchmark::Counter::kAvgThreads);
}

void tune_keys(CudaDevice& device, Autotuner& tuner, int first, int count) {
  auto stream = device.new_stream();
  for (int key = first; key < first + count; ++key) tuner.call(Invocation{"key" + std::to_string(key), *stream});
  stream->synchronize();
}

void BM_ColdKeys(benchmark::State& state) {
  if (skip_without_cuda(state)) return;
  constexpr int kKeys = 8;
  const bool parallel = state.range(0) != 0;
  CudaDevice device;
  MatmulKernel matmul(device, 512, 512, 512);
  for (auto _ : state) {
    Autotuner tuner(matmul, MatmulKernel::config_space(), device.tuner_options());  // every key cold
    if (!parallel) {
      tune_keys(device, tuner, 0, kKeys);
      continue;
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < kKeys; ++t) threads.emplace_back([&, t] { tune_keys(device, tuner, t, 1); });
    for (std::thread& thread : threads) thread.join();
  }
}

void BM_TuningQuality(benchmark::State& state) {
  if (skip_without_cuda(state)) return;
  const int size = static_cast<int>(state.range(0));
  CudaDevice device;
  MatmulKernel tuned_kernel(device, size, size, size, BenchTiming{2, 10});
  MatmulKernel long_kernel(device, size, size, size, BenchTiming{2, 100});  // 10 times the repetitions
  const ConfigSpace space = MatmulKernel::config_space();
  auto stream = device.new_stream();
  double ratio = 0;
  for (auto _ : state) {
    Autotuner tuner(tuned_kernel, space, device.tuner_options());
    const Config winner = tuner.call(Invocation{"quality", *stream});
    double best = 1e300;
    double winner_time = 0;
    for (const Config& config : space.configs()) {
      double time = 0;
      try {
        time = long_kernel.benchmark(Invocation{"quality", *stream}, config);
      } catch (const LaunchError&) {
        continue;  // the refused variant
      }
      best = std::min(best, time);
      if (config == winner) winner_time = time;
    }
    ratio = winner_time / best;
    state.counters["winner_ns"] = winner_time;
    state.counters["best_ns"] = best;
  }
  state.counters["ratio"] = ratio;
}

BENCHMARK(BM_BareLaunch)->Threads(1)->Threads(4)->Threads(16)->UseRealTime();
BENCHMARK(BM_TunedLaunch)->Threads(1)->Threads(4)->Threads(16)->UseRealTime();
BENCHMARK(BM_LaunchPaired)->ArgName("through")->DenseRange(0, 5)->Threads(1)->MinTime(2.0)->UseRealTime();
// Shorter at 4 and 16 threads: ci/gpu runs them in each of its processes beside the 1-thread ones.
BENCHMARK(BM_LaunchPaired)->ArgName("through")->Arg(0)->Arg(3)->Arg(5)->Threads(4)->Threads(16)->MinTime(0.5)->UseRealTime();
BENCHMARK(BM_ColdKeys)->ArgName("parallel")->Arg(0)->Arg(1)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TuningQuality)->ArgName("size")->Arg(256)->Arg(1024)->Arg(2048)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace safetune::cuda

BENCHMARK_MAIN();
