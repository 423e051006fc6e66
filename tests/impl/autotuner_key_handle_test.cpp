// A key's handle (impl/autotuner_key_handle.h): a call through it does what call() does on its
// key, cold, tuned, invalidated, re-entered or raced by other threads, with the same trace.
#include "impl/autotuner.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

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

ConfigSpace two_blocks() { return ConfigSpace::parse("BLOCK=64;BLOCK=128"); }

TEST(AutotunerKeyHandle, AHandleOfANewKeyNamesItAndTunesNothing) {
  FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
  testing::EventCounter events;
  Autotuner tuner(kernel, two_blocks(), testing::observed_by(&events));
  const KeyHandle handle = tuner.handle("m=4096");
  EXPECT_EQ(handle.key(), "m=4096");
  EXPECT_TRUE(kernel.benches().empty());
  EXPECT_FALSE(tuner.tuned_config("m=4096").has_value());
  for (const auto kind : {model::EventKind::TuneBegin, model::EventKind::Launch, model::EventKind::Invalidate})
    EXPECT_EQ(events.count(kind), 0);
}

TEST(AutotunerKeyHandle, ACallThroughItTunesOnceThenLaunchesTheWinnerWithTheCallersStreamAndArgs) {
  FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
  int args = 0;
  std::vector<std::pair<std::string, void*>> benched_with;
  kernel.inside_benchmark = [&](const Invocation& inv, const Config&) { benched_with.emplace_back(std::string(inv.key), inv.args); };
  Autotuner tuner(kernel, two_blocks(), TunerOptions{});
  const KeyHandle handle = tuner.handle("k");
  FakeStream stream(3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(handle.call(stream, &args).str(), "BLOCK=128");
  EXPECT_EQ(kernel.benches_of("k"), 2u);  // one attempt, two configs
  EXPECT_EQ(benched_with, (std::vector<std::pair<std::string, void*>>{{"k", &args}, {"k", &args}}));
  ASSERT_EQ(kernel.launches().size(), 10u);
  for (const auto& launch : kernel.launches()) EXPECT_EQ(launch.key, "k");
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");  // call() sees the same entry, tuned
  EXPECT_EQ(kernel.benches_of("k"), 2u);
}

TEST(AutotunerKeyHandle, HandlesAndCallsOfOneKeyShareItsEntry) {
  FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
  Autotuner tuner(kernel, two_blocks(), TunerOptions{});
  const KeyHandle before = tuner.handle("k");
  FakeStream stream(0);
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
  EXPECT_EQ(before.call(stream).str(), "BLOCK=128");
  EXPECT_EQ(tuner.handle("k").call(stream).str(), "BLOCK=128");
  EXPECT_EQ(kernel.benches_of("k"), 2u);
  EXPECT_EQ(tuner.handle("other").call(stream).str(), "BLOCK=128");  // another key: its own tuning
  EXPECT_EQ(kernel.benches_of("other"), 2u);
}

// Made before the key was tuned, or after: either way a handle reads the key's winner at each
// call, never one it saw when it was made.
TEST(AutotunerKeyHandle, AHandleKeptAcrossAnInvalidateTunesTheKeyAgainOnce) {
  for (const bool made_when_tuned : {false, true}) {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    Autotuner tuner(kernel, two_blocks(), TunerOptions{});
    FakeStream stream(0);
    if (made_when_tuned) {
      EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
    }
    const KeyHandle handle = tuner.handle("k");
    EXPECT_EQ(handle.call(stream).str(), "BLOCK=128");
    tuner.invalidate("k");
    EXPECT_FALSE(tuner.tuned_config("k").has_value());
    kernel.fail_bench("BLOCK=128");  // the next attempt's winner is BLOCK=64
    EXPECT_EQ(handle.call(stream).str(), "BLOCK=64") << "made when tuned: " << made_when_tuned;
    EXPECT_EQ(handle.call(stream).str(), "BLOCK=64");
    EXPECT_EQ(kernel.benches_of("k"), 4u) << "two attempts; made when tuned: " << made_when_tuned;
  }
}

TEST(AutotunerKeyHandle, AReentrantCallThroughItGetsTheReentryPolicysAnswer) {
  for (const ReentryPolicy reentry : {ReentryPolicy::Error, ReentryPolicy::Fallback}) {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    Autotuner tuner(kernel, two_blocks(), testing::with_fallback(WaitPolicy::Block, reentry, "BLOCK=32"));
    const KeyHandle handle = tuner.handle("k");
    std::string answer;
    kernel.inside_benchmark = [&](const Invocation& inv, const Config& config) {
      if (config.str() != "BLOCK=64") return;
      try {
        answer = handle.call(inv.stream).str();
      } catch (const ReentrantTuning&) {
        answer = "ReentrantTuning";
      }
    };
    FakeStream stream(0);
    EXPECT_EQ(handle.call(stream).str(), "BLOCK=128");
    EXPECT_EQ(answer, reentry == ReentryPolicy::Error ? "ReentrantTuning" : "BLOCK=32");
  }
}

// The same calls, one through call() and one through a handle, on two autotuners: the two traces
// are the same event for event (cold, tuned, invalidated, failed).
model::Trace sequence_trace(bool through_handle) {
  FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
  const ConfigSpace space = two_blocks();
  TraceRecorder recorder(header_for(kernel, space));
  Autotuner tuner(kernel, space, testing::observed_by(&recorder));
  TraceRecorder::bind_thread(0);
  FakeStream stream(0);
  const KeyHandle handle = tuner.handle("k");
  const auto one_call = [&] {
    if (through_handle) recorded_call(handle, recorder, "add", stream);
    else recorded_call(tuner, recorder, "add", "k", stream);
  };
  one_call();
  one_call();
  tuner.invalidate("k");
  kernel.fail_bench("BLOCK=64");
  kernel.fail_bench("BLOCK=128");
  one_call();  // every bench fails: the call raises TuningFailed
  kernel.heal_bench("BLOCK=128");
  one_call();
  return recorder.snapshot();
}

std::vector<std::string> event_lines(const model::Trace& trace) {
  std::vector<std::string> lines;
  for (const model::Event& e : trace.events)
    lines.push_back(std::string(model::event_name(e.kind)) + " " + e.key + " " + e.config.value_or("-") + " " + e.error.value_or("-"));
  return lines;
}

TEST(AutotunerKeyHandle, ItsTraceIsTheTraceOfTheSameCallsThroughCall) {
  const model::Trace through_call = sequence_trace(false);
  const model::Trace through_handle = sequence_trace(true);
  EXPECT_EQ(event_lines(through_handle), event_lines(through_call));
  EXPECT_GE(through_call.events.size(), 20u);
  const model::CheckResult result = model::check(through_handle);
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.successful_tunings, 2);
  EXPECT_EQ(result.stats.errors, 1);
}

