// End-to-end `safetune stress` runs of the built binary (label: stress).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_binary.h"

namespace safetune::stress::testing {
namespace {

nlohmann::json run_json(const std::string& arguments) {
  const CommandResult result = run_safetune("stress --json " + arguments);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  return nlohmann::json::parse(result.out);
}

// The scenario of the Triton report: 10 threads, one cold key, 100 configs, one call each.
// The reference tunes exactly once whatever the seed: 20 runs out of 20 (issue 2's figure).
TEST(StressRun, TritonScenarioTunesOnce) {
  for (int seed = 1; seed <= 20; ++seed) {
    const auto json = run_json("--threads 10 --keys 1 --configs 100 --calls 1 --seed " +
                               std::to_string(seed));
    EXPECT_EQ(json.at("successful_tunings"), 1) << "seed " << seed;
    EXPECT_EQ(json.at("duplicate_tunings"), 0) << "seed " << seed;
    EXPECT_EQ(json.at("benches"), 100) << "seed " << seed;
    EXPECT_EQ(json.at("errors"), 0) << "seed " << seed;
    EXPECT_EQ(json.at("verdict"), "pass") << "seed " << seed;
    EXPECT_EQ(json.at("total_calls"), 10) << "seed " << seed;
    EXPECT_EQ(json.at("seed"), seed);
    EXPECT_TRUE(json.at("violations").empty());
  }
}

TEST(StressRun, DefaultRunPassesAndPrintsTheSeed) {
  const CommandResult result = run_safetune("stress");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("seed: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("verdict: pass"), std::string::npos) << result.out;
#ifdef SAFETUNE_HAS_CUDA
  // With a GPU the run is on it, without one on the sim device, and the line says which and why:
  // CudaStressCli.DefaultDeviceIsCudaWithAGpuElseSimAndTheRunSaysWhich tells the two apart.
  EXPECT_NE(result.err.find(": using the "), std::string::npos) << result.err;
#else
  EXPECT_NE(result.err.find("no CUDA device in this build: using the sim device"), std::string::npos) << result.err;
#endif
}

TEST(StressRun, FullMixPassesForTheReference) {
  for (const char* policies : {"--wait block --reentry error", "--wait fallback --reentry fallback"}) {
    for (int seed : {11, 12}) {
      const auto json = run_json(std::string("--mix full --threads 8 --calls 100 --bench-lock ") +
                                 policies + " --seed " + std::to_string(seed));
      EXPECT_EQ(json.at("verdict"), "pass") << policies << " seed " << seed;
      EXPECT_EQ(json.at("duplicate_tunings"), 0);
      EXPECT_GT(json.at("attempts").get<int>(), 4) << "invalidations make keys tune again";
    }
  }
}

std::string program_of(const std::string& arguments) {
  const CommandResult result = run_safetune("stress --print-program " + arguments);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto start = result.err.find("round 0:");
  EXPECT_NE(start, std::string::npos) << result.err;
  return start == std::string::npos ? "" : result.err.substr(start);
}

TEST(StressRun, SameSeedReplaysTheSameProgram) {
  const std::string flags = "--mix full --threads 4 --keys 3 --calls 30 --seed ";
  const std::string first = program_of(flags + "77");
  EXPECT_EQ(first, program_of(flags + "77"));
  EXPECT_NE(first, program_of(flags + "78"));
}

TEST(StressRun, TraceFileIsAcceptedByCheckAndChromeParses) {
  const std::string trace = temp_path("run.jsonl");
  const std::string chrome = temp_path("run.chrome.json");
  const auto json = run_json("--mix full --threads 4 --calls 50 --seed 5 --trace " + trace +
                             " --chrome " + chrome);
  const CommandResult checked = run_safetune("check --json " + trace);
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  const auto check_json = nlohmann::json::parse(checked.out);
  EXPECT_EQ(check_json.at("verdict"), "pass");
  EXPECT_EQ(check_json.at("stats").at("benches"), json.at("benches"));
  const auto timeline = nlohmann::json::parse(std::ifstream(chrome));
  EXPECT_FALSE(timeline.empty());
}

// /dev/full opens for writing (so the command line accepts it) and fails every write: an output
// lost after the run, as on a full disk. The run's report still comes out, and the exit code
// says the output is missing.
TEST(StressRun, AnOutputThatCannotBeWrittenIsExitTwoNamingTheFile) {
  if (!std::ofstream("/dev/full")) GTEST_SKIP() << "this system has no /dev/full";
  const CommandResult result = run_safetune("stress --threads 2 --calls 5 --seed 3 --trace /dev/full");
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.err.find("cannot write '/dev/full'"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("verdict: pass"), std::string::npos) << result.out;
}

TEST(StressRun, SecondsRunsSeveralRounds) {
  const auto json = run_json("--seconds 1.5 --threads 4 --calls 50 --seed 3");
  EXPECT_GT(json.at("rounds").get<int>(), 1);
  EXPECT_GE(json.at("elapsed_s").get<double>(), 1.5);
  EXPECT_EQ(json.at("verdict"), "pass");
}

// The watchdog turns a subject that never returns into an R7 report and exit 1, quickly, and
// the printed replay line reproduces it.
TEST(StressRun, WatchdogReportsAHangAndItsReplayLineReplaysIt) {
  const auto start = std::chrono::steady_clock::now();
  const CommandResult result = run_safetune(
      "stress --subject test-hang --threads 3 --keys 1 --calls 2 --watchdog-seconds 1 --seed 31");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_LT(seconds, 10.0);
  EXPECT_NE(result.out.find("VIOLATION R7"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("hung_calls: 3"), std::string::npos) << result.out;
  const auto replay_at = result.out.find("replay: safetune ");
  ASSERT_NE(replay_at, std::string::npos) << result.out;
  const auto args_at = replay_at + std::string("replay: safetune ").size();
  const std::string replay_args = result.out.substr(args_at, result.out.find('\n', args_at) - args_at);
  EXPECT_NE(replay_args.find("--seed 31"), std::string::npos) << replay_args;
  const CommandResult replayed = run_safetune(replay_args);
  EXPECT_EQ(replayed.exit_code, 1);
  EXPECT_NE(replayed.out.find("VIOLATION R7"), std::string::npos) << replayed.out;
}

}  // namespace
}  // namespace safetune::stress::testing
