// The hot path: a call on a tuned key takes no lock that tuning holds, so neither a held bench
// lock nor another key's blocked attempt (with a thread waiting on it) can delay it.
#include "impl/autotuner.h"

#include <gtest/gtest.h>

#include <future>
#include <latch>

#include "tests/impl/deadline.h"
#include "tests/impl/event_counter.h"
#include "tests/impl/fake_kernel.h"
#include "tests/impl/tuner_options.h"

namespace safetune {
namespace {

using testing::FakeKernel;
using testing::FakeStream;
using testing::ready_in_time;
using testing::run_with_deadline;

ConfigSpace two_blocks() { return ConfigSpace::parse("BLOCK=64;BLOCK=128"); }

int tuned_calls(Autotuner& tuner, int calls) {
  FakeStream stream(9);
  int winners = 0;
  for (int i = 0; i < calls; ++i) winners += tuner.call({"hot", stream}).str() == "BLOCK=128";
  return winners;
}

TEST(AutotunerHotPath, TunedCallsIgnoreAHeldBenchLock) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=128", 1}});
    BenchLock bench_lock;
    Autotuner tuner(kernel, two_blocks(), (testing::with_bench_lock(&bench_lock)));
    EXPECT_EQ(tuned_calls(tuner, 1), 1);
    bench_lock.lock();  // as a benchmark on another autotuner of the device would
    auto calls = std::async(std::launch::async, tuned_calls, std::ref(tuner), 1000);
    ASSERT_TRUE(ready_in_time(calls));
    EXPECT_EQ(calls.get(), 1000);
    bench_lock.unlock();
  });
}

TEST(AutotunerHotPath, TunedCallsIgnoreAnotherKeysBlockedAttemptAndItsWaiter) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=128", 1}});
    std::latch started{1};
    std::latch release{1};
    kernel.inside_benchmark = [&](const Invocation& inv, const Config&) {
      if (inv.key != "cold") return;
      started.count_down();
      release.wait();
    };
    testing::EventCounter events;
    Autotuner tuner(kernel, ConfigSpace::parse("BLOCK=128"), (testing::observed_by(&events)));
    EXPECT_EQ(tuned_calls(tuner, 1), 1);
    auto call_cold = [&tuner](int stream_id) {
      FakeStream stream(stream_id);
      return tuner.call({"cold", stream}).str();
    };
    auto owner = std::async(std::launch::async, call_cold, 1);
    started.wait();
    auto waiter = std::async(std::launch::async, call_cold, 2);
    ASSERT_TRUE(events.wait_until(model::EventKind::WaitBegin, 1));
    std::vector<std::future<int>> hot;
    for (int t = 0; t < 4; ++t) {
      hot.push_back(std::async(std::launch::async, tuned_calls, std::ref(tuner), 1000));
    }
    for (auto& calls : hot) {
      ASSERT_TRUE(ready_in_time(calls));
      EXPECT_EQ(calls.get(), 1000);
    }
    release.count_down();
    EXPECT_EQ(owner.get(), "BLOCK=128");
    EXPECT_EQ(waiter.get(), "BLOCK=128");
  });
}

}  // namespace
}  // namespace safetune
