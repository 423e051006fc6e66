// RecordingKernel reports each bench (time or error) and each successful launch of a black-box
// subject, and passes results and exceptions through unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "impl/sim/sim_device.h"
#include "impl/sim/sim_kernel.h"
#include "stress/harness/recording_kernel.h"

namespace safetune::stress {
namespace {

struct Seen {
  model::EventKind kind;
  std::string key;
  std::string config;
  std::string error;
  bool has_time = false;
};

class CollectingObserver final : public Observer {
 public:
  void record(const ObservedEvent& event) noexcept override {
    seen.push_back({event.kind, std::string(event.key), event.config ? *event.config : "",
                    event.error ? *event.error : "", event.time_ns.has_value()});
  }
  std::vector<Seen> seen;
};

TEST(RecordingKernel, ReportsBenchesLaunchesAndFailedLaunches) {
  sim::SimDevice device;
  const Config good = Config::parse("BLOCK=64");
  const Config bad = Config::parse("BLOCK=128");
  sim::SimKernelOptions options;
  options.fail_launch = {bad};
  sim::SimKernel kernel(device, options);
  CollectingObserver observer;
  RecordingKernel recording(kernel, observer);
  auto stream = device.new_stream();
  const Invocation inv{"k0", *stream};

  EXPECT_EQ(recording.benchmark(inv, good), kernel.expected_time_ns("k0", good));
  EXPECT_THROW(recording.benchmark(inv, bad), LaunchError);
  recording.launch(inv, good);
  EXPECT_THROW(recording.launch(inv, bad), LaunchError);
  stream->synchronize();

  ASSERT_EQ(observer.seen.size(), 4u);
  EXPECT_EQ(observer.seen[0].kind, model::EventKind::Bench);
  EXPECT_EQ(observer.seen[0].config, "BLOCK=64");
  EXPECT_TRUE(observer.seen[0].has_time);
  EXPECT_EQ(observer.seen[1].kind, model::EventKind::Bench);
  EXPECT_EQ(observer.seen[1].config, "BLOCK=128");
  EXPECT_FALSE(observer.seen[1].error.empty());
  EXPECT_FALSE(observer.seen[1].has_time);
  EXPECT_EQ(observer.seen[2].kind, model::EventKind::Launch);
  EXPECT_EQ(observer.seen[2].key, "k0");
  EXPECT_EQ(observer.seen[3].kind, model::EventKind::LaunchFailed);  // R14: the call's error has a reason
  EXPECT_EQ(observer.seen[3].config, "BLOCK=128");
  EXPECT_NE(observer.seen[3].error.find("injected launch failure"), std::string::npos) << observer.seen[3].error;
  EXPECT_FALSE(observer.seen[3].has_time);
  EXPECT_EQ(recording.name(), kernel.name());
}

}  // namespace
}  // namespace safetune::stress
