// The autotuner's white-box traces, recorded by TraceRecorder from real threads, satisfy the
// model (R1-R14); and a trace recorded the same way with a planted early use is caught, so the
// check can fail.
#include <gtest/gtest.h>

#include <barrier>
#include <chrono>
#include <map>
#include <thread>

#include "impl/autotuner.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/deadline.h"
#include "tests/impl/event_counter.h"
#include "tests/impl/fake_kernel.h"
#include "tests/impl/tuner_options.h"

namespace safetune {
namespace {

using testing::FakeKernel;
using testing::FakeStream;
using testing::header_for;
using testing::recorded_call;
using testing::run_with_deadline;

// The waits that ConcurrentCallsWithFaultsAndInvalidationsPassTheModel requires: half the least
// of 200 runs on 2 busy cores (10; median 16), so that the bound holds without luck.
constexpr int kMinWaitsWithFaultsAndInvalidations = 5;

// The configs of every call_end that returned, and how many raised.
struct CallResults {
  std::map<std::string, int> returned;
  int raised = 0;
};
CallResults call_results(const model::Trace& trace) {
  CallResults results;
  for (const model::Event& event : trace.events) {
    if (event.kind != model::EventKind::CallEnd) continue;
    if (event.config) ++results.returned[*event.config];
    else ++results.raised;
  }
  return results;
}

// Four threads on three keys, with a failing config and invalidations. Each attempt's owner waits
// in its first bench, up to 20 ms, for another call to wait on it, so that most attempts have
// waiters (with no hold, 4 runs in 200 had a wait at all). Nothing fails but BLOCK=256's bench:
// every call returns the winner, BLOCK=128.
TEST(AutotunerTraceChecked, ConcurrentCallsWithFaultsAndInvalidationsPassTheModel) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 3}, {"BLOCK=128", 1}, {"BLOCK=256", 2}});
    kernel.fail_bench("BLOCK=256");
    const ConfigSpace space = ConfigSpace::parse("BLOCK=64;BLOCK=128;BLOCK=256");
    TraceRecorder recorder(header_for(kernel, space));
    testing::EventCounter events(&recorder);
    kernel.inside_benchmark = [&events](const Invocation&, const Config& config) {
      if (config.str() == "BLOCK=64")
        events.wait_until(model::EventKind::WaitBegin, events.count(model::EventKind::WaitBegin) + 1,
                          std::chrono::milliseconds(20));
    };
    Autotuner tuner(kernel, space, testing::observed_by(&events));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        TraceRecorder::bind_thread(t);
        FakeStream stream(t);
        for (int i = 0; i < 60; ++i) {
          recorded_call(tuner, recorder, "add", "k" + std::to_string((i + t) % 3), stream);
          if (i % 20 == 19) tuner.invalidate("k" + std::to_string(t % 3));
        }
      });
    }
    for (auto& thread : threads) thread.join();
    const model::Trace trace = recorder.snapshot();
    const model::CheckResult result = model::check(trace);
    EXPECT_TRUE(result.ok()) << testing::violation_text(result);
    EXPECT_EQ(result.stats.calls, 240);
    EXPECT_GE(result.stats.successful_tunings, 3);
    EXPECT_EQ(result.stats.duplicate_tunings, 0);
    const CallResults results = call_results(trace);
    EXPECT_EQ(results.raised, 0);
    EXPECT_EQ(results.returned, (std::map<std::string, int>{{"BLOCK=128", 240}}));
    EXPECT_GE(events.count(model::EventKind::WaitBegin), kMinWaitsWithFaultsAndInvalidations);
  });
}