// Four threads on one key, two through handles and two through call(), with invalidations: the
// model passes the trace, and every call launches the winner.
TEST(AutotunerKeyHandle, ThreadsThroughHandlesAndThroughCallTuneEachKeyOnceAndPassTheModel) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    const ConfigSpace space = two_blocks();
    TraceRecorder recorder(header_for(kernel, space));
    Autotuner tuner(kernel, space, testing::observed_by(&recorder));
    const KeyHandle handle = tuner.handle("k");
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        TraceRecorder::bind_thread(t);
        FakeStream stream(t);
        for (int i = 0; i < 50; ++i) {
          const auto launched = t % 2 == 0 ? recorded_call(handle, recorder, "add", stream)
                                           : recorded_call(tuner, recorder, "add", "k", stream);
          EXPECT_EQ(launched.value_or(Config{}).str(), "BLOCK=128");
          if (i % 10 == 9 && t == 3) tuner.invalidate("k");
        }
      });
    }
    for (auto& thread : threads) thread.join();
    const model::CheckResult result = model::check(recorder.snapshot());
    EXPECT_TRUE(result.ok()) << testing::violation_text(result);
    EXPECT_EQ(result.stats.calls, 200);
    EXPECT_GE(result.stats.successful_tunings, 1);
    EXPECT_EQ(result.stats.duplicate_tunings, 0);
  });
}

}  // namespace
}  // namespace safetune
