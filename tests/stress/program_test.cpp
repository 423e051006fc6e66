// Program generation, the watchdog's stall detection and hang description, and the replay line.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <utility>

#include "stress/harness/program.h"
#include "stress/harness/round_progress.h"
#include "stress/harness/watchdog.h"
#include "stress/report/replay.h"
#include "tests/store/child_process.h"

namespace safetune::stress {
namespace {

ProgramShape shape(int threads, int keys, int configs, int calls) {
  return ProgramShape{threads, keys, configs, calls};
}

TEST(Program, SameSeedAndRoundGiveTheSameProgram) {
  const Program a = generate_program(shape(8, 4, 16, 50), ProgramMix::full(), 1234, 3);
  const Program b = generate_program(shape(8, 4, 16, 50), ProgramMix::full(), 1234, 3);
  EXPECT_EQ(describe(a), describe(b));
  EXPECT_EQ(a.device_seed, b.device_seed);
}

TEST(Program, OtherSeedOrRoundGivesAnotherProgram) {
  const Program base = generate_program(shape(8, 4, 16, 50), ProgramMix::full(), 1234, 0);
  EXPECT_NE(describe(base), describe(generate_program(shape(8, 4, 16, 50), ProgramMix::full(), 1235, 0)));
  EXPECT_NE(describe(base), describe(generate_program(shape(8, 4, 16, 50), ProgramMix::full(), 1234, 1)));
}

TEST(Program, HasTheRequestedShape) {
  const Program program = generate_program(shape(5, 3, 7, 11), ProgramMix::full(), 42, 0);
  ASSERT_EQ(program.threads.size(), 5u);
  for (const ThreadProgram& thread : program.threads) {
    ASSERT_EQ(thread.steps.size(), 11u);
    for (const ProgramStep& step : thread.steps) {
      EXPECT_GE(step.key, 0);
      EXPECT_LT(step.key, 3);
    }
  }
  for (int config : program.failing_configs) {
    EXPECT_GE(config, 0);
    EXPECT_LT(config, 7);
  }
  for (const ThreadProgram& thread : program.threads) {
    for (const ProgramStep& step : thread.steps) {
      EXPECT_GE(step.hook_config, 0);
      EXPECT_LT(step.hook_config, 7);
    }
  }
}

TEST(Program, PlainMixIsCallsOnly) {
  const Program program = generate_program(shape(4, 4, 16, 200), ProgramMix::plain(), 7, 0);
  EXPECT_TRUE(program.failing_configs.empty());
  for (const ThreadProgram& thread : program.threads) {
    for (const ProgramStep& step : thread.steps) {
      EXPECT_FALSE(step.invalidate);
      EXPECT_EQ(step.hook, HookAction::None);
    }
  }
}

// Nested calls go to any other key, earlier ones included, so that programs hold the cycles of
// nested tunings that the subjects must answer without deadlocking (R11).
TEST(Program, NestedCallsGoToEveryOtherKeyInBothDirections) {
  const Program program = generate_program(shape(8, 5, 4, 400), ProgramMix::full(), 99, 0);
  std::set<std::pair<int, int>> pairs;
  std::set<bool> places;  // in_benchmark: from the pre-bench hook, and from inside the benchmark
  for (const ThreadProgram& thread : program.threads) {
    for (const ProgramStep& step : thread.steps) {
      if (step.hook != HookAction::Nested) {
        EXPECT_FALSE(step.in_benchmark) << "only a nested call is made from inside the benchmark";
        continue;
      }
      EXPECT_NE(step.nested_key, step.key);
      EXPECT_GE(step.nested_key, 0);
      EXPECT_LT(step.nested_key, 5);
      pairs.insert({step.key, step.nested_key});
      places.insert(step.in_benchmark);
    }
  }
  EXPECT_EQ(pairs.size(), 5u * 4u) << "every ordered pair of distinct keys, both directions";
  EXPECT_EQ(places.size(), 2u) << "nested calls both from the pre-bench hook and under the bench lock";
  EXPECT_NE(describe(program).find("-in-bench@"), std::string::npos) << "--print-program marks them";
}

TEST(Watchdog, StallsOnlyAfterTheLimitWithoutProgress) {
  using namespace std::chrono_literals;
  const auto start = Watchdog::Clock::time_point{};
  Watchdog watchdog(1s, start);
  EXPECT_FALSE(watchdog.stalled(0, start + 900ms));
  EXPECT_FALSE(watchdog.stalled(5, start + 1500ms));  // progress resets the clock
  EXPECT_FALSE(watchdog.stalled(5, start + 2400ms));
  EXPECT_TRUE(watchdog.stalled(5, start + 2600ms));
}

// A worker process's watchdog reads the round's progress: its own calls may wait, recording
// nothing, on an owner in another process that records its benches. Here the other is a real
// child process that shares the round's memory.
TEST(Watchdog, AWorkerStallsOnlyWhenNoProcessOfItsRoundProgresses) {
  using namespace std::chrono_literals;
  const auto start = Watchdog::Clock::time_point{};
  RoundProgress round;
  RoundProgressShare mine(round.events());
  Watchdog watchdog(1s, start);
  EXPECT_FALSE(watchdog.stalled(mine.add(2), start + 900ms));  // this worker recorded 2 events
  const pid_t other = testing::spawn([&] {
    RoundProgressShare theirs(round.events());
    return theirs.add(3) == 5 && theirs.add(7) == 9;  // it recorded 3, then 7 in all
  });
  ASSERT_EQ(testing::wait_for(other), "exit 0");
  EXPECT_FALSE(watchdog.stalled(mine.add(2), start + 1800ms)) << "the other process's progress resets the clock";
  EXPECT_FALSE(watchdog.stalled(mine.add(2), start + 2700ms));
  EXPECT_TRUE(watchdog.stalled(mine.add(2), start + 2900ms)) << "nothing in the round progressed for the limit";
}

model::Event event(std::int64_t seq, int thread, model::EventKind kind, const char* key) {
  model::Event e;
  e.seq = seq;
  e.thread = model::Name::integer(thread);
  e.kind = kind;
  e.kernel = "k";
  e.key = key;
  return e;
}

TEST(Watchdog, StuckCallsAreTheOpenCallsWithTheirStateBefore) {
  model::Trace trace;
  trace.header.configs["k"] = {"A=1"};  // one config: a call may launch it untuned
  trace.events = {event(1, 0, model::EventKind::CallBegin, "a"),
                  event(2, 1, model::EventKind::CallBegin, "b"),
                  event(3, 1, model::EventKind::Launch, "b"),
                  event(4, 1, model::EventKind::CallEnd, "b"),
                  event(5, 1, model::EventKind::CallBegin, "c")};
  trace.events[2].config = "A=1";
  trace.events[3].config = "A=1";
  model::CheckResult result = model::check(trace);
  mark_stuck_calls(result, 5);
  ASSERT_EQ(result.violations.size(), 2u);
  EXPECT_EQ(result.violations[0].seqs, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(result.violations[1].seqs, (std::vector<std::int64_t>{5}));
  for (const model::Violation& violation : result.violations) {
    EXPECT_EQ(violation.rule, model::Rule::R7);
    EXPECT_TRUE(violation.message.starts_with("stuck: no event for 5 s; ")) << violation.message;
  }
  EXPECT_NE(result.violations[1].message.find("thread 1's call on k[c] (seq 5)"), std::string::npos)
      << result.violations[1].message;
  EXPECT_NE(result.violations[1].state_before.find("k[c]: Cold"), std::string::npos) << result.violations[1].state_before;
  EXPECT_NE(result.violations[1].state_before.find("thread 1: open calls [k[c] from seq 5]"), std::string::npos)
      << result.violations[1].state_before;
}

TEST(Replay, NamesEveryProgramFlagAndTheSeed) {
  StressOptions options;
  options.shape = shape(3, 2, 5, 7);
  options.seed = 987654321;
  options.mix_name = "full";
  const std::string line = replay_command(options, 4);
  for (const char* part : {"--subject reference", "--threads 3", "--keys 2", "--configs 5",
                           "--calls 7", "--mix full", "--round 4", "--seed 987654321"}) {
    EXPECT_NE(line.find(part), std::string::npos) << part << " missing from " << line;
  }
}

}  // namespace
}  // namespace safetune::stress