// Three threads call the key together, ten rounds; every bench fails. Each attempt's owner is held
// in its first bench until the round's two other calls wait on it: ten failed attempts, each
// with two waiters, every call raising (with no hold, 8 runs in 200 had a wait at all).
TEST(AutotunerTraceChecked, AllFailingAttemptWithWaitersPassesTheModel) {
  run_with_deadline([] {
    FakeKernel kernel;
    kernel.fail_bench("BLOCK=64");
    kernel.fail_bench("BLOCK=128");
    const ConfigSpace space = ConfigSpace::parse("BLOCK=64;BLOCK=128");
    TraceRecorder recorder(header_for(kernel, space));
    testing::EventCounter events(&recorder);
    kernel.inside_benchmark = [&events](const Invocation&, const Config& config) {
      if (config.str() == "BLOCK=64")
        events.wait_until(model::EventKind::WaitBegin, 2 * events.count(model::EventKind::TuneBegin));
    };
    Autotuner tuner(kernel, space, testing::observed_by(&events));
    std::barrier round(3);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        TraceRecorder::bind_thread(t);
        FakeStream stream(t);
        for (int i = 0; i < 10; ++i) {
          round.arrive_and_wait();
          recorded_call(tuner, recorder, "add", "k", stream);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    const model::Trace trace = recorder.snapshot();
    const model::CheckResult result = model::check(trace);
    EXPECT_TRUE(result.ok()) << testing::violation_text(result);
    EXPECT_EQ(result.stats.errors, 30);
    EXPECT_EQ(result.stats.successful_tunings, 0);
    EXPECT_EQ(call_results(trace).returned.size(), 0u);
    EXPECT_EQ(events.count(model::EventKind::TuneBegin), 10);
    EXPECT_EQ(events.count(model::EventKind::WaitBegin), 20);
  });
}

// Two calls on one key whose winner, BLOCK=64, fails to launch: the owner's, and one on the tuned
// key. Both raise the launch's error.
model::Trace two_calls_whose_launch_fails() {
  FakeKernel kernel({{"BLOCK=64", 1}, {"BLOCK=128", 2}});
  kernel.fail_launch("BLOCK=64");
  const ConfigSpace space = ConfigSpace::parse("BLOCK=64;BLOCK=128");
  TraceRecorder recorder(header_for(kernel, space));
  Autotuner tuner(kernel, space, testing::observed_by(&recorder));
  TraceRecorder::bind_thread(0);
  FakeStream stream(0);
  for (int i = 0; i < 2; ++i) recorded_call(tuner, recorder, "add", "k", stream);
  return recorder.snapshot();
}

// R14: a call that raises because its final launch failed says why, with a launch_failed of the
// config it launched.
TEST(AutotunerTraceChecked, AFinalLaunchThatFailsIsALaunchFailedAndPassesTheModel) {
  const model::Trace trace = two_calls_whose_launch_fails();
  std::vector<const model::Event*> failed;
  for (const model::Event& event : trace.events)
    if (event.kind == model::EventKind::LaunchFailed) failed.push_back(&event);
  ASSERT_EQ(failed.size(), 2u);
  for (const model::Event* event : failed) {
    EXPECT_EQ(event->config, "BLOCK=64");
    EXPECT_NE(event->error.value_or("").find("BLOCK=64"), std::string::npos) << event->error.value_or("");
  }
  const model::CheckResult result = model::check(trace);
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.errors, 2);
  EXPECT_EQ(result.stats.successful_tunings, 1);
}

// Without its launch_failed events the same trace is a spurious failure: the check can fail.
TEST(AutotunerTraceChecked, TheSameFailuresWithoutTheirLaunchFailedAreSpurious) {
  model::Trace trace = two_calls_whose_launch_fails();
  std::erase_if(trace.events, [](const model::Event& e) { return e.kind == model::EventKind::LaunchFailed; });
  const model::CheckResult result = model::check(trace);
  ASSERT_EQ(result.violations.size(), 2u) << testing::violation_text(result);
  for (const model::Violation& violation : result.violations) EXPECT_EQ(violation.rule, model::Rule::R14);
}

TEST(AutotunerTraceChecked, APlantedEarlyUseIsCaught) {
  FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
  const ConfigSpace space = ConfigSpace::parse("BLOCK=64;BLOCK=128");
  TraceRecorder recorder(header_for(kernel, space));
  TraceRecorder::bind_thread(0);
  const std::string early = "BLOCK=64";
  recorder.call_begin("add", "k", 0);
  recorder.record({model::EventKind::Launch, "add", "k", &early, nullptr, {}, 0});
  recorder.call_end("add", "k", CallOutcome::returned(early), 0);
  const model::CheckResult result = model::check(recorder.snapshot());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.violations.front().rule, model::Rule::R6);
}

}  // namespace
}  // namespace safetune
