// Views of an entry (ResultsStore::view), for each store that offers them: shared views coexist, an
// exclusive one waits every shared one out, and none touches the claim (a directory store's are OFD
// locks on byte 1 of the entry's lock file, its claim byte 0; a Redis store's, redis_view.h).
// The reference takes an exclusive view for an invalidate, and a shared one for a read or a
// publication, each from before its store step to after its record, so that across processes the
// merged trace shows a withdrawal where it happened. Another real process holds the view here;
// "still waiting" is read after a pause, so a view that excluded nothing would be seen at once.
//
// Typed tests: a test binary instantiates them for a store kind (tests/store/store_kinds.h), in
// namespace safetune::store_cases.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <thread>

#include "impl/autotuner.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/event_counter.h"
#include "tests/impl/fake_kernel.h"
#include "tests/store/child_process.h"

namespace safetune::store_cases {

using testing::FakeKernel;
using testing::FakeStream;
using ViewMode = ResultsStore::ViewMode;

inline const DeviceIdentity kDevice{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};
inline const EntryId kEntry{.kernel = "add", .key = "k", .device = "sim"};
// Long enough for a step that a view failed to hold back to have happened.
inline constexpr auto kPause = std::chrono::milliseconds(100);

inline void sleep_a_little() { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }

// An Exclusive view of kEntry asked for in a thread of its own, from `store`; held for a moment
// once granted. `granted()` says whether it was granted yet; the destructor waits for it.
class ExclusiveRequest {
 public:
  explicit ExclusiveRequest(ResultsStore& store)
      : thread_([this, &store] {
          const auto view = store.view(kEntry, ViewMode::Exclusive);
          granted_.store(true);
        }) {}
  ~ExclusiveRequest() { join(); }
  ExclusiveRequest(const ExclusiveRequest&) = delete;
  ExclusiveRequest& operator=(const ExclusiveRequest&) = delete;
  bool granted() const { return granted_.load(); }
  // Whether it was granted, once it has been (or never is: the test then hangs, and says where).
  bool join() {
    if (thread_.joinable()) thread_.join();
    return granted();
  }

