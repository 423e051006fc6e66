// The broken subjects as a user sees them (label stress): the list, the scenario each declares,
// and the Triton report reproduced by `unlocked`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_binary.h"

namespace safetune::stress::testing {
namespace {

TEST(Subjects, ListNamesEveryBrokenSubjectWithItsBug) {
  const CommandResult result = run_safetune("subjects");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* name : {"reference", "unlocked", "check-then-act", "notify-one",
                           "no-wake-on-failure", "global-lock", "reentry-deadlock",
                           "nested-deadlock", "wrong-argmin", "stale-publish", "retry-storm",
                           "fallback-leak"}) {
    EXPECT_NE(result.out.find(std::string(name) + " "), std::string::npos) << name;
  }
  EXPECT_EQ(result.out.find("mini-correct"), std::string::npos) << "test-only subjects are not listed";
}

// A subject's scenario is its default, printed, and a flag overrides it.
TEST(Subjects, ScenarioIsTheDefaultAndFlagsOverrideIt) {
  const auto json = nlohmann::json::parse(
      run_safetune("stress --json --subject fallback-leak --threads 2 --calls 5 --seed 3").out);
  EXPECT_EQ(json.at("scenario"), (nlohmann::json{{"mix", "plain"}, {"wait", "fallback"}, {"reentry", "error"}}));
  const auto overridden = nlohmann::json::parse(
      run_safetune("stress --json --subject retry-storm --mix plain --threads 2 --calls 5 --seed 3").out);
  EXPECT_EQ(overridden.at("scenario").at("mix"), "plain");
  const CommandResult text = run_safetune("stress --subject reentry-deadlock --threads 1 --calls 1 --seed 3");
  EXPECT_NE(text.out.find("scenario: --mix reentry --wait block --reentry error"), std::string::npos)
      << text.out;
}

// The Triton report's scenario: every cold caller tunes, and callers whose shared args another
// call cleared raise. The reference's side of this is StressRun.TritonScenarioTunesOnce.
TEST(Subjects, UnlockedReproducesTheTritonReport) {
  int runs_with_errors = 0;
  for (int seed = 1; seed <= 5; ++seed) {
    const CommandResult result = run_safetune(
        "stress --json --subject unlocked --threads 10 --keys 1 --configs 100 --calls 1 --seed " +
        std::to_string(seed));
    EXPECT_EQ(result.exit_code, 1) << result.out;
    const auto json = nlohmann::json::parse(result.out);
    EXPECT_GT(json.at("duplicate_tunings").get<int>(), 0) << "seed " << seed;
    EXPECT_GT(json.at("benches").get<int>(), 100) << "seed " << seed;
    if (json.at("errors").get<int>() > 0) ++runs_with_errors;
  }
  EXPECT_GE(runs_with_errors, 4) << "calls whose shared args were cleared must raise";
}

}  // namespace
}  // namespace safetune::stress::testing
