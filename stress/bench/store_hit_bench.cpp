// The first call of a tuned key in a fresh process, when the directory store (or, in a build with
// the Redis store, a Redis server on a local socket) holds its entry (a store hit): from opening the store and building the autotuner to the call's return, with no
// benchmark. Each iteration is one such process start, minus the process itself: a fresh
// DirectoryStore and a fresh Autotuner on the store a first autotuner published into. The times
// of the iterations are kept, and their median and 99th percentile reported (counters median_us
// and p99_us), since the tail (a cold dentry, a page fault on the entry) is what a fleet of
// restarting processes meets. For scale, BM_TunedCall is the same autotuner's later calls (the
// in-memory hot path). The sim kernel in no-op mode: the figures are the store's and the
// autotuner's own cost.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "impl/autotuner.h"
#include "impl/posix/temp_directory.h"
#include "impl/sim/sim_device.h"
#include "impl/sim/sim_kernel.h"
#include "impl/store/directory_store.h"
#ifdef SAFETUNE_HAS_REDIS_STORE
#include "impl/store/redis/redis_store.h"
#include "stress/harness/redis_server_process.h"
#endif

namespace safetune::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kKey = "m=4096,n=4096";

const ConfigSpace& space() {
  static const ConfigSpace configs = [] {
    std::vector<Config> all;
    for (int block = 32; block <= 512; block += 32) all.emplace_back(std::vector<Config::Param>{{"BLOCK", block}});
    return ConfigSpace(std::move(all));
  }();
  return configs;
}

TunerOptions options_on(ResultsStore& store) {
  TunerOptions options;
  options.results = {.store = &store,
                     .device = {.name = "sim", .compute_capability = "-", .driver = "-", .toolkit = "-"},
                     .warn = {}};
  return options;
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

// What both benchmarks share: a store folder, the sim kernel in no-op mode and one invocation.
struct Bench {
  const posix::TempDirectory folder{"safetune-store-bench"};
  sim::SimDevice device;
  sim::SimKernel kernel{device, {.name = "store_hit", .noop = true}};
  std::unique_ptr<sim::SimStream> stream = device.new_stream();
  const Invocation inv{kKey, *stream};
};

// A store with the key's entry published (by a first autotuner on a store from `open_store`),
// then, each iteration, a fresh store from `open_store` and a fresh autotuner's first call: the
// time of each, and their median and 99th percentile.
template <class OpenStore>
void first_calls_that_hit(benchmark::State& state, Bench& bench, OpenStore open_store) {
  {
    const auto store = open_store();
    Autotuner first(bench.kernel, space(), options_on(*store));
    first.call(bench.inv);  // tunes and publishes
  }
  std::vector<double> micros;
  for (auto _ : state) {
    const auto start = Clock::now();
    const auto store = open_store();
    Autotuner fresh(bench.kernel, space(), options_on(*store));
    benchmark::DoNotOptimize(&fresh.call(bench.inv));
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    state.SetIterationTime(seconds);
    micros.push_back(seconds * 1e6);
  }
  state.counters["median_us"] = quantile(micros, 0.5);
  state.counters["p99_us"] = quantile(micros, 0.99);
}

void BM_StoreHitFirstCall(benchmark::State& state) {
  Bench bench;
  first_calls_that_hit(state, bench, [&] { return std::make_unique<DirectoryStore>(bench.folder.path()); });
}
BENCHMARK(BM_StoreHitFirstCall)->UseManualTime()->Iterations(2000)->Unit(benchmark::kMicrosecond);

#ifdef SAFETUNE_HAS_REDIS_STORE
// The same through a Redis store on a redis-server of the benchmark's own, on a local Unix socket
// (AOF on, fsynced at every write: the hit is a read, which AOF does not slow). A fresh store
// connects at its first command, so each iteration pays the connection, as a fresh process does.
void BM_RedisStoreHitFirstCall(benchmark::State& state) {
  Bench bench;
  const stress::RedisServerProcess server;
  first_calls_that_hit(state, bench, [&] { return std::make_unique<RedisStore>(server.parsed()); });
}
BENCHMARK(BM_RedisStoreHitFirstCall)->UseManualTime()->Iterations(2000)->Unit(benchmark::kMicrosecond);
#endif

void BM_TunedCall(benchmark::State& state) {
  Bench bench;
  DirectoryStore store(bench.folder.path());
  Autotuner tuner(bench.kernel, space(), options_on(store));
  tuner.call(bench.inv);
  for (auto _ : state) benchmark::DoNotOptimize(&tuner.call(bench.inv));
}
BENCHMARK(BM_TunedCall)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace safetune::bench

BENCHMARK_MAIN();
