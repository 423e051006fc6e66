// The broken subjects under Relacy (issue 4, item 3): each subject whose bug is a
// synchronization bug, its own code bound to RelacySync (subject_suites.h), must be caught, and
// the catch is what the test expects. Each test prints the search line (scheduler, executions up
// to and including the failing one, time), the model's violation and trace when the model
// caught it, and Relacy's history of the failing execution.
//
// A test that cannot fail proves nothing, so every scenario also runs with mini-correct
// (BasicMiniTuner, no step overridden) and must pass: a catch is the subject's bug, not the
// scenario's. Search: full search, except for nested tuning (two keys and the bench lock: over
// 15M executions and 6 minutes in full), which uses context bound 3.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>

#include "stress/subjects/check_then_act.h"
#include "stress/subjects/mini_tuner.h"
#include "stress/subjects/nested_deadlock.h"
#include "stress/subjects/no_wake_on_failure.h"
#include "stress/subjects/notify_one.h"
#include "stress/subjects/reentry_deadlock.h"
#include "stress/subjects/retry_storm.h"
#include "stress/subjects/stale_publish.h"
#include "tests/formal/subject_suites.h"  // it includes Relacy (see impl/sync_relacy.h)
#include "tests/formal/relacy_search.h"

namespace safetune::formal::subject {
namespace {

using stress::subjects::BasicMiniTuner;
using stress::subjects::CheckThenAct;
using stress::subjects::NestedDeadlock;
using stress::subjects::NoWakeOnFailure;
using stress::subjects::NotifyOne;
using stress::subjects::ReentryDeadlock;
using stress::subjects::RetryStorm;
using stress::subjects::StalePublish;

// Relacy must stop the search at a failing execution of kind `expected`, and print it.
template <class Suite>
void expect_caught(const std::string& name, int keys, const Search& search,
                   rl::test_result_e expected) {
  const Outcome outcome = explore<Suite>(name, keys, search);
  std::cout << last_violation() << outcome.relacy_output;
  EXPECT_EQ(outcome.result, expected) << "expected " << rl::test_result_str(expected);
}

// A catch by the model (Relacy's RL_ASSERT on the trace) for duplicate tuning: R2 (a second
// attempt while one is in flight) or R3 (a new attempt after a success), whichever the first
// failing execution shows.
template <class Suite>
void expect_duplicate_tuning(const std::string& name, int keys, const Search& search) {
  expect_caught<Suite>(name, keys, search, rl::test_result_user_assert_failed);
  EXPECT_THAT(last_violation(), ::testing::AnyOf(::testing::HasSubstr("R2 exclusive tuning"),
                                                 ::testing::HasSubstr("R3 single tuning")));
}

// ---- The broken subjects: each must be caught. ----

TEST(RelacySubject, NotifyOneIsCaughtAsADeadlock) {
  expect_caught<ColdStart<NotifyOne, 3>>("subject-notify-one", 1, kFull,
                                         rl::test_result_deadlock);
}

TEST(RelacySubject, NoWakeOnFailureIsCaughtAsADeadlock) {
  expect_caught<FailThenRetry<NoWakeOnFailure>>("subject-no-wake-on-failure", 1, kFull,
                                                rl::test_result_deadlock);
}

TEST(RelacySubject, CheckThenActIsCaughtByTheModel) {
  expect_duplicate_tuning<ColdStart<CheckThenAct, 2, Box::Black>>("subject-check-then-act", 1,
                                                                  kFull);
}

TEST(RelacySubject, StalePublishIsCaughtAsADataRace) {
  expect_caught<ColdStart<StalePublish, 2>>("subject-stale-publish", 1, kFull,
                                            rl::test_result_data_race);
}

TEST(RelacySubject, ReentryDeadlockIsCaughtAsADeadlock) {
  expect_caught<SameKeyReentry<ReentryDeadlock>>("subject-reentry-deadlock", 1, kFull,
                                                 rl::test_result_deadlock);
}

TEST(RelacySubject, NestedDeadlockIsCaughtAsADeadlock) {
  expect_caught<NestedTuning<NestedDeadlock>>("subject-nested-deadlock", 2, kBound3,
                                              rl::test_result_deadlock);
}

TEST(RelacySubject, RetryStormIsCaughtByTheModel) {
  expect_duplicate_tuning<FailThenRetry<RetryStorm>>("subject-retry-storm", 1, kFull);
}

// ---- The same scenarios with mini-correct: each must pass. ----

TEST(RelacySubjectControl, ColdStartThreeThreads) {
  expect_pass<ColdStart<BasicMiniTuner, 3>>("mini-correct-cold-start-3", 1, kFull);
}

TEST(RelacySubjectControl, ColdStartTwoThreads) {
  expect_pass<ColdStart<BasicMiniTuner, 2>>("mini-correct-cold-start-2", 1, kFull);
}

TEST(RelacySubjectControl, ColdStartTwoThreadsBlackBox) {
  expect_pass<ColdStart<BasicMiniTuner, 2, Box::Black>>("mini-correct-cold-start-2-black-box", 1,
                                                        kFull);
}

TEST(RelacySubjectControl, EveryConfigFailsThenRetry) {
  expect_pass<FailThenRetry<BasicMiniTuner>>("mini-correct-fail-then-retry", 1, kFull);
}

TEST(RelacySubjectControl, SameKeyReentry) {
  expect_pass<SameKeyReentry<BasicMiniTuner>>("mini-correct-reentry", 1, kFull);
}

TEST(RelacySubjectControl, NestedTuning) {
  expect_pass<NestedTuning<BasicMiniTuner>>("mini-correct-nested-tuning", 2, kBound3);
}

}  // namespace
}  // namespace safetune::formal::subject
