// Prepared launches (Kernel::prepare): the autotuner prepares every config of its space, and its
// fallback, once when it is built, and launches through them; a config the kernel did not
// prepare launches through Kernel::launch, so the kernel still reports why it cannot run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "impl/autotuner.h"
#include "tests/impl/fake_kernel.h"
#include "tests/impl/tuner_options.h"

namespace safetune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using testing::FakeKernel;
using testing::FakeStream;

// A FakeKernel that also prepares: prepared launches are recorded apart from Kernel::launch's.
class PreparingKernel : public FakeKernel {
 public:
  using FakeKernel::FakeKernel;

  std::unique_ptr<PreparedLaunch> prepare(const Config& config) override {
    prepared_configs_.push_back(config.str());
    if (throw_on_prepare_.count(config.str()) != 0) throw LaunchError("cannot prepare " + config.str());
    if (null_on_prepare_.count(config.str()) != 0) return nullptr;
    return std::make_unique<Recorded>(*this, config.str());
  }

  // Set up before the autotuner is built.
  std::set<std::string> throw_on_prepare_;
  std::set<std::string> null_on_prepare_;
  std::set<std::string> failing_prepared_;  // their prepared launch's finish throws LaunchError

  std::vector<std::string> prepared_configs() const { return prepared_configs_; }
  std::vector<std::string> prepared_launches() const {
    std::lock_guard guard(mutex_);
    return prepared_launches_;
  }

 private:
  class Recorded final : public PreparedLaunch {
   public:
    Recorded(PreparingKernel& kernel, std::string config) : kernel_(kernel), config_(std::move(config)) {}
    static constexpr int kFailed = 7;
    // As on a GPU, a launch the device refuses was still enqueued (and is recorded here); only
    // finish, reading the status, finds that it failed.
    int enqueue(const Invocation&) const override {
      std::lock_guard guard(kernel_.mutex_);
      kernel_.prepared_launches_.push_back(config_);
      return kernel_.failing_prepared_.count(config_) != 0 ? kFailed : 0;
    }
    void finish(int status) const override {
      if (status == kFailed) throw LaunchError("prepared launch of " + config_);
      if (status != 0) throw std::logic_error("finish got a status enqueue never returns");
    }

   private:
    PreparingKernel& kernel_;
    const std::string config_;
  };

  std::vector<std::string> prepared_configs_;
  mutable std::mutex mutex_;
  std::vector<std::string> prepared_launches_;
};

ConfigSpace three_blocks() { return ConfigSpace::parse("BLOCK=64;BLOCK=128;BLOCK=256"); }

TEST(AutotunerPreparedLaunch, PreparesEachConfigAndTheFallbackOnceWhenBuilt) {
  PreparingKernel kernel({{"BLOCK=128", 1}});
  Autotuner tuner(kernel, three_blocks(),
                  testing::with_fallback(WaitPolicy::Fallback, ReentryPolicy::Error, "BLOCK=8"));
  EXPECT_THAT(kernel.prepared_configs(), ElementsAre("BLOCK=64", "BLOCK=128", "BLOCK=256", "BLOCK=8"));
  FakeStream stream(1);
  for (int i = 0; i < 3; ++i) tuner.call({"k", stream});
  EXPECT_EQ(kernel.prepared_configs().size(), 4u) << "calls must not prepare again";
}

TEST(AutotunerPreparedLaunch, EveryLaunchOfTheWinnerGoesThroughItsPreparedLaunch) {
  PreparingKernel kernel({{"BLOCK=64", 30}, {"BLOCK=128", 10}, {"BLOCK=256", 20}});
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=128");
  // The owner's launch after tuning, then two tuned calls; Kernel::launch is never called.
  EXPECT_THAT(kernel.prepared_launches(), ElementsAre("BLOCK=128", "BLOCK=128", "BLOCK=128"));
  EXPECT_TRUE(kernel.launches().empty());
  EXPECT_EQ(kernel.benches_of("k"), 3u);
}

TEST(AutotunerPreparedLaunch, AConfigNotPreparedLaunchesThroughKernelLaunch) {
  for (const bool throws : {false, true}) {
    PreparingKernel kernel({{"BLOCK=128", 1}});
    (throws ? kernel.throw_on_prepare_ : kernel.null_on_prepare_).insert("BLOCK=128");
    Autotuner tuner(kernel, three_blocks(), {});
    FakeStream stream(1);
    tuner.call({"k", stream});
    tuner.call({"k", stream});
    EXPECT_TRUE(kernel.prepared_launches().empty()) << "throws=" << throws;
    ASSERT_EQ(kernel.launches().size(), 2u) << "throws=" << throws;
    EXPECT_EQ(kernel.launches()[1].config, "BLOCK=128");
  }
}

TEST(AutotunerPreparedLaunch, AnUnpreparedConfigsLaunchFailureReachesTheCaller) {
  PreparingKernel kernel({{"BLOCK=128", 1}});
  kernel.throw_on_prepare_.insert("BLOCK=128");
  kernel.fail_launch("BLOCK=128");
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  EXPECT_THAT([&] { tuner.call({"k", stream}); }, ThrowsMessage<LaunchError>(HasSubstr("launch of BLOCK=128")));
  EXPECT_EQ(tuner.tuned_config("k"), Config::parse("BLOCK=128")) << "the tuning itself succeeded";
}

TEST(AutotunerPreparedLaunch, APreparedLaunchsFailureReachesTheCaller) {
  PreparingKernel kernel({{"BLOCK=128", 1}});
  kernel.failing_prepared_.insert("BLOCK=128");
  Autotuner tuner(kernel, three_blocks(), {});
  FakeStream stream(1);
  // Both the owner's launch after tuning and a tuned call's.
  for (int i = 0; i < 2; ++i) {
    EXPECT_THAT([&] { tuner.call({"k", stream}); },
                ThrowsMessage<LaunchError>(HasSubstr("prepared launch of BLOCK=128")));
  }
}

TEST(AutotunerPreparedLaunch, TheFallbackLaunchesThroughItsPreparedLaunch) {
  PreparingKernel kernel;
  Autotuner tuner(kernel, three_blocks(),
                  testing::with_fallback(WaitPolicy::Block, ReentryPolicy::Fallback, "BLOCK=8"));
  FakeStream stream(1);
  std::vector<std::string> reentered;
  kernel.inside_benchmark = [&](const Invocation& inv, const Config&) {
    reentered.push_back(tuner.call(inv).str());
  };
  EXPECT_EQ(tuner.call({"k", stream}).str(), "BLOCK=64");
  EXPECT_THAT(reentered, ElementsAre("BLOCK=8", "BLOCK=8", "BLOCK=8"));
  EXPECT_THAT(kernel.prepared_launches(), ElementsAre("BLOCK=8", "BLOCK=8", "BLOCK=8", "BLOCK=64"));
}

TEST(AutotunerPreparedLaunch, APrepareThatThrowsAnythingButLaunchErrorFailsTheConstructor) {
  class BrokenKernel : public FakeKernel {
    std::unique_ptr<PreparedLaunch> prepare(const Config&) override { throw std::logic_error("broken prepare"); }
  } kernel;
  EXPECT_THROW(Autotuner(kernel, three_blocks(), {}), std::logic_error);
}

TEST(AutotunerPreparedLaunch, AMissingFallbackIsRefusedBeforeAnythingIsPrepared) {
  PreparingKernel kernel;
  TunerOptions options;
  options.wait = WaitPolicy::Fallback;
  EXPECT_THROW(Autotuner(kernel, three_blocks(), options), ConfigError);
  EXPECT_THAT(kernel.prepared_configs(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace safetune
