// Re-entry and nesting: a thread that re-enters the key it is tuning never waits (error or
// fallback), a hook may tune another key, and the bench lock never turns nesting into a deadlock.
// Every scenario runs under a deadline so that a deadlock fails the test.
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
using testing::FakeKernel;
using testing::FakeStream;
using testing::ready_in_time;
using testing::run_with_deadline;

ConfigSpace two_blocks() { return ConfigSpace::parse("BLOCK=64;BLOCK=128"); }

TEST(AutotunerReentry, ErrorPolicyThrowsReentrantTuningFromAHook) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    Autotuner* self = nullptr;
    std::vector<std::string> reentry_errors;
    TunerOptions options;
    options.pre_bench_hook = [&](const Invocation& inv, const Config&) {
      try {
        self->call(inv);
      } catch (const ReentrantTuning& error) {
        reentry_errors.push_back(error.what());
      }
    };
    Autotuner tuner(kernel, two_blocks(), options);
    self = &tuner;
    FakeStream stream(1);
    EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
    ASSERT_EQ(reentry_errors.size(), 2u);
    EXPECT_THAT(reentry_errors[0], HasSubstr("kernel 'add', key 'k': re-entrant call"));
    EXPECT_EQ(kernel.launches().size(), 1u);  // the re-entries launched nothing
  });
}

TEST(AutotunerReentry, UncaughtReentryInAHookFailsEveryBenchAndTheAttempt) {
  run_with_deadline([] {
    FakeKernel kernel;
    Autotuner* self = nullptr;
    TunerOptions options;
    options.pre_bench_hook = [&](const Invocation& inv, const Config&) { self->call(inv); };
    Autotuner tuner(kernel, two_blocks(), options);
    self = &tuner;
    FakeStream stream(1);
    try {
      tuner.call({"k", stream});
      ADD_FAILURE() << "expected TuningFailed";
    } catch (const TuningFailed& error) {
      EXPECT_THAT(error.what(), HasSubstr("pre_bench_hook threw"));
      EXPECT_THAT(error.what(), HasSubstr("re-entrant call"));
    }
    EXPECT_EQ(kernel.benches_of("k"), 0u);
  });
}

TEST(AutotunerReentry, FallbackPolicyLaunchesTheFallbackFromAHook) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    Autotuner* self = nullptr;
    std::vector<std::string> reentry_configs;
    TunerOptions options =
        testing::with_fallback(WaitPolicy::Block, ReentryPolicy::Fallback, "BLOCK=8");
    options.pre_bench_hook = [&](const Invocation& inv, const Config&) {
      reentry_configs.push_back(self->call(inv).str());
    };
    Autotuner tuner(kernel, two_blocks(), options);
    self = &tuner;
    FakeStream stream(1);
    EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
    EXPECT_EQ(reentry_configs, (std::vector<std::string>{"BLOCK=8", "BLOCK=8"}));
    EXPECT_EQ(kernel.launches().size(), 3u);
  });
}

TEST(AutotunerReentry, ReentryFromInsideABenchmarkNeverWaits) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    Autotuner* self = nullptr;
    int reentrant_errors = 0;
    kernel.inside_benchmark = [&](const Invocation& inv, const Config&) {
      try {
        self->call(inv);
      } catch (const ReentrantTuning&) {
        ++reentrant_errors;
      }
    };
    BenchLock bench_lock;
    Autotuner tuner(kernel, two_blocks(), (testing::with_bench_lock(&bench_lock)));
    self = &tuner;
    FakeStream stream(1);
    EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
    EXPECT_EQ(reentrant_errors, 2);
  });
}

