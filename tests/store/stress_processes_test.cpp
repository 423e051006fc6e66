// `safetune stress --processes P --store DIR [--restart]`: worker processes on one directory
// store, their traces merged and checked as one run (stress/harness/process_round.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "impl/posix/temp_directory.h"
#include "tests/stress/run_binary.h"

namespace safetune::stress {
namespace {

using safetune::posix::TempDirectory;
using testing::CommandResult;
using testing::run_safetune;

nlohmann::json run_json(const std::string& arguments, int expected_exit) {
  const CommandResult result = run_safetune("stress --json " + arguments);
  EXPECT_EQ(result.exit_code, expected_exit) << arguments << "\n" << result.out << result.err;
  return nlohmann::json::parse(result.out);
}

TEST(StressProcesses, EightProcessesOnOneStoreTuneEachKeyOnceInEverySeed) {
  TempDirectory store;
  for (int seed = 1; seed <= 5; ++seed) {
    const auto json = run_json("--processes 8 --threads 4 --keys 4 --configs 16 --calls 50 --store " + store.path() +
                                   " --seed " + std::to_string(seed), 0);
    EXPECT_EQ(json.at("verdict"), "pass") << "seed " << seed;
    EXPECT_EQ(json.at("successful_tunings"), 4) << "seed " << seed;
    EXPECT_EQ(json.at("duplicate_tunings"), 0) << "seed " << seed;
    EXPECT_EQ(json.at("benches"), 4 * 16) << "seed " << seed;
    EXPECT_EQ(json.at("calls"), 50);
    EXPECT_EQ(json.at("total_calls"), 8 * 4 * 50) << "every process's calls are in the one trace";
    EXPECT_EQ(json.at("processes"), 8);
  }
  EXPECT_TRUE(std::filesystem::is_directory(store.path() + "/round-0"));
}

TEST(StressProcesses, ARestartTunesNothingThatTheFirstGenerationPublished) {
  TempDirectory store;
  const auto json = run_json("--processes 4 --threads 2 --keys 3 --configs 8 --calls 20 --restart --seed 7 --store " + store.path(), 0);
  EXPECT_EQ(json.at("successful_tunings"), 3);
  EXPECT_EQ(json.at("benches"), 3 * 8);  // the second generation benched nothing
  EXPECT_EQ(json.at("total_calls"), 2 * 4 * 2 * 20);
  EXPECT_GE(json.at("loads"), 4 * 3);  // each of its processes loaded each key
}

// Without a store each process tunes on its own: across processes that is R2/R3, the duplicate
// tunings of every rank that the store removes.
TEST(StressProcesses, ProcessesWithoutAStoreTuneAgainAndTheModelSaysSo) {
  const auto json = run_json("--processes 4 --threads 2 --keys 2 --configs 8 --calls 20 --seed 3", 1);
  EXPECT_EQ(json.at("verdict"), "fail");
  EXPECT_GT(json.at("duplicate_tunings"), 0);
  EXPECT_TRUE(json.at("violation_totals").contains("R3") || json.at("violation_totals").contains("R2")) << json.dump();
}

TEST(StressProcesses, BadFlagsAreUsageErrors) {
  EXPECT_EQ(run_safetune("stress --restart").exit_code, 2);          // needs --store
  EXPECT_EQ(run_safetune("stress --processes 0").exit_code, 2);
  EXPECT_EQ(run_safetune("stress --store /dev/null").exit_code, 2);  // not a directory
  const CommandResult result = run_safetune("stress --json --store /dev/null");
  EXPECT_NE(result.out.find("\"flag\""), std::string::npos) << result.out;
}

}  // namespace
}  // namespace safetune::stress
