// The real autotuner under Relacy: every suite of autotuner_suites.h, searched by Relacy, with
// each execution's trace judged by the model. One test per suite, so ctest reports each one.
//
// Search: full search where it finishes well under 60 s here (2 threads, 1 key), otherwise the
// context-bound scheduler with bound 2. Each test prints its threads, keys, search, executions and time.
// Broken policies show that the harness can fail: Relacy must report a lost wake-up (NotifyOneSync)
// as a deadlock, and the model must reject the traces of a broken owner check (OneThreadIdSync).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>

#include "tests/formal/autotuner_suites.h"  // last: it includes Relacy (see impl/sync_relacy.h)

namespace safetune::formal {
namespace {

struct Search {
  rl::scheduler_type_e type = rl::sched_full;
  unsigned context_bound = 0;  // for rl::sched_bound only
  std::string show() const {
    return type == rl::sched_full ? "full" : "context-bound " + std::to_string(context_bound);
  }
};

struct Outcome {
  rl::test_result_e result = rl::test_result_success;
  unsigned long long executions = 0;
  double seconds = 0;
  std::string relacy_output;
};

// Runs `Suite` under Relacy and prints one line for the report.
template <class Suite>
Outcome explore(const std::string& name, int keys, const Search& search) {
  rl::test_params params;
  params.search_type = search.type;
  params.context_bound = search.context_bound;
  std::ostringstream output;
  params.output_stream = &output;
  params.progress_stream = &output;
  last_violation().clear();
  const auto start = std::chrono::steady_clock::now();
  rl::simulate<Suite>(params);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  Outcome outcome{params.test_result, params.stop_iteration, elapsed.count(), output.str()};
  std::cout << "[formal] suite=" << name << " threads=" << Suite::params::thread_count
            << " keys=" << keys << " search=" << search.show()
            << " executions=" << outcome.executions << " time_s=" << outcome.seconds
            << " result=" << rl::test_result_str(outcome.result) << std::endl;
  return outcome;
}

// The suite must pass: no violation, race, deadlock or livelock in any execution explored.
template <class Suite>
void expect_pass(const std::string& name, int keys, const Search& search) {
  const Outcome outcome = explore<Suite>(name, keys, search);
  EXPECT_EQ(outcome.result, rl::test_result_success)
      << "Relacy: " << rl::test_result_str(outcome.result) << "\n"
      << last_violation() << outcome.relacy_output;
  EXPECT_GT(outcome.executions, 0u);
}

const Search kFull{rl::sched_full, 0};
const Search kBound2{rl::sched_bound, 2};

TEST(RelacyAutotuner, ColdStartTwoThreads) {
  expect_pass<ColdStart<2, WaitPolicy::Block>>("cold-start-2", 1, kFull);
}

TEST(RelacyAutotuner, ColdStartThreeThreads) {
  expect_pass<ColdStart<3, WaitPolicy::Block>>("cold-start-3", 1, kBound2);
}

TEST(RelacyAutotuner, NestedTuningWithTheBenchLock) {
  expect_pass<NestedTuning<>>("nested-tuning", 2, kBound2);
}

TEST(RelacyAutotuner, EveryConfigFailsThenRetry) {
  expect_pass<FailThenRetry<>>("fail-then-retry", 1, kBound2);
}

TEST(RelacyAutotuner, SameKeyReentryErrorPolicy) {
  expect_pass<SameKeyReentry<ReentryPolicy::Error>>("reentry-error", 1, kBound2);
}

TEST(RelacyAutotuner, SameKeyReentryFallbackPolicy) {
  expect_pass<SameKeyReentry<ReentryPolicy::Fallback>>("reentry-fallback", 1, kBound2);
}

TEST(RelacyAutotuner, InvalidateRacingWithCalls) {
  expect_pass<InvalidateRace<>>("invalidate-race", 1, kBound2);
}

TEST(RelacyAutotuner, FallbackWaitPolicy) {
  expect_pass<ColdStart<3, WaitPolicy::Fallback>>("fallback-wait-3", 1, kBound2);
}

// The mutation: notify_one where notify_all is needed. With two waiters one is never woken, and
// Relacy must report the execution as a deadlock (and print its history).
TEST(RelacyAutotunerMutation, NotifyOneIsCaughtAsADeadlock) {
  const Outcome outcome =
      explore<ColdStart<3, WaitPolicy::Block, NotifyOneSync>>("mutant-notify-one", 1, kBound2);
  std::cout << outcome.relacy_output;
  EXPECT_EQ(outcome.result, rl::test_result_deadlock);
}

// The mutation: the owner check cannot tell threads apart. Under reentry policy fallback another
// thread's call on a key being tuned then launches the fallback instead of waiting (wait policy
// block): no race and no deadlock, so only the model can catch it, and it must (R6 early use).
TEST(RelacyAutotunerMutation, SharedThreadIdIsCaughtByTheModel) {
  const Outcome outcome = explore<SameKeyReentry<ReentryPolicy::Fallback, OneThreadIdSync>>(
      "mutant-shared-thread-id", 1, kBound2);
  std::cout << last_violation();
  EXPECT_EQ(outcome.result, rl::test_result_user_assert_failed);
  EXPECT_THAT(last_violation(), testing::HasSubstr("R6"));
}

}  // namespace
}  // namespace safetune::formal
