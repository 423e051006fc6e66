// An attempt aborted by an exception from the autotuner's own bookkeeping (an allocation that
// fails while a failed bench is recorded), not by a failing config: the owner gets that exception,
// every waiter is woken with a TuningFailed, and the key is left Cold, so a later call tunes it.
// No other test reaches this path: a kernel's or a hook's exception is a failed bench.
//
// The allocation that fails is chosen by order: the kernel throws a LaunchError whose message is
// too long for the short-string buffer, so the first allocation after the throw is the
// autotuner's copy of that message. If the autotuner's code changes so that the failure lands
// elsewhere, the owner sees no bad_alloc and these tests fail rather than pass by accident.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <latch>
#include <new>
#include <string>
#include <utility>

#include "impl/autotuner.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/deadline.h"
#include "tests/impl/event_counter.h"
#include "tests/impl/failing_allocation.h"
#include "tests/impl/fake_kernel.h"
#include "tests/impl/tuner_options.h"

namespace safetune {
namespace {

using ::testing::HasSubstr;
using model::EventKind;
using testing::EventCounter;
using testing::FakeKernel;
using testing::FakeStream;
using testing::run_with_deadline;

const ConfigSpace kSpace = ConfigSpace::parse("BLOCK=64;BLOCK=128");

// The first benchmark of the kernel fails, and so does one of the autotuner's next allocations
// on that thread: the first (`skipped` 0), which copies the fault's message, or the second, which
// appends it to the attempt's list of failures. Both come before the failed bench is reported.
// Every later benchmark succeeds. `before_failing` runs first, inside that benchmark.
void abort_the_first_attempt(FakeKernel& kernel, int skipped = 0, std::function<void()> before_failing = {}) {
  kernel.inside_benchmark = [=, first = true](const Invocation&, const Config&) mutable {
    if (!std::exchange(first, false)) return;
    if (before_failing) before_failing();
    const LaunchError fault("a fault whose message needs an allocation to copy");
    testing::fail_an_allocation_soon(skipped);
    throw fault;  // copying a runtime_error shares its message: no allocation
  };
}

// Skips, saying why, where this build cannot fail an allocation.
class AutotunerAbortedAttempt : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::allocation_failures_injectable()) {
      GTEST_SKIP() << "this build's ThreadSanitizer runtime owns operator new, so no allocation "
                      "failure can be injected";
    }
  }
};

std::string call_on_stream(Autotuner& tuner, int stream_id) {
  FakeStream stream(stream_id);
  return tuner.call({"k", stream}).str();
}

TEST_F(AutotunerAbortedAttempt, TheOwnerGetsTheExceptionAndALaterCallTunesTheKey) {
  FakeKernel kernel;
  abort_the_first_attempt(kernel);
  EventCounter events;
  Autotuner tuner(kernel, kSpace, testing::observed_by(&events));
  EXPECT_THROW(call_on_stream(tuner, 1), std::bad_alloc);
  EXPECT_FALSE(testing::allocation_failure_pending());
  EXPECT_EQ(events.count(EventKind::TuneEnd), 1);
  EXPECT_EQ(call_on_stream(tuner, 1), "BLOCK=64");
  EXPECT_EQ(events.count(EventKind::TuneBegin), 2);
}

TEST_F(AutotunerAbortedAttempt, EveryWaiterIsWokenWithTheAbortedAttemptsError) {
  run_with_deadline([] {
    FakeKernel kernel;
    EventCounter events;
    std::latch owner_benchmarking{1};
    std::latch waiters_waiting{1};
    abort_the_first_attempt(kernel, 0, [&] {
      owner_benchmarking.count_down();
      waiters_waiting.wait();
    });
    Autotuner tuner(kernel, kSpace, testing::observed_by(&events));
    auto owner = std::async(std::launch::async, call_on_stream, std::ref(tuner), 1);
    owner_benchmarking.wait();
    auto waiter1 = std::async(std::launch::async, call_on_stream, std::ref(tuner), 2);
    auto waiter2 = std::async(std::launch::async, call_on_stream, std::ref(tuner), 3);
    ASSERT_TRUE(events.wait_until(EventKind::WaitBegin, 2));
    waiters_waiting.count_down();
    EXPECT_THROW(owner.get(), std::bad_alloc);
    for (auto* waiter : {&waiter1, &waiter2}) {
      try {
        waiter->get();
        ADD_FAILURE() << "expected TuningFailed";
      } catch (const TuningFailed& error) {
        EXPECT_THAT(error.what(),
                    HasSubstr("kernel 'add', key 'k': tuning attempt 1 aborted: std::bad_alloc"));
      }
    }
    EXPECT_EQ(call_on_stream(tuner, 4), "BLOCK=64");
  });
}

// The aborted attempt's trace is a failed attempt to the model, wherever the allocation failed:
// each config is reported once (the one being benched, and the ones after it, as failed benches
// with the abort's message), so it breaks no rule.
class AbortedAttemptTrace : public AutotunerAbortedAttempt, public ::testing::WithParamInterface<int> {};

TEST_P(AbortedAttemptTrace, PassesTheModel) {
  FakeKernel kernel;
  abort_the_first_attempt(kernel, GetParam());
  TraceRecorder recorder(testing::header_for(kernel, kSpace));
  Autotuner tuner(kernel, kSpace, testing::observed_by(&recorder));
  FakeStream stream(1);
  testing::recorded_call(tuner, recorder, "add", "k", stream);  // aborted: bad_alloc
  testing::recorded_call(tuner, recorder, "add", "k", stream);  // tunes
  EXPECT_FALSE(testing::allocation_failure_pending());
  const model::CheckResult result = model::check(recorder.snapshot());
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.attempts, 2);
  EXPECT_EQ(result.stats.successful_tunings, 1);
  EXPECT_EQ(result.stats.failed_benches, 2);  // the aborted attempt's two configs
  EXPECT_EQ(result.stats.benches, 4);
  EXPECT_EQ(result.stats.errors, 1);  // the owner's bad_alloc
}

INSTANTIATE_TEST_SUITE_P(WhereTheAllocationFails, AbortedAttemptTrace, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == 0 ? "CopyingTheFault" : "ListingTheFailure");
                         });

}  // namespace
}  // namespace safetune
