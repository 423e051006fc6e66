// Wait cycles are answered, never deadlocked: N threads each own an attempt on key i and, from
// its first pre-bench hook, call key i+1 (mod N), through one autotuner or through several. The
// rendezvous makes every owner be inside its attempt before any nested call, so the nested calls
// form a cycle every run: the last of them to wait would close it and gets the re-entry policy's
// answer instead (TuningCycle naming the cycle, or the fallback); the others wait, and every
// call ends. Each run's white-box trace must pass the model, R11 included.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "impl/autotuner.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/deadline.h"
#include "tests/impl/fake_kernel.h"

namespace safetune {
namespace {

using ::testing::HasSubstr;
using testing::FakeKernel;
using testing::FakeStream;

constexpr const char* kFallback = "BLOCK=64";  // not in the space: every fallback launch shows
constexpr int kRuns = 100;

// Blocks each owner until all `count` owners are inside their attempts.
class Rendezvous {
 public:
  explicit Rendezvous(int count) : left_(count) {}
  void arrive_and_wait() {
    std::unique_lock lock(mutex_);
    if (--left_ == 0) all_here_.notify_all();
    all_here_.wait(lock, [this] { return left_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_here_;
  int left_;
};

// What one run saw: the nested calls' outcomes, and the model's verdict on the trace.
struct CycleRun {
  std::vector<std::string> errors;    // what the nested calls raised
  std::vector<std::string> launched;  // what the nested calls launched
  model::CheckResult check;
};

// Thread i owns key "k<i>" of autotuner i % tuners and, from its first hook, calls key
// "k<i+1 mod threads>" of autotuner (i+1) % tuners.
CycleRun run_cycle(int threads, int tuners, ReentryPolicy reentry) {
  const ConfigSpace space = ConfigSpace::parse("BLOCK=128;BLOCK=256");
  std::vector<std::unique_ptr<FakeKernel>> kernels;
  for (int t = 0; t < tuners; ++t)
    kernels.push_back(std::make_unique<FakeKernel>(std::map<std::string, double>{{"BLOCK=128", 2}, {"BLOCK=256", 1}},
                                                   "kernel" + std::to_string(t)));
  model::Header header = testing::header_for(*kernels[0], space);
  for (const auto& kernel : kernels) header.configs[kernel->name()] = space.strings();
  header.policy.reentry = reentry;
  if (reentry == ReentryPolicy::Fallback) header.policy.fallback = kFallback;
  TraceRecorder recorder(header);

  Rendezvous owners(threads);
  std::mutex outcomes_mutex;
  CycleRun run;
  std::vector<std::unique_ptr<Autotuner>> tuner;
  auto key_of = [](int thread) { return "k" + std::to_string(thread); };
  for (int t = 0; t < tuners; ++t) {
    TunerOptions options;
    options.reentry = reentry;
    if (reentry == ReentryPolicy::Fallback) options.fallback = Config::parse(kFallback);
    options.observer = &recorder;
    options.pre_bench_hook = [&, threads](const Invocation& inv, const Config&) {
      thread_local const Invocation* hooked = nullptr;  // the owning call whose hook ran
      if (hooked == &inv) return;
      hooked = &inv;
      owners.arrive_and_wait();
      const int next = (std::stoi(std::string(inv.key.substr(1))) + 1) % threads;
      Autotuner& nested = *tuner[static_cast<std::size_t>(next % tuners)];
      const std::string& kernel = kernels[static_cast<std::size_t>(next % tuners)]->name();
      recorder.call_begin(kernel, key_of(next), inv.stream.id());
      try {
        const Config& config = nested.call({key_of(next), inv.stream});
        recorder.call_end(kernel, key_of(next), CallOutcome::returned(config.str()), inv.stream.id());
        std::lock_guard guard(outcomes_mutex);
        run.launched.push_back(config.str());
      } catch (const std::exception& error) {
        recorder.call_end(kernel, key_of(next), CallOutcome::raised(error.what()), inv.stream.id());
        std::lock_guard guard(outcomes_mutex);
        run.errors.push_back(error.what());
      }
    };
    tuner.push_back(std::make_unique<Autotuner>(*kernels[static_cast<std::size_t>(t)], space, options));
  }
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      TraceRecorder::bind_thread(i);
      FakeStream stream(i);
      Autotuner& own = *tuner[static_cast<std::size_t>(i % tuners)];
      testing::recorded_call(own, recorder, kernels[static_cast<std::size_t>(i % tuners)]->name(), key_of(i), stream);
    });
  }
  for (auto& worker : workers) worker.join();
  run.check = model::check(recorder.snapshot());
  return run;
}

struct CycleCase {
  int threads;
  int tuners;
  ReentryPolicy reentry;
};

class WaitCycle : public ::testing::TestWithParam<CycleCase> {};

TEST_P(WaitCycle, EveryRunEndsAndExactlyOneCallGetsTheReentryAnswer) {
  const CycleCase c = GetParam();
  testing::run_with_deadline([&] {
    for (int run = 0; run < kRuns; ++run) {
      const CycleRun result = run_cycle(c.threads, c.tuners, c.reentry);
      ASSERT_TRUE(result.check.ok()) << "run " << run << ":\n" << testing::violation_text(result.check);
      EXPECT_EQ(result.check.stats.calls, 2 * c.threads);
      if (c.reentry == ReentryPolicy::Error) {
        ASSERT_EQ(result.errors.size(), 1u) << "run " << run;
        EXPECT_THAT(result.errors[0], HasSubstr("waiting would close a cycle of waits"));
        for (int i = 0; i < c.threads; ++i)  // every key of the cycle is named
          EXPECT_THAT(result.errors[0], HasSubstr("key 'k" + std::to_string(i) + "'"));
        EXPECT_EQ(result.launched.size(), static_cast<std::size_t>(c.threads - 1));
      } else {
        EXPECT_TRUE(result.errors.empty()) << result.errors.front();
        EXPECT_EQ(std::count(result.launched.begin(), result.launched.end(), kFallback), 1) << "run " << run;
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(
    ThreadsAndPolicies, WaitCycle,
    ::testing::Values(CycleCase{2, 1, ReentryPolicy::Error}, CycleCase{2, 1, ReentryPolicy::Fallback},
                      CycleCase{3, 1, ReentryPolicy::Error}, CycleCase{3, 1, ReentryPolicy::Fallback},
                      CycleCase{2, 2, ReentryPolicy::Error}, CycleCase{3, 3, ReentryPolicy::Fallback}),
    [](const auto& info) {
      return std::to_string(info.param.threads) + "Threads" + std::to_string(info.param.tuners) + "Autotuners" +
             (info.param.reentry == ReentryPolicy::Error ? "Error" : "Fallback");
    });

}  // namespace
}  // namespace safetune
