// Views of an entry (ResultsStore::view). The directory store's are OFD locks on byte 1 of the
// entry's lock file: shared views coexist, an exclusive one waits every shared one out, and none
// touches the claim (byte 0). The reference takes an exclusive view for an invalidate, and a
// shared one for a read or a publication, each from before its store step to after its record, so
// that across processes the merged trace shows a withdrawal where it happened. Another real
// process holds the view here; "still waiting" is read after a pause, so a view that excluded
// nothing would be seen at once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "impl/autotuner.h"
#include "impl/posix/temp_directory.h"
#include "impl/store/directory_store.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/event_counter.h"
#include "tests/impl/fake_kernel.h"
#include "tests/store/child_process.h"

namespace safetune {
namespace {

using testing::FakeKernel;
using testing::FakeStream;
using ViewMode = ResultsStore::ViewMode;

const DeviceIdentity kDevice{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};
const EntryId kEntry{.kernel = "add", .key = "k", .device = "sim"};
// Long enough for a step that a view failed to hold back to have happened.
constexpr auto kPause = std::chrono::milliseconds(100);

void sleep_a_little() { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }

TEST(StoreView, SharedViewsCoexistAndAnExclusiveOneWaitsThemOut) {
  const posix::TempDirectory dir("safetune-view");
  DirectoryStore store(dir.path());
  auto first = store.view(kEntry, ViewMode::Shared);
  auto second = store.view(kEntry, ViewMode::Shared);  // at once: shared views coexist
  ASSERT_TRUE(first && second);
  std::atomic<bool> granted{false};
  std::thread exclusive([&] {
    const auto view = store.view(kEntry, ViewMode::Exclusive);
    granted.store(true);
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(granted.load());
  first.reset();
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(granted.load());  // the second shared view still holds it back
  second.reset();
  exclusive.join();
  EXPECT_TRUE(granted.load());
}

TEST(StoreView, AViewAndTheClaimDoNotExcludeEachOther) {
  const posix::TempDirectory dir("safetune-view");
  DirectoryStore store(dir.path());
  const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Try);
  ASSERT_TRUE(claim);
  EXPECT_TRUE(store.view(kEntry, ViewMode::Exclusive));  // at once, beside the claim
  const auto view = store.view(kEntry, ViewMode::Exclusive);
  EXPECT_FALSE(store.claim(kEntry, ResultsStore::ClaimMode::Try));  // the claim still excludes claims
  EXPECT_TRUE(store.claim(EntryId{.kernel = "add", .key = "other", .device = "sim"}, ResultsStore::ClaimMode::Try));
}

// Another process takes a view of the entry when told to, and holds it until told to let it go.
struct ViewHolder {
  std::atomic<int> take{0};
  std::atomic<int> holds{0};
  std::atomic<int> release{0};
  void wait_until_held() const {
    while (holds.load() == 0) sleep_a_little();
  }
};

pid_t spawn_view_holder(const std::string& directory, ViewMode mode, ViewHolder* holder) {
  return testing::spawn([=] {
    DirectoryStore store(directory);
    while (holder->take.load() == 0) sleep_a_little();
    const auto view = store.view(kEntry, mode);
    holder->holds.store(1);
    while (holder->release.load() == 0) sleep_a_little();
    return true;
  });
}

struct TunerRig {
  explicit TunerRig(const std::string& directory)
      : kernel({{"B=0", 5}, {"B=1", 1}}),
        space(ConfigSpace::parse("B=0;B=1")),
        recorder(testing::header_for(kernel, space)),
        events(&recorder),
        store(directory) {}
  Autotuner make() {
    TunerOptions options;
    options.observer = &events;
    options.results = {.store = &store, .device = kDevice, .warn = {}};
    return Autotuner(kernel, space, options);
  }
  FakeKernel kernel;
  ConfigSpace space;
  TraceRecorder recorder;
  testing::EventCounter events;
  DirectoryStore store;
};

TEST(AutotunerStoreView, AnInvalidateWaitsOutAReadInAnotherProcess) {
  const posix::TempDirectory dir("safetune-view");
  TunerRig rig(dir.path());
  Autotuner tuner = rig.make();
  ViewHolder* holder = testing::shared_object<ViewHolder>();
  const pid_t reader = spawn_view_holder(dir.path(), ViewMode::Shared, holder);
  holder->take.store(1);
  holder->wait_until_held();
  std::thread invalidator([&] {
    TraceRecorder::bind_thread(0);
    tuner.invalidate("k");
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_EQ(rig.events.count(model::EventKind::Invalidate), 0);
  holder->release.store(1);
  invalidator.join();
  EXPECT_EQ(rig.events.count(model::EventKind::Invalidate), 1);
  EXPECT_EQ(testing::wait_for(reader), "exit 0");
}

TEST(AutotunerStoreView, APublicationWaitsOutAnInvalidateInAnotherProcess) {
  const posix::TempDirectory dir("safetune-view");
  TunerRig rig(dir.path());
  Autotuner tuner = rig.make();
  ViewHolder* holder = testing::shared_object<ViewHolder>();
  const pid_t invalidator = spawn_view_holder(dir.path(), ViewMode::Exclusive, holder);
  // Taken during the owner's last benchmark: its read of the store, before, is not held back.
  int benches = 0;
  rig.kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (++benches < 2) return;
    holder->take.store(1);
    holder->wait_until_held();
  };
  std::optional<Config> launched;
  std::thread owner([&] {
    TraceRecorder::bind_thread(0);
    FakeStream stream(0);
    launched = testing::recorded_call(tuner, rig.recorder, rig.kernel.name(), "k", stream);
  });
  holder->wait_until_held();
  std::this_thread::sleep_for(kPause);
  EXPECT_EQ(rig.events.count(model::EventKind::TuneEnd), 0);
  EXPECT_EQ(rig.store.read(kEntry), std::nullopt);  // nor is the entry written
  holder->release.store(1);
  owner.join();
  EXPECT_EQ(launched, Config::parse("B=1"));
  EXPECT_NE(rig.store.read(kEntry), std::nullopt);
  EXPECT_EQ(testing::wait_for(invalidator), "exit 0");
  const model::CheckResult result = model::check(rig.recorder.take());
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
}

}  // namespace
}  // namespace safetune
