// The autotuner's promises between threads: one attempt per cold key, waiters get its outcome,
// the fallback policy does not wait, keys are independent, and no lock is held while a benchmark
// runs. Each test blocks the owner inside a benchmark to force the interleaving it needs, and
// runs under a deadline so that a deadlock fails instead of hanging.
#include "impl/autotuner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <latch>
#include <thread>

#include "tests/impl/deadline.h"
#include "tests/impl/event_counter.h"
#include "tests/impl/fake_kernel.h"
#include "tests/impl/tuner_options.h"

namespace safetune {
namespace {

using ::testing::HasSubstr;
using model::EventKind;
using testing::EventCounter;
using testing::FakeKernel;
using testing::FakeStream;
using testing::ready_in_time;
using testing::run_with_deadline;

ConfigSpace three_blocks() { return ConfigSpace::parse("BLOCK=64;BLOCK=128;BLOCK=256"); }

// Makes the kernel's first benchmark of `key` block until release() is called, and lets the
// test wait until that benchmark has started.
class BenchGate {
 public:
  BenchGate(FakeKernel& kernel, std::string key) : key_(std::move(key)) {
    kernel.inside_benchmark = [this](const Invocation& inv, const Config&) {
      if (inv.key != key_ || entered_) return;
      entered_ = true;
      started_.count_down();
      release_.wait();
    };
  }
  bool wait_started() {
    auto started = std::async(std::launch::async, [this] { started_.wait(); });
    return ready_in_time(started);
  }
  void release() { release_.count_down(); }

 private:
  std::string key_;
  bool entered_ = false;  // touched only by the owner of key_'s one attempt
  std::latch started_{1};
  std::latch release_{1};
};

std::string call_on_thread(Autotuner& tuner, std::string key, int stream_id) {
  FakeStream stream(stream_id);
  return tuner.call({key, stream}).str();
}

TEST(AutotunerConcurrency, TwoThreadsOnAColdKeyRunOneAttemptAndBothLaunchTheWinner) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 30}, {"BLOCK=128", 10}, {"BLOCK=256", 20}});
    BenchGate gate(kernel, "k");
    EventCounter events;
    Autotuner tuner(kernel, three_blocks(), (testing::observed_by(&events)));
    auto owner = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 1);
    ASSERT_TRUE(gate.wait_started());
    auto waiter = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 2);
    ASSERT_TRUE(events.wait_until(EventKind::WaitBegin, 1));
    EXPECT_EQ(waiter.wait_for(std::chrono::milliseconds(20)), std::future_status::timeout);
    gate.release();
    EXPECT_EQ(owner.get(), "BLOCK=128");
    EXPECT_EQ(waiter.get(), "BLOCK=128");
    EXPECT_EQ(kernel.benches_of("k"), 3u);
    EXPECT_EQ(events.count(EventKind::TuneBegin), 1);
    EXPECT_EQ(events.count(EventKind::WaitEnd), 1);
  });
}

// The owner is held in its first benchmark until the seven others wait on its attempt, so that
// every run has the interleaving the test is about: eight calls, one attempt, seven waiters.
TEST(AutotunerConcurrency, ManyThreadsOnAColdKeyBenchEachConfigOnce) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=256", 1}});
    BenchGate gate(kernel, "k");
    EventCounter events;
    Autotuner tuner(kernel, three_blocks(), (testing::observed_by(&events)));
    std::vector<std::future<std::string>> calls;
    calls.push_back(std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 0));
    ASSERT_TRUE(gate.wait_started());
    for (int i = 1; i < 8; ++i) {
      calls.push_back(std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", i));
    }
    ASSERT_TRUE(events.wait_until(EventKind::WaitBegin, 7));
    gate.release();
    for (auto& call : calls) EXPECT_EQ(call.get(), "BLOCK=256");
    EXPECT_EQ(kernel.benches_of("k"), 3u);
    EXPECT_EQ(events.count(EventKind::TuneBegin), 1);
    EXPECT_EQ(events.count(EventKind::WaitEnd), 7);
  });
}

TEST(AutotunerConcurrency, FallbackWaitPolicyLaunchesTheFallbackWhileTuningIsInFlight) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=128", 1}});
    BenchGate gate(kernel, "k");
    TunerOptions options =
        testing::with_fallback(WaitPolicy::Fallback, ReentryPolicy::Error, "BLOCK=32");
    Autotuner tuner(kernel, three_blocks(), options);
    auto owner = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 1);
    ASSERT_TRUE(gate.wait_started());
    auto other = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 2);
    ASSERT_TRUE(ready_in_time(other));  // it did not wait for the gated attempt
    EXPECT_EQ(other.get(), "BLOCK=32");
    gate.release();
    EXPECT_EQ(owner.get(), "BLOCK=128");
    EXPECT_EQ(call_on_thread(tuner, "k", 3), "BLOCK=128");
  });
}

