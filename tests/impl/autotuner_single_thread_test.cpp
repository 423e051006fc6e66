// The autotuner's promises that one thread can show: tuning picks the fastest config, benches in
// list order, breaks ties by order, skips failures, fails and retries, and invalidates.
#include "impl/autotuner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "tests/impl/fake_kernel.h"

namespace safetune {
namespace {

using ::testing::HasSubstr;
using testing::FakeKernel;
using testing::FakeStream;

ConfigSpace three_blocks() { return ConfigSpace::parse("BLOCK=64;BLOCK=128;BLOCK=256"); }

std::vector<std::string> configs_of(const std::vector<testing::LaunchRecord>& records) {
  std::vector<std::string> configs;
  for (const auto& record : records) configs.push_back(record.config);
  return configs;
}

TEST(AutotunerSingleThread, TunesOnceBenchingInListOrderAndLaunchesTheFastest) {
  FakeKernel kernel({{"BLOCK=64", 30}, {"BLOCK=128", 10}, {"BLOCK=256", 20}});
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
  EXPECT_EQ(configs_of(kernel.benches()),
            (std::vector<std::string>{"BLOCK=64", "BLOCK=128", "BLOCK=256"}));
  EXPECT_EQ(configs_of(kernel.launches()), (std::vector<std::string>{"BLOCK=128", "BLOCK=128"}));
  EXPECT_EQ(tuner.tuned_config("k"), Config::parse("BLOCK=128"));
}

TEST(AutotunerSingleThread, TieGoesToTheConfigBenchedFirst) {
  FakeKernel kernel({{"BLOCK=64", 20}, {"BLOCK=128", 10}, {"BLOCK=256", 10}});
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
}

TEST(AutotunerSingleThread, DifferentKeysTuneSeparately) {
  FakeKernel kernel({{"BLOCK=64", 1}});
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  tuner.call({"a", stream});
  tuner.call({"b", stream});
  tuner.call({"a", stream});
  EXPECT_EQ(kernel.benches_of("a"), 3u);
  EXPECT_EQ(kernel.benches_of("b"), 3u);
  EXPECT_EQ(tuner.tuned_config("c"), std::nullopt);
}

TEST(AutotunerSingleThread, FailedBenchIsSkipped) {
  FakeKernel kernel({{"BLOCK=64", 30}, {"BLOCK=128", 10}, {"BLOCK=256", 20}});
  kernel.fail_bench("BLOCK=128");
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=256");
}

TEST(AutotunerSingleThread, HookExceptionIsAFailedBenchOfThatConfig) {
  FakeKernel kernel({{"BLOCK=64", 30}, {"BLOCK=128", 10}, {"BLOCK=256", 20}});
  TunerOptions options;
  options.pre_bench_hook = [](const Invocation&, const Config& config) {
    if (config.str() == "BLOCK=128") throw std::runtime_error("hook refuses");
  };
  Autotuner tuner(kernel, three_blocks(), options);
  FakeStream stream(1);
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=256");
  EXPECT_EQ(kernel.benches_of("k"), 2u);  // the hook failed before BLOCK=128's benchmark
}

TEST(AutotunerSingleThread, InvalidTimeIsAFailedBench) {
  FakeKernel kernel({{"BLOCK=64", std::numeric_limits<double>::quiet_NaN()},
                     {"BLOCK=128", -1},
                     {"BLOCK=256", 20}});
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=256");
}

TEST(AutotunerSingleThread, AllConfigsFailingFailsTheCallAndLeavesTheKeyCold) {
  FakeKernel kernel;
  for (auto config : {"BLOCK=64", "BLOCK=128", "BLOCK=256"}) kernel.fail_bench(config);
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  try {
    tuner.call({"k", stream});
    ADD_FAILURE() << "expected TuningFailed";
  } catch (const TuningFailed& error) {
    EXPECT_THAT(error.what(), HasSubstr("kernel 'add', key 'k'"));
    EXPECT_THAT(error.what(), HasSubstr("every config failed"));
    EXPECT_THAT(error.what(), HasSubstr("BLOCK=256: injected fault in BLOCK=256"));
  }
  EXPECT_TRUE(kernel.launches().empty());
  EXPECT_EQ(tuner.tuned_config("k"), std::nullopt);
  kernel.heal_bench("BLOCK=128");
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");  // the retry tunes
  EXPECT_EQ(kernel.benches_of("k"), 6u);
}

TEST(AutotunerSingleThread, FinalLaunchFailureIsALaunchErrorButTheWinnerStaysPublished) {
  FakeKernel kernel({{"BLOCK=64", 1}});
  kernel.fail_launch("BLOCK=64");
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  EXPECT_THROW(tuner.call({"k", stream}), LaunchError);
  EXPECT_EQ(tuner.tuned_config("k"), Config::parse("BLOCK=64"));
}

TEST(AutotunerSingleThread, InvalidateMakesATunedKeyTuneAgain) {
  FakeKernel kernel({{"BLOCK=64", 1}});
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  tuner.call({"k", stream});
  tuner.call({"other", stream});
  tuner.invalidate("k");
  EXPECT_EQ(tuner.tuned_config("k"), std::nullopt);
  EXPECT_EQ(tuner.tuned_config("other"), Config::parse("BLOCK=64"));
  tuner.call({"k", stream});
  EXPECT_EQ(kernel.benches_of("k"), 6u);
  EXPECT_EQ(kernel.benches_of("other"), 3u);
}

TEST(AutotunerSingleThread, InvalidateOfAnUnknownKeyIsHarmless) {
  FakeKernel kernel;
  Autotuner tuner(kernel, three_blocks(), {});
  tuner.invalidate("never-called");
  EXPECT_EQ(tuner.tuned_config("never-called"), std::nullopt);
}

TEST(AutotunerSingleThread, FallbackPolicyWithoutFallbackConfigIsRejected) {
  FakeKernel kernel;
  TunerOptions wait_fallback;
  wait_fallback.wait = WaitPolicy::Fallback;
  EXPECT_THROW(Autotuner(kernel, three_blocks(), wait_fallback), ConfigError);
  TunerOptions reentry_fallback;
  reentry_fallback.reentry = ReentryPolicy::Fallback;
  try {
    Autotuner tuner(kernel, three_blocks(), reentry_fallback);
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr("TunerOptions::fallback"));
  }
}

}  // namespace
}  // namespace safetune
