// The draws of the process faults (--kill-owners): a replay line must kill the same workers at the
// same benches, so kill_point is a pure function of (seed, round, process) that honours the rate.
#include <gtest/gtest.h>

#include <set>

#include "stress/harness/owner_kills.h"

namespace safetune::stress {
namespace {

StressOptions kill_options(std::uint64_t seed, double rate) {
  StressOptions options;
  options.seed = seed;
  options.kill_owners = rate;
  options.shape.configs = 8;
  return options;
}

TEST(KillPoint, TheSameSeedRoundAndProcessDrawTheSamePoint) {
  const StressOptions options = kill_options(99, 0.5);
  for (int process = 0; process < 64; ++process)
    EXPECT_EQ(kill_point(options, 3, process), kill_point(kill_options(99, 0.5), 3, process)) << process;
}

TEST(KillPoint, AnotherSeedOrRoundDrawsOtherPoints) {
  std::vector<int> base, other_seed, other_round;
  for (int process = 0; process < 64; ++process) {
    base.push_back(kill_point(kill_options(99, 0.5), 3, process));
    other_seed.push_back(kill_point(kill_options(100, 0.5), 3, process));
    other_round.push_back(kill_point(kill_options(99, 0.5), 4, process));
  }
  EXPECT_NE(base, other_seed);
  EXPECT_NE(base, other_round);
}

TEST(KillPoint, KillsAtTheRateAtABenchOfTheFirstAttempt) {
  const StressOptions options = kill_options(7, 0.25);
  int killed = 0;
  std::set<int> points;
  constexpr int kProcesses = 4000;
  for (int process = 0; process < kProcesses; ++process) {
    const int point = kill_point(options, 0, process);
    if (point == 0) continue;
    ++killed;
    points.insert(point);
  }
  EXPECT_NEAR(static_cast<double>(killed) / kProcesses, 0.25, 0.03);
  EXPECT_EQ(points, (std::set<int>{1, 2, 3, 4, 5, 6, 7, 8})) << "every bench of a first attempt, and no other";
}

TEST(KillPoint, RateZeroKillsNoOneAndRateOneEveryone) {
  for (int process = 0; process < 100; ++process) {
    EXPECT_EQ(kill_point(kill_options(1, 0), 0, process), 0);
    EXPECT_GT(kill_point(kill_options(1, 1), 0, process), 0);
  }
}

}  // namespace
}  // namespace safetune::stress
