// The real autotuner under Relacy: every suite of autotuner_suites.h, searched by Relacy, with
// each execution's trace judged by the model. One test per suite, so ctest reports each one.
//
// Search: full search where it finishes well under 60 s here (cold start, 2 threads, 1 key),
// otherwise the context-bound scheduler with bound 3 (every schedule with at most 3 preemptions).
// Full search of the re-entry suites takes 46-60 s each (4,085,964 executions) and of the others
// over 100 s, too long for CI. Each test prints its threads, keys, search, executions and time.
// Broken policies show that the harness can fail: Relacy must report a lost wake-up (NotifyOneSync)
// as a deadlock, and the model must reject the traces of a broken owner check (OneThreadIdSync).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>

#include "tests/formal/autotuner_suites.h"  // it includes Relacy (see impl/sync_relacy.h)
#include "tests/formal/relacy_search.h"

namespace safetune::formal {
namespace {

TEST(RelacyAutotuner, ColdStartTwoThreads) {
  expect_pass<ColdStart<2, WaitPolicy::Block>>("cold-start-2", 1, kFull);
}

TEST(RelacyAutotuner, ColdStartThreeThreads) {
  expect_pass<ColdStart<3, WaitPolicy::Block>>("cold-start-3", 1, kBound3);
}

TEST(RelacyAutotuner, NestedTuningWithTheBenchLock) {
  expect_pass<NestedTuning<>>("nested-tuning", 2, kBound3);
}

TEST(RelacyAutotuner, EveryConfigFailsThenRetry) {
  expect_pass<FailThenRetry<>>("fail-then-retry", 1, kBound3);
}

TEST(RelacyAutotuner, SameKeyReentryErrorPolicy) {
  expect_pass<SameKeyReentry<ReentryPolicy::Error>>("reentry-error", 1, kBound3);
}

TEST(RelacyAutotuner, SameKeyReentryFallbackPolicy) {
  expect_pass<SameKeyReentry<ReentryPolicy::Fallback>>("reentry-fallback", 1, kBound3);
}

TEST(RelacyAutotuner, InvalidateRacingWithCalls) {
  expect_pass<InvalidateRace<>>("invalidate-race", 1, kBound3);
}

TEST(RelacyAutotuner, ColdStartThroughAHandleAndThroughCall) {
  expect_pass<HandleColdStart<2>>("handle-cold-start-2", 1, kBound3);
}

TEST(RelacyAutotuner, FallbackWaitPolicy) {
  expect_pass<ColdStart<3, WaitPolicy::Fallback>>("fallback-wait-3", 1, kBound3);
}

TEST(RelacyAutotuner, WaitCycleOfTwoThreadsErrorPolicy) {
  expect_pass<WaitCycle<2, ReentryPolicy::Error>>("wait-cycle-2-error", 2, kBound3);
}

TEST(RelacyAutotuner, WaitCycleOfTwoThreadsFallbackPolicy) {
  expect_pass<WaitCycle<2, ReentryPolicy::Fallback>>("wait-cycle-2-fallback", 2, kBound3);
}

// Context bound 2: its search covers the interleavings where all three owners nest into a cycle
// (the same search without the wait graph deadlocks, below): 100,347 executions in 2 s, where
// bound 3 runs 2.5 million in 51 s.
TEST(RelacyAutotuner, WaitCycleOfThreeThreads) {
  expect_pass<WaitCycle<3, ReentryPolicy::Error>>("wait-cycle-3-error", 3, kBound2);
}

// Spurious wake-ups: Relacy makes them only under its random scheduler, so these suites run there,
// and each must see some (its count is printed): a waiter that trusted its wake-up instead of
// re-checking `done` would launch before the winner is published, or read a failure that did not
// happen, and the model would reject the trace.
template <class Suite>
void expect_pass_with_spurious_wakeups(const std::string& name, int keys) {
  const unsigned long long before = RelacySync::CondVar::spurious_wakeups();
  expect_pass<Suite>(name, keys, kRandom);
  const unsigned long long seen = RelacySync::CondVar::spurious_wakeups() - before;
  std::cout << "[formal] suite=" << name << " spurious_wakeups=" << seen << std::endl;
  EXPECT_GT(seen, 0u) << "the random search woke no waiter spuriously: it proves nothing about them";
}

TEST(RelacyAutotuner, SpuriousWakeupsOfWaitersOnASuccess) {
  expect_pass_with_spurious_wakeups<ColdStart<3, WaitPolicy::Block>>("spurious-cold-start-3", 1);
}

TEST(RelacyAutotuner, SpuriousWakeupsOfWaitersOnAFailure) {
  expect_pass_with_spurious_wakeups<FailThenRetry<>>("spurious-fail-then-retry", 1);
}

TEST(RelacyAutotuner, SpuriousWakeupsInAWaitCycle) {
  expect_pass_with_spurious_wakeups<WaitCycle<3, ReentryPolicy::Error>>("spurious-wait-cycle-3", 3);
}

// Without the wait graph, the reference deadlocks on a cycle of nested tunings, of two threads
// and of three, in the searches the passing suites use.
TEST(RelacyAutotunerMutation, NoCycleCheckIsCaughtAsADeadlock) {
  using TwoThreads = WaitCycle<2, ReentryPolicy::Error, false>;
  using ThreeThreads = WaitCycle<3, ReentryPolicy::Error, false>;
  EXPECT_EQ(explore<TwoThreads>("mutant-no-cycle-check-2", 2, kBound3).result, rl::test_result_deadlock);
  EXPECT_EQ(explore<ThreeThreads>("mutant-no-cycle-check-3", 3, kBound2).result, rl::test_result_deadlock);
}

// The mutation: notify_one where notify_all is needed. With two waiters one is never woken, and
// Relacy must report the execution as a deadlock (and print its history).
TEST(RelacyAutotunerMutation, NotifyOneIsCaughtAsADeadlock) {
  const Outcome outcome =
      explore<ColdStart<3, WaitPolicy::Block, NotifyOneSync>>("mutant-notify-one", 1, kBound3);
  std::cout << outcome.relacy_output;
  EXPECT_EQ(outcome.result, rl::test_result_deadlock);
}

// The mutation: the owner check cannot tell threads apart. Under reentry policy fallback another
// thread's call on a key being tuned then launches the fallback instead of waiting (wait policy
// block): no race and no deadlock, so only the model can catch it, and it must (R6 early use).
TEST(RelacyAutotunerMutation, SharedThreadIdIsCaughtByTheModel) {
  const Outcome outcome = explore<SameKeyReentry<ReentryPolicy::Fallback, OneThreadIdSync>>(
      "mutant-shared-thread-id", 1, kBound3);
  std::cout << last_violation();
  EXPECT_EQ(outcome.result, rl::test_result_user_assert_failed);
  EXPECT_THAT(last_violation(), ::testing::HasSubstr("R6"));
}

}  // namespace
}  // namespace safetune::formal
