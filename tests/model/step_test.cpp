// Direct tests of the model's step function, finish() and the checker: purity, the tricky
// judgements (black-box deferred publication, R2 recovery, R8 only under block), the shape of
// violations (rule, seqs, message, state_before) and the stats.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "model/checker.h"
#include "model/model.h"
#include "trace_builder.h"

namespace safetune::model {
namespace {

using testing::TraceBuilder;

const std::string A = "BLOCK=128";
const std::string B = "BLOCK=256";
const std::string F = "BLOCK=64";

// Runs step() over every event, collecting violations, and returns the final state.
State run(const Trace& trace, std::vector<Violation>* found = nullptr) {
  State state = initial_state(trace.header);
  for (const auto& event : trace.events) {
    StepResult result = step(std::move(state), event);
    state = std::move(result.next);
    if (found) found->insert(found->end(), result.violations.begin(), result.violations.end());
  }
  return state;
}

std::vector<Rule> rules_of(const CheckResult& result) {
  std::vector<Rule> rules;
  for (const auto& v : result.violations) rules.push_back(v.rule);
  return rules;
}

// step() takes its state by value, so the caller's copy is untouched by the language itself. What
// purity can break is hidden state: a cache or counter kept between calls would make the same
// input give another output after other states went through step() in between.
TEST(Step, IsPureSameInputSameOutputWhateverRanBetween) {
  TraceBuilder b(true);
  b.configs({A, B}).call_begin(1).tune_begin(1).call_begin(2).wait_begin(2).bench(1, A, 5);
  const State before = run(b.trace());
  const Event next = TraceBuilder(b).bench(1, B, 9).trace().events.back();
  const StepResult first = step(before, next);
  TraceBuilder other(false);  // another trace through step() in between, breaking rules
  other.configs({A}).call_begin(7).launch(7, B).call_end(7, A).call_begin(8).call_end(8, A);
  std::vector<Violation> other_found;
  run(other.trace(), &other_found);
  ASSERT_FALSE(other_found.empty());
  const StepResult second = step(before, next);
  EXPECT_TRUE(first.next == second.next);
  EXPECT_EQ(first.violations, second.violations);
  EXPECT_FALSE(first.next.benches == before.benches);  // the bench was recorded in the attempt
}

// advance() is step() done in place: the same next state and the same violations.
TEST(Step, AdvanceIsStepInPlace) {
  TraceBuilder b(true);
  b.configs({A, B}).call_begin(1).tune_begin(1).bench(1, A, 5).bench(1, B, 9).tune_end(1, A);
  b.launch(1, A).call_end(1, A).call_begin(2);
  const State before = run(b.trace());
  const Event next = TraceBuilder(b).tune_begin(2).trace().events.back();  // R3
  const StepResult stepped = step(before, next);
  State in_place = before;
  std::vector<Violation> found;
  advance(in_place, next, found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found, stepped.violations);
  EXPECT_TRUE(in_place == stepped.next);
}

TEST(Step, ViolationNamesRuleSeqsThreadsAndStateBefore) {
  TraceBuilder b(true);
  b.configs({A, B}).call_begin(1).tune_begin(1).bench(1, A, 5).bench(1, B, 9).tune_end(1, A);
  const std::int64_t success = b.last_seq();
  b.launch(1, A).call_end(1, A).call_begin(2).tune_begin(2);
  std::vector<Violation> found;
  run(b.trace(), &found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, Rule::R3);
  EXPECT_EQ(found[0].seqs, (std::vector<std::int64_t>{success, b.last_seq()}));
  EXPECT_NE(found[0].message.find("seq " + std::to_string(success)), std::string::npos)
      << found[0].message;
  EXPECT_NE(found[0].message.find("thread 2"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("add[k]"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].state_before.find("Tuned{" + A + "}"), std::string::npos) << found[0].state_before;
}

TEST(BlackBox, LaunchDuringAttemptIsJudgedWhenTheAttemptEnds) {
  TraceBuilder b(false);
  b.configs({A, B}).call_begin(1).call_begin(2).bench(1, A, 5).bench(1, B, 9).launch(2, A);
  std::vector<Violation> found;
  State state = run(b.trace(), &found);
  EXPECT_TRUE(found.empty());
  // Some choice placed the owner's publication before the launch: there the launch waits for
  // the owner to say which config it published.
  const auto& choices = state.keys.at({"add", "k"}).choices;
  EXPECT_TRUE(std::any_of(choices.begin(), choices.end(), [](const Choice& c) { return c.pending.size() == 1; }));

  TraceBuilder good = b;
  good.launch(1, A).call_end(1, A).call_end(2, A);  // the winner A counts as published from seq 4, before thread 2's launch
  EXPECT_TRUE(check(good.trace()).ok());

  TraceBuilder wrong = b;
  // The owner picks B (an R4 error). Every choice then breaks one more rule with thread 2's A:
  // B published before it (R5), or no winner yet (R6); the report names one of them.
  wrong.launch(1, B).call_end(1, B).call_end(2, A);
  const auto result = check(wrong.trace());
  ASSERT_EQ(result.violations.size(), 2u);
  const auto by_rule = [&](Rule rule) {
    return std::find_if(result.violations.begin(), result.violations.end(), [rule](const Violation& v) { return v.rule == rule; });
  };
  EXPECT_NE(by_rule(Rule::R4), result.violations.end());
  auto launch = by_rule(Rule::R5) != result.violations.end() ? by_rule(Rule::R5) : by_rule(Rule::R6);
  ASSERT_NE(launch, result.violations.end());
  EXPECT_EQ(launch->seqs, (std::vector<std::int64_t>{2, 5}));
}

TEST(BlackBox, LaunchBeforeTheLastBenchIsEarlyUse) {
  TraceBuilder b(false);
  b.configs({A, B}).call_begin(1).call_begin(2).bench(1, A, 5).launch(2, A).bench(1, B, 9);
  const std::int64_t early_launch = 4;
  b.launch(1, A).call_end(1, A).call_end(2, A);
  const auto result = check(b.trace());
  ASSERT_EQ(rules_of(result), std::vector<Rule>{Rule::R6});
  EXPECT_EQ(result.violations[0].seqs, (std::vector<std::int64_t>{2, early_launch}));
}

TEST(BlackBox, PendingLaunchOfAHungAttemptIsJudgedAtFinish) {
  TraceBuilder b(false);
  b.configs({A, B}).call_begin(1).call_begin(2).bench(1, A, 5).launch(2, A).call_end(2, A);
  const auto result = check(b.trace());
  EXPECT_EQ(rules_of(result), (std::vector<Rule>{Rule::R6, Rule::R7}));
  EXPECT_EQ(result.stats.hung_calls, 1);
}

// Nine invalidates in progress on a tuned key, then a lone one: each subset of the nine may have
// taken effect before it, 512 states, more than kMaxChoicesPerKey. The check stops there and is
// incomplete: a call open at that point (whose call_end comes later) is not a hang, and what
// follows (a launch of a config never published) is not judged.
TEST(BlackBox, AFrontierPastItsBoundIsIncompleteAndJudgesNothingAfterIt) {
  TraceBuilder b(false);
  b.configs({A, B}).call_begin(1).bench(1, A, 5).bench(1, B, 9).launch(1, A).call_end(1, A);
  b.call_begin(14, "other");
  for (int thread = 2; thread <= 10; ++thread) b.invalidate_begin(thread);
  b.invalidate_end(11);
  b.call_begin(12).launch(12, B).call_end(12, B);
  b.call_begin(13).launch(14, B, "other").call_end(14, B, "other");
  const auto result = check(b.trace());
  ASSERT_TRUE(result.incomplete.has_value());
  EXPECT_NE(result.incomplete->find("more than 256 choices"), std::string::npos) << *result.incomplete;
  EXPECT_FALSE(result.ok());
  EXPECT_TRUE(result.violations.empty()) << result.violations.front().message;
  EXPECT_EQ(result.stats.hung_calls, 0);
}

// A call_begin is not a re-entry of itself: calls that begin while an attempt is in flight place
// no hidden point (the frontier once doubled at each of them, and a faults run of
// future-single-flight became incomplete).
TEST(BlackBox, CallsBeginningDuringAnAttemptKeepOneChoice) {
  TraceBuilder b(false);
  b.configs({A, B}).call_begin(1).bench(1, A, 5);
  for (int thread = 2; thread <= 40; ++thread) b.call_begin(thread);
  const State state = run(b.trace());
  EXPECT_EQ(state.keys.at(KeyId{"add", "k"}).choices.size(), 1u);
}

TEST(Recovery, AfterR2TheMostRecentWinnerIsPublished) {
  TraceBuilder b(true);
  b.call_begin(1).call_begin(2).tune_begin(1).tune_begin(2).bench(1, A, 5).bench(2, B, 5)
      .tune_end(1, A).tune_end(2, B).launch(1, A).call_end(1, A).launch(2, B).call_end(2, B);
  std::vector<Violation> found;
  const State state = run(b.trace(), &found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, Rule::R2);
  EXPECT_EQ(state.keys.at({"add", "k"}).choices.front().winner, B);
  EXPECT_EQ(phase(state.keys.at({"add", "k"}).choices.front()), Phase::Tuned);
  b.call_begin(3).launch(3, A).call_end(3, A);  // A is no longer published
  EXPECT_EQ(rules_of(check(b.trace())), (std::vector<Rule>{Rule::R2, Rule::R5}));
}

TEST(R8, WaitersOfAFailedAttemptMayLaunchALaterWinner) {
  TraceBuilder b(true);
  b.configs({A, B}).call_begin(1).tune_begin(1).call_begin(2).wait_begin(2).bench_error(1, A)
      .bench_error(1, B).tune_error(1).call_error(1).call_begin(3).tune_begin(3).bench(3, A, 1)
      .bench(3, B, 2).tune_end(3, A).launch(3, A).call_end(3, A).wait_end(2).launch(2, A).call_end(2, A);
  EXPECT_TRUE(check(b.trace()).ok());
}

TEST(R8, DoesNotApplyUnderWaitPolicyFallback) {
  TraceBuilder b(true);
  b.configs({A, B}).fallback_policy(F).call_begin(1).tune_begin(1).call_begin(2).wait_begin(2)
      .bench_error(1, A).bench_error(1, B).tune_error(1).call_error(1).wait_end(2).launch(2, F)
      .call_end(2, F);
  EXPECT_TRUE(check(b.trace()).ok());
}

TEST(Checker, OneViolationPerRulePerEvent) {
  TraceBuilder b(true);  // the tune_end both picks the slower config and skips B: one R4
  b.configs({A, B, F}).call_begin(1).tune_begin(1).bench(1, A, 9).bench(1, F, 1).tune_end(1, A)
      .launch(1, A).call_end(1, A);
  const auto result = check(b.trace());
  ASSERT_EQ(rules_of(result), std::vector<Rule>{Rule::R4});
  EXPECT_EQ(result.violations[0].seqs.back(), 5);
}

TEST(Checker, CountsStats) {
  TraceBuilder b(true);
  b.configs({A, B}).call_begin(1).tune_begin(1).bench_error(1, A).bench_error(1, B).tune_error(1)
      .call_error(1).call_begin(2).tune_begin(2).bench(2, A, 1).bench(2, B, 2).tune_end(2, A)
      .launch(2, A).call_end(2, A).call_begin(3).tune_begin(3).bench(3, A, 1).bench(3, B, 2)
      .tune_end(3, A).launch(3, A).call_end(3, A).call_begin(4);
  const auto result = check(b.trace());
  EXPECT_EQ(result.stats.calls, 4);
  EXPECT_EQ(result.stats.attempts, 3);
  EXPECT_EQ(result.stats.successful_tunings, 2);
  EXPECT_EQ(result.stats.duplicate_tunings, 1);
  EXPECT_EQ(result.stats.benches, 6);
  EXPECT_EQ(result.stats.failed_benches, 2);
  EXPECT_EQ(result.stats.errors, 1);
  EXPECT_EQ(result.stats.hung_calls, 1);
  EXPECT_EQ(rules_of(result), (std::vector<Rule>{Rule::R3, Rule::R7}));
}

TEST(Checker, BlackBoxAttemptsAreRunsOfBenchesInOneCall) {
  TraceBuilder b(false);
  b.configs({A, B}).call_begin(1).bench(1, A, 1).bench(1, B, 2).launch(1, A).call_end(1, A)
      .call_begin(2).bench(2, A, 1).call_end(2, A);
  const auto result = check(b.trace());
  EXPECT_EQ(result.stats.attempts, 2);
  EXPECT_EQ(result.stats.successful_tunings, 1);
  EXPECT_EQ(result.stats.duplicate_tunings, 1);
}

// Each thread of `trace` in a process of its own (named by the thread's number), so that its
// attempts may hold leases (white-box, across processes).
Trace one_process_per_thread(Trace trace) {
  for (Event& event : trace.events) event.process = Name::integer(std::stoll(event.thread.text));
  return trace;
}

// Thread 3 begins over the attempts of threads 1 and 2 (each in a process of its own), and all
// three end holding their leases: three overlaps, each R2 (thread 3's two are judged at its
// tune_end, one report for that event), but two duplicate tunings: one per tune_begin over
// another attempt, however many attempts it began over.
TEST(Leases, ATuneBeginOverSeveralAttemptsCountsOneDuplicate) {
  TraceBuilder b(true);
  b.configs({A, B}).call_begin(1).tune_begin(1).call_begin(2).tune_begin(2).call_begin(3).tune_begin(3);
  for (const int thread : {1, 2, 3})
    b.bench(thread, A, 1).bench(thread, B, 2).tune_end(thread, A).launch(thread, A).call_end(thread, A);
  const auto result = check(one_process_per_thread(b.trace()));
  EXPECT_EQ(result.stats.duplicate_tunings, 2);
  EXPECT_EQ(rules_of(result), (std::vector<Rule>{Rule::R2, Rule::R2}));
}

// Thread 1 begins over thread 3's attempt, both after thread 2's success: thread 3's late repeat
// is judged when it ends, and the overlap then waits for thread 1's end, where its late repeat is
// judged too. That tune_begin is one duplicate, however its R2 and R3 are reported.
TEST(Leases, AnOverlapLeftToALateRepeatCountsOneDuplicate) {
  for (const bool later_ends : {true, false}) {
    TraceBuilder b(true);
    b.configs({A, B}).call_begin(2).tune_begin(2).bench(2, A, 1).bench(2, B, 2).tune_end(2, A).launch(2, A)
        .call_end(2, A).call_begin(3).tune_begin(3).call_begin(1).tune_begin(1).bench(3, A, 1).bench(3, B, 2)
        .tune_end(3, A).launch(3, A).call_end(3, A).bench(1, A, 1).bench(1, B, 2);
    if (later_ends) b.tune_end(1, A).launch(1, A).call_end(1, A);
    const auto result = check(one_process_per_thread(b.trace()));
    EXPECT_EQ(result.stats.duplicate_tunings, 2) << "thread 1's attempt ended: " << later_ends;
    const std::vector<Rule> rules = later_ends ? std::vector<Rule>{Rule::R3, Rule::R3, Rule::R2}
                                               : std::vector<Rule>{Rule::R3, Rule::R3, Rule::R2, Rule::R7};
    EXPECT_EQ(rules_of(result), rules) << "thread 1's attempt ended: " << later_ends;
  }
}

TEST(Names, RuleAndEventNamesRoundTrip) {
  EXPECT_EQ(rule_id(Rule::R1), "R1");
  EXPECT_EQ(rule_id(Rule::R10), "R10");
  EXPECT_EQ(rule_name(Rule::R6), "no early use");
  EXPECT_EQ(rule_id(Rule::R14), "R14");
  EXPECT_EQ(rule_name(Rule::R14), "no spurious failure");
  EXPECT_EQ(rule_index(Rule::R14), kRuleCount - 1);
  for (auto kind : {EventKind::CallBegin, EventKind::CallEnd, EventKind::TuneBegin, EventKind::Bench,
                    EventKind::TuneEnd, EventKind::WaitBegin, EventKind::WaitEnd, EventKind::Launch,
                    EventKind::Invalidate, EventKind::InvalidateBegin, EventKind::LaunchFailed})
    EXPECT_EQ(parse_event_name(event_name(kind)), kind);
  EXPECT_EQ(event_name(EventKind::LaunchFailed), "launch_failed");
  EXPECT_EQ(parse_event_name("call-begin"), std::nullopt);
}

}  // namespace
}  // namespace safetune::model