 private:
  std::atomic<bool> granted_{false};
  std::thread thread_;
};

// Kind: a store kind of tests/store/store_kinds.h; `kind.open()` opens this test's store.
template <class Kind>
class StoreViews : public ::testing::Test {
 protected:
  Kind kind;
};
TYPED_TEST_SUITE_P(StoreViews);

template <class Kind>
class AutotunerStoreViews : public ::testing::Test {};
TYPED_TEST_SUITE_P(AutotunerStoreViews);

TYPED_TEST_P(StoreViews, SharedViewsCoexistAndAnExclusiveOneWaitsThemOut) {
  const auto store = this->kind.open();
  auto first = store->view(kEntry, ViewMode::Shared);
  auto second = store->view(kEntry, ViewMode::Shared);  // at once: shared views coexist
  ASSERT_TRUE(first && second);
  ExclusiveRequest exclusive(*store);
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(exclusive.granted());
  first.reset();
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(exclusive.granted());  // the second shared view still holds it back
  second.reset();
  EXPECT_TRUE(exclusive.join());
}

TYPED_TEST_P(StoreViews, AViewAndTheClaimDoNotExcludeEachOther) {
  const auto store = this->kind.open();
  const auto claim = store->claim(kEntry, ResultsStore::ClaimMode::Try);
  ASSERT_TRUE(claim);
  EXPECT_TRUE(store->view(kEntry, ViewMode::Exclusive));  // at once, beside the claim
  const auto view = store->view(kEntry, ViewMode::Exclusive);
  EXPECT_FALSE(store->claim(kEntry, ResultsStore::ClaimMode::Try));  // the claim still excludes claims
  EXPECT_TRUE(store->claim(EntryId{.kernel = "add", .key = "other", .device = "sim"}, ResultsStore::ClaimMode::Try));
}

// A holder that lives keeps its view however long it holds it: a Redis store's keeper renews the
// view's lease (redis_keeper.h). Here the other holder is another client of the store (a store
// object of its own).
TYPED_TEST_P(StoreViews, ALiveHolderKeepsItsViewPastItsLease) {
  const auto store = this->kind.open();
  const auto other = this->kind.open();
  auto shared = store->view(kEntry, ViewMode::Shared);
  ASSERT_TRUE(shared);
  std::this_thread::sleep_for(3 * TypeParam::kLease);
  ExclusiveRequest exclusive(*other);
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(exclusive.granted());
  shared.reset();
  EXPECT_TRUE(exclusive.join());
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

// This process's tuner on a store of its own, and another process that holds a view of its entry.
template <class Kind>
struct TunerRig {
  TunerRig()
      : kernel({{"B=0", 5}, {"B=1", 1}}),
        space(ConfigSpace::parse("B=0;B=1")),
        recorder(testing::header_for(kernel, space)),
        events(&recorder),
        store(kind.open()) {}
  Autotuner make() {
    TunerOptions options;
    options.observer = &events;
    options.results = {.store = store.get(), .device = kDevice, .warn = {}};
    return Autotuner(kernel, space, options);
  }
  // The other process: it takes the view (`mode`) once `holder->take` is set.
  pid_t spawn_view_holder(ViewMode mode) const {
    return testing::spawn([this, mode] {
      const auto other = kind.open();
      while (holder->take.load() == 0) sleep_a_little();
      const auto view = other->view(kEntry, mode);
      holder->holds.store(1);
      while (holder->release.load() == 0) sleep_a_little();
      return true;
    });
  }
  const Kind kind;
  FakeKernel kernel;
  ConfigSpace space;
  TraceRecorder recorder;
  testing::EventCounter events;
  std::unique_ptr<ResultsStore> store;
  ViewHolder* const holder = testing::shared_object<ViewHolder>();
};

TYPED_TEST_P(AutotunerStoreViews, AnInvalidateWaitsOutAReadInAnotherProcess) {
  TunerRig<TypeParam> rig;
  Autotuner tuner = rig.make();
  const pid_t reader = rig.spawn_view_holder(ViewMode::Shared);
  rig.holder->take.store(1);
  rig.holder->wait_until_held();
  std::thread invalidator([&] {
    TraceRecorder::bind_thread(0);
    tuner.invalidate("k");
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_EQ(rig.events.count(model::EventKind::Invalidate), 0);
  rig.holder->release.store(1);
  invalidator.join();
  EXPECT_EQ(rig.events.count(model::EventKind::Invalidate), 1);
  EXPECT_EQ(testing::wait_for(reader), "exit 0");
}

TYPED_TEST_P(AutotunerStoreViews, APublicationWaitsOutAnInvalidateInAnotherProcess) {
  TunerRig<TypeParam> rig;
  Autotuner tuner = rig.make();
  const pid_t invalidator = rig.spawn_view_holder(ViewMode::Exclusive);
  // Taken during the owner's last benchmark: its read of the store, before, is not held back.
  int benches = 0;
  rig.kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (++benches < 2) return;
    rig.holder->take.store(1);
    rig.holder->wait_until_held();
  };
  std::optional<Config> launched;
  std::thread owner([&] {
    TraceRecorder::bind_thread(0);
    FakeStream stream(0);
    launched = testing::recorded_call(tuner, rig.recorder, rig.kernel.name(), "k", stream);
  });
  rig.holder->wait_until_held();
  std::this_thread::sleep_for(kPause);
  EXPECT_EQ(rig.events.count(model::EventKind::TuneEnd), 0);
  EXPECT_EQ(rig.store->read(kEntry), std::nullopt);  // nor is the entry written
  rig.holder->release.store(1);
  owner.join();
  EXPECT_EQ(launched, Config::parse("B=1"));
  EXPECT_NE(rig.store->read(kEntry), std::nullopt);
  EXPECT_EQ(testing::wait_for(invalidator), "exit 0");
  const model::CheckResult result = model::check(rig.recorder.take());
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
}

// An invalidate of this process while its owner is still at the store (waiting for another
// process's claim): the owner launches the winner it then loads, but the key stays cold here
// (settle_loaded), so the next call reads the store again.
TYPED_TEST_P(AutotunerStoreViews, AnInvalidateWhileTheOwnerIsAtTheStoreLeavesTheKeyCold) {
  TunerRig<TypeParam> rig;
  std::atomic<int>* const other_benches = testing::shared_object<std::atomic<int>>();
  std::atomic<int>* const release = testing::shared_object<std::atomic<int>>();
  const pid_t other = testing::spawn([&] {  // tunes the key, holding its claim until released
    FakeKernel kernel({{"B=0", 5}, {"B=1", 1}});
    kernel.inside_benchmark = [&](const Invocation&, const Config&) {
      other_benches->fetch_add(1);
      while (release->load() == 0) sleep_a_little();
    };
    const auto store = rig.kind.open();
    TunerOptions options;
    options.results = {.store = store.get(), .device = kDevice, .warn = {}};
    Autotuner tuner(kernel, rig.space, options);
    FakeStream stream(9);
    return tuner.call({.key = "k", .stream = stream}) == Config::parse("B=1");
  });
  while (other_benches->load() == 0) sleep_a_little();
  Autotuner tuner = rig.make();
  std::optional<Config> launched;
  std::thread owner([&] {
    TraceRecorder::bind_thread(0);
    FakeStream stream(0);
    launched = testing::recorded_call(tuner, rig.recorder, rig.kernel.name(), "k", stream);
  });
  ASSERT_TRUE(rig.events.wait_until(model::EventKind::WaitBegin, 1));  // for the other's claim
  tuner.invalidate("k");
  release->store(1);
  owner.join();
  EXPECT_EQ(testing::wait_for(other), "exit 0");
  EXPECT_EQ(launched, Config::parse("B=1"));
  EXPECT_EQ(rig.events.count(model::EventKind::Load), 1);
  EXPECT_EQ(tuner.tuned_config("k"), std::nullopt);  // loaded after this process's invalidate
  FakeStream stream(1);
  EXPECT_EQ(testing::recorded_call(tuner, rig.recorder, rig.kernel.name(), "k", stream), Config::parse("B=1"));
  EXPECT_EQ(rig.events.count(model::EventKind::Load), 2);  // read again, not benched
  EXPECT_EQ(rig.events.count(model::EventKind::Bench), 0);
}

// A holder killed (SIGKILL) while it holds a view holds no one back for long: its view goes with
// its process on a directory store (an OFD lock), and runs out unrenewed on Redis.
TYPED_TEST_P(AutotunerStoreViews, AKilledHoldersViewGoesWithItsProcess) {
  TunerRig<TypeParam> rig;
  const pid_t holder = rig.spawn_view_holder(ViewMode::Exclusive);
  rig.holder->take.store(1);
  rig.holder->wait_until_held();
  ExclusiveRequest exclusive(*rig.store);
  std::this_thread::sleep_for(kPause);
  EXPECT_FALSE(exclusive.granted()) << "granted while its holder lived";
  const auto killed_at = std::chrono::steady_clock::now();
  ::kill(holder, SIGKILL);
  EXPECT_EQ(testing::wait_for(holder), "signal 9");
  EXPECT_TRUE(exclusive.join());  // never granted: the test hangs here
  // The store's bound, with room for a loaded machine (a correctness bound, not a timing).
  EXPECT_LE(std::chrono::steady_clock::now() - killed_at, TypeParam::kDeathSeenAfter + std::chrono::seconds(2));
}

REGISTER_TYPED_TEST_SUITE_P(StoreViews, SharedViewsCoexistAndAnExclusiveOneWaitsThemOut,
                            AViewAndTheClaimDoNotExcludeEachOther, ALiveHolderKeepsItsViewPastItsLease);
REGISTER_TYPED_TEST_SUITE_P(AutotunerStoreViews, AnInvalidateWaitsOutAReadInAnotherProcess,
                            APublicationWaitsOutAnInvalidateInAnotherProcess,
                            AnInvalidateWhileTheOwnerIsAtTheStoreLeavesTheKeyCold,
                            AKilledHoldersViewGoesWithItsProcess);

}  // namespace safetune::store_cases