TEST(AutotunerReentry, HookTunesAnotherKeyOfTheSameAndOfAnotherAutotuner) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    FakeKernel other_kernel({{"BLOCK=64", 1}}, "mul");
    BenchLock bench_lock;
    Autotuner other(other_kernel, two_blocks(), (testing::with_bench_lock(&bench_lock)));
    Autotuner* self = nullptr;
    TunerOptions options(testing::with_bench_lock(&bench_lock));
    options.pre_bench_hook = [&](const Invocation& inv, const Config&) {
      if (inv.key != "outer") return;
      FakeStream stream(7);
      EXPECT_EQ(self->call({"inner", stream}).str(), "BLOCK=128");
      EXPECT_EQ(other.call({"outer", stream}).str(), "BLOCK=64");
    };
    Autotuner tuner(kernel, two_blocks(), options);
    self = &tuner;
    FakeStream stream(1);
    EXPECT_EQ(tuner.call({"outer", stream}).str(), "BLOCK=128");
    EXPECT_EQ(kernel.benches_of("inner"), 2u);
    EXPECT_EQ(other_kernel.benches_of("outer"), 2u);
  });
}

TEST(AutotunerReentry, NestedTuningInsideABenchmarkHoldingTheBenchLock) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    Autotuner* self = nullptr;
    kernel.inside_benchmark = [&](const Invocation& inv, const Config&) {
      if (inv.key != "outer") return;
      FakeStream stream(7);
      self->call({"inner", stream});  // benches re-take the bench lock this thread holds
    };
    BenchLock bench_lock;
    Autotuner tuner(kernel, two_blocks(), (testing::with_bench_lock(&bench_lock)));
    self = &tuner;
    FakeStream stream(1);
    EXPECT_EQ(tuner.call({"outer", stream}).str(), "BLOCK=128");
    EXPECT_EQ(tuner.tuned_config("inner"), Config::parse("BLOCK=128"));
    EXPECT_FALSE(bench_lock.held_by_this_thread());
  });
}

// Thread A holds the bench lock (inside a benchmark of K1) and calls K2, which thread B is
// tuning; B needs the bench lock for its benchmark. A must give the lock up while it waits.
TEST(AutotunerReentry, WaiterHoldingTheBenchLockReleasesItForTheOwner) {
  run_with_deadline([] {
    FakeKernel kernel({{"BLOCK=64", 2}, {"BLOCK=128", 1}});
    std::latch a_holds_bench_lock{1};
    Autotuner* self = nullptr;
    bool a_nested = false;  // touched only by thread A
    kernel.inside_benchmark = [&](const Invocation& inv, const Config&) {
      if (inv.key != "K1" || a_nested) return;
      a_nested = true;
      a_holds_bench_lock.count_down();
      FakeStream stream(3);
      EXPECT_EQ(self->call({"K2", stream}).str(), "BLOCK=128");  // waits for B
    };
    TunerOptions options;
    options.pre_bench_hook = [&](const Invocation& inv, const Config&) {
      if (inv.key == "K2") a_holds_bench_lock.wait();  // B owns K2 before A calls it
    };
    BenchLock bench_lock;
    options.bench_lock = &bench_lock;
    testing::EventCounter events;
    options.observer = &events;
    Autotuner tuner(kernel, two_blocks(), options);
    self = &tuner;
    auto b = std::async(std::launch::async, [&] {
      FakeStream stream(2);
      return tuner.call({"K2", stream}).str();
    });
    ASSERT_TRUE(events.wait_until(model::EventKind::TuneBegin, 1));  // B owns K2
    auto a = std::async(std::launch::async, [&] {
      FakeStream stream(1);
      return tuner.call({"K1", stream}).str();
    });
    ASSERT_TRUE(ready_in_time(a));
    ASSERT_TRUE(ready_in_time(b));
    EXPECT_EQ(a.get(), "BLOCK=128");
    EXPECT_EQ(b.get(), "BLOCK=128");
    EXPECT_EQ(events.count(model::EventKind::WaitBegin), 1);
    EXPECT_EQ(kernel.benches_of("K2"), 2u);
  });
}

}  // namespace
}  // namespace safetune