TEST(AutotunerConcurrency, FailedAttemptFailsTheOwnerAndEveryWaiterThenARetryTunes) {
  run_with_deadline([] {
    FakeKernel kernel;
    for (auto config : {"BLOCK=64", "BLOCK=128", "BLOCK=256"}) kernel.fail_bench(config);
    BenchGate gate(kernel, "k");
    EventCounter events;
    Autotuner tuner(kernel, three_blocks(), (testing::observed_by(&events)));
    auto owner = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 1);
    ASSERT_TRUE(gate.wait_started());
    auto waiter1 = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 2);
    auto waiter2 = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 3);
    ASSERT_TRUE(events.wait_until(EventKind::WaitBegin, 2));
    gate.release();
    for (auto* call : {&owner, &waiter1, &waiter2}) {
      try {
        call->get();
        ADD_FAILURE() << "expected TuningFailed";
      } catch (const TuningFailed& error) {
        EXPECT_THAT(error.what(), HasSubstr("every config failed in tuning attempt 1"));
      }
    }
    EXPECT_EQ(kernel.benches_of("k"), 3u);
    kernel.heal_bench("BLOCK=64");
    EXPECT_EQ(call_on_thread(tuner, "k", 4), "BLOCK=64");
    EXPECT_EQ(events.count(EventKind::TuneBegin), 2);
  });
}

TEST(AutotunerConcurrency, InvalidateDuringAnAttemptHasNoEffect) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 1}});
    BenchGate gate(kernel, "k");
    Autotuner tuner(kernel, three_blocks(), {});
    auto owner = std::async(std::launch::async, call_on_thread, std::ref(tuner), "k", 1);
    ASSERT_TRUE(gate.wait_started());
    tuner.invalidate("k");
    gate.release();
    EXPECT_EQ(owner.get(), "BLOCK=64");
    EXPECT_EQ(tuner.tuned_config("k"), Config::parse("BLOCK=64"));
    EXPECT_EQ(call_on_thread(tuner, "k", 2), "BLOCK=64");
    EXPECT_EQ(kernel.benches_of("k"), 3u);  // still one attempt
  });
}

TEST(AutotunerConcurrency, AnotherKeyTunesWhileAnAttemptIsBlocked) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 1}});
    BenchGate gate(kernel, "slow");
    Autotuner tuner(kernel, three_blocks(), {});
    auto slow = std::async(std::launch::async, call_on_thread, std::ref(tuner), "slow", 1);
    ASSERT_TRUE(gate.wait_started());
    auto fast = std::async(std::launch::async, call_on_thread, std::ref(tuner), "fast", 2);
    ASSERT_TRUE(ready_in_time(fast));
    EXPECT_EQ(fast.get(), "BLOCK=64");
    gate.release();
    EXPECT_EQ(slow.get(), "BLOCK=64");
  });
}

// From inside a benchmark, another thread uses the same autotuner (a new key end to end, a
// lookup, an invalidate) and the benchmark waits for it: if the owner held any lock those need,
// this deadlocks.
TEST(AutotunerConcurrency, NoLockIsHeldWhileABenchmarkRuns) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=128", 1}});
    Autotuner* shared_tuner = nullptr;
    bool other_thread_finished = false;
    kernel.inside_benchmark = [&](const Invocation& inv, const Config&) {
      if (inv.key != "k" || other_thread_finished) return;
      auto other = std::async(std::launch::async, [&] {
        EXPECT_EQ(shared_tuner->tuned_config("k"), std::nullopt);
        EXPECT_EQ(call_on_thread(*shared_tuner, "other", 2), "BLOCK=128");
        shared_tuner->invalidate("other");
      });
      other_thread_finished = ready_in_time(other);
      EXPECT_TRUE(other_thread_finished) << "a lock was held across Kernel::benchmark";
    };
    Autotuner tuner(kernel, three_blocks(), {});
    shared_tuner = &tuner;
    EXPECT_EQ(call_on_thread(tuner, "k", 1), "BLOCK=128");
    EXPECT_TRUE(other_thread_finished);
  });
}

}  // namespace
}  // namespace safetune
