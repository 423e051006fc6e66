#include "impl/sim/sim_kernel.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <vector>

#include "recording_noise.h"

namespace safetune::sim {
namespace {

using testing::RecordingNoise;

Config cfg(const char* text) { return Config::parse(text); }

TEST(SimKernel, BenchmarkReturnsTheExpectedTime) {
  SimDevice device({.seed = 7});
  SimKernel kernel(device, {.name = "add"});
  auto stream = device.new_stream();
  for (const char* text : {"BLOCK=64", "BLOCK=128", "BLOCK=256"}) {
    const Invocation inv{"n=1024", *stream};
    EXPECT_EQ(kernel.benchmark(inv, cfg(text)), kernel.expected_time_ns("n=1024", cfg(text)));
  }
  EXPECT_EQ(kernel.benchmarks(), 3u);
}

TEST(SimKernel, ExpectedTimeDependsOnSeedKernelKeyAndConfig) {
  SimDevice device_a({.seed = 1});
  SimDevice device_b({.seed = 2});
  SimKernel add_a(device_a, {.name = "add"});
  SimKernel add_a_again(device_a, {.name = "add"});
  SimKernel mul_a(device_a, {.name = "mul"});
  SimKernel add_b(device_b, {.name = "add"});
  const Config block = cfg("BLOCK=64");
  const double base = add_a.expected_time_ns("k", block);
  EXPECT_EQ(add_a_again.expected_time_ns("k", block), base);  // deterministic
  // Each input moves the time. A collision is possible in principle (1 in 10^6 per pair); these
  // inputs are fixed, so a failure here would be reproducible, not flaky.
  EXPECT_NE(mul_a.expected_time_ns("k", block), base);
  EXPECT_NE(add_b.expected_time_ns("k", block), base);
  EXPECT_NE(add_a.expected_time_ns("k2", block), base);
  EXPECT_NE(add_a.expected_time_ns("k", cfg("BLOCK=128")), base);
  EXPECT_GE(base, 1000.0);
  EXPECT_LT(base, 1001000.0);
}

TEST(SimKernel, BenchmarkRunsRealWorkAndSynchronizes) {
  SimDevice device;
  SimKernel kernel(device, {.warmup = 2, .repetitions = 5});
  auto stream = device.new_stream();
  kernel.benchmark({"k", *stream}, cfg("B=1"));
  // Warm-up plus repetitions all ran before benchmark returned.
  EXPECT_EQ(stream->completed(), 7u);
}

TEST(SimKernel, LaunchEnqueuesOnTheCallersStream) {
  SimDevice device;
  SimKernel kernel(device, {.work = std::chrono::microseconds(200)});
  auto mine = device.new_stream();
  auto other = device.new_stream();
  for (int i = 0; i < 3; ++i) kernel.launch({"k", *mine}, cfg("B=1"));
  mine->synchronize();
  EXPECT_EQ(mine->completed(), 3u);
  EXPECT_EQ(other->completed(), 0u);
  EXPECT_EQ(kernel.launches(), 3u);
}

TEST(SimKernel, InjectedLaunchFailureFailsLaunchAndBenchmark) {
  SimDevice device;
  SimKernel kernel(device, {.name = "add", .fail_launch = {cfg("BLOCK=64")}});
  auto stream = device.new_stream();
  const Invocation inv{"k", *stream};
  EXPECT_THROW(kernel.launch(inv, cfg("BLOCK=64")), LaunchError);
  EXPECT_THROW(kernel.benchmark(inv, cfg("BLOCK=64")), LaunchError);
  EXPECT_NO_THROW(kernel.launch(inv, cfg("BLOCK=128")));
  EXPECT_NO_THROW(kernel.benchmark(inv, cfg("BLOCK=128")));
  EXPECT_EQ(kernel.launches(), 1u);  // the failed launch enqueued nothing
}

TEST(SimKernel, InjectedBenchmarkFailureLeavesLaunchWorking) {
  SimDevice device;
  SimKernel kernel(device, {.fail_benchmark = {cfg("BLOCK=64")}});
  auto stream = device.new_stream();
  const Invocation inv{"k", *stream};
  try {
    kernel.benchmark(inv, cfg("BLOCK=64"));
    FAIL() << "benchmark of a failing config returned";
  } catch (const LaunchError& error) {
    EXPECT_NE(std::string(error.what()).find("BLOCK=64"), std::string::npos) << error.what();
  }
  EXPECT_NO_THROW(kernel.launch(inv, cfg("BLOCK=64")));
}

TEST(SimKernel, FailingHookThrowsOnlyForChosenConfigsAndChains) {
  SimDevice device;
  auto stream = device.new_stream();
  int chained = 0;
  auto hook = failing_pre_bench_hook({cfg("B=2")}, [&](const Invocation&, const Config&) {
    ++chained;
  });
  const Invocation inv{"k", *stream};
  EXPECT_NO_THROW(hook(inv, cfg("B=1")));
  EXPECT_THROW(hook(inv, cfg("B=2")), InjectedHookFailure);
  EXPECT_EQ(chained, 1);
}

TEST(SimKernel, NoopModeTouchesNoStream) {
  SimDevice device;
  SimKernel kernel(device, {.noop = true});
  auto stream = device.new_stream();
  kernel.launch({"k", *stream}, cfg("B=1"));
  EXPECT_EQ(kernel.benchmark({"k", *stream}, cfg("B=1")), kernel.expected_time_ns("k", cfg("B=1")));
  stream->synchronize();
  EXPECT_EQ(stream->completed(), 0u);
  EXPECT_EQ(kernel.launches(), 0u);
}

TEST(SimKernel, BenchmarkCallsNoiseAroundItsSynchronizations) {
  SimDevice device;
  SimKernel kernel(device, {.warmup = 1, .repetitions = 1});
  std::vector<SyncPoint> points;
  SimStream stream(0, std::make_unique<RecordingNoise>(points));
  kernel.benchmark({"k", stream}, cfg("B=1"));
  EXPECT_EQ(points, (std::vector<SyncPoint>{SyncPoint::BeforeBenchmark, SyncPoint::Enqueue,
                                            SyncPoint::Synchronize, SyncPoint::Enqueue,
                                            SyncPoint::Synchronize, SyncPoint::AfterBenchmark}));
}

// A stream that is not a SimStream, to check the kernel refuses it.
class ForeignStream final : public Stream {
 public:
  explicit ForeignStream(const StreamKind* kind = nullptr) : Stream(kind) {}
  void synchronize() override {}
  int id() const override { return 99; }
};

constexpr StreamKind kForeignKind{"foreign"};

std::string refusal_of(Stream& stream) {
  SimDevice device;
  SimKernel kernel(device, {});
  try {
    kernel.launch({"k", stream}, cfg("B=1"));
  } catch (const std::invalid_argument& refused) {
    return refused.what();
  }
  return "(accepted)";
}

TEST(SimKernel, RejectsAForeignStreamNamingItsKind) {
  ForeignStream of_no_kind;
  ForeignStream of_another_kind(&kForeignKind);
  EXPECT_EQ(refusal_of(of_no_kind), "SimKernel 'sim_kernel': stream 99 is not a SimStream (it has no kind)");
  EXPECT_EQ(refusal_of(of_another_kind),
            "SimKernel 'sim_kernel': stream 99 is not a SimStream (its kind is 'foreign')");
}

TEST(SimKernel, ItsStreamsAreOfTheSimKind) {
  SimDevice device;
  EXPECT_EQ(device.new_stream()->kind(), &kSimStreamKind);
}

TEST(SimKernel, BadOptionsAreRejectedWithTheOptionNamed) {
  SimDevice device;
  auto message_of = [&](SimKernelOptions options) -> std::string {
    try {
      SimKernel kernel(device, std::move(options));
    } catch (const std::invalid_argument& error) {
      return error.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(message_of({.name = ""}).find("name"), std::string::npos);
  EXPECT_NE(message_of({.warmup = -1}).find("warmup"), std::string::npos);
  EXPECT_NE(message_of({.repetitions = 0}).find("repetitions"), std::string::npos);
  EXPECT_NE(message_of({.work = std::chrono::seconds(1)}).find("work"), std::string::npos);
  EXPECT_NE(message_of({.jitter = 1.5}).find("jitter"), std::string::npos);
  EXPECT_NE(message_of({.jitter = -0.1}).find("jitter"), std::string::npos);
  EXPECT_NE(message_of({.time_levels = -1}).find("time_levels"), std::string::npos);
  EXPECT_NE(message_of({.time_levels = 1'000'001}).find("time_levels"), std::string::npos);
}

// With time levels, 16 configs share 3 times: some configs tie, the fastest included, so that
// stress runs exercise R4's tie rule (the config benchmarked first wins).
TEST(SimKernel, TimeLevelsMakeConfigsTie) {
  SimDevice device({.seed = 11});
  SimKernel kernel(device, {.name = "add", .time_levels = 3});
  std::map<double, int> configs_per_time;
  for (int i = 1; i <= 16; ++i) ++configs_per_time[kernel.expected_time_ns("k", Config({{"BLOCK", 32 * i}}))];
  EXPECT_LE(configs_per_time.size(), 3u);
  EXPECT_GE(configs_per_time.begin()->second, 2) << "the fastest time must be shared";
  for (const auto& [time, count] : configs_per_time) {
    EXPECT_GE(time, 1000.0);
    EXPECT_LE(time, 1000999.0);
  }
}

TEST(SimKernel, HundredConfigsBenchmarkOnOneStream) {
  // The Triton-report scenario tunes 100 configs on one thread: every benchmark runs its warm-up
  // and repetitions to completion on the caller's stream. (How long that takes is not asserted
  // here: a timed test on a shared machine is noise. The scenario's own run time is printed by
  // `safetune stress`.)
  SimDevice device;
  SimKernel kernel(device, {.jitter = 0.5});
  auto stream = device.new_stream();
  for (int i = 0; i < 100; ++i) {
    kernel.benchmark({"k", *stream}, Config({{"BLOCK", i}}));
  }
  EXPECT_EQ(stream->completed(), 400u);
  EXPECT_EQ(kernel.benchmarks(), 100u);
}

}  // namespace
}  // namespace safetune::sim
