// A waiter whose wait began before its owner's tune_begin. With a store, the in-process owner
// reports its tune_begin only once it holds the entry's claim, so a call of the same process that
// waits on it meanwhile waited, in the trace, on no attempt yet (across processes, the model reads
// it as a wait on another process's attempt, or on the first to begin after it). So:
//   - once the owner reports its tune_begin, the waiter waits anew, on that attempt, and raises
//     its failure, as any waiter of an attempt does;
//   - the owner runs its attempt only once such a wait has ended (the graphs hold no edge for it
//     that the model reads as one on the attempt);
//   - when the attempt ends before its tune_begin, the waiter does not raise its failure (it did
//     not wait on it in the trace, and raising would be R14): it goes round again and tunes.
// The model judges each trace.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "impl/autotuner.h"
#include "impl/posix/temp_directory.h"
#include "impl/store/directory_store.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "tests/common/checked_trace.h"
#include "tests/impl/deadline.h"
#include "tests/impl/event_counter.h"
#include "tests/impl/fake_kernel.h"
#include "tests/store/child_process.h"

namespace safetune {
namespace {

using testing::FakeKernel;
using testing::FakeStream;

const DeviceIdentity kDevice{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};
const EntryId kEntry{.kernel = "add", .key = "k", .device = "sim"};
constexpr int kOwnerStream = 0;
constexpr int kWaiterStream = 1;

struct ClaimHolder {
  std::atomic<int> holds{0};
  std::atomic<int> release{0};
};

// Knows when the waiter has begun a wait after the attempt's tune_begin: the attempt's first
// bench holds back until then, so the waiter is surely waiting on the attempt when it fails.
class WaitAfterTuneBegin : public Observer {
 public:
  explicit WaitAfterTuneBegin(Observer* next) : next_(next) {}
  void record(const ObservedEvent& event) noexcept override {
    next_->record(event);
    std::lock_guard guard(mutex_);
    tune_begun_ = tune_begun_ || event.kind == model::EventKind::TuneBegin;
    if (tune_begun_ && event.kind == model::EventKind::WaitBegin && event.stream == kWaiterStream) seen_ = true;
    changed_.notify_all();
  }
  bool wait_until_seen() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, testing::kDeadline, [&] { return seen_; });
  }

 private:
  Observer* const next_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool tune_begun_ = false;
  bool seen_ = false;
};

// What the owner's and the waiter's calls launched (nothing: they raised).
struct Launched {
  std::optional<Config> owner;
  std::optional<Config> waiter;
};

// This process of an owner and a waiter: its kernel, space and recorder, and a counter of its
// events in front of the recorder.
struct OwnerAndEarlyWaiter {
  OwnerAndEarlyWaiter()
      : kernel({{"B=0", 5}, {"B=1", 1}}), space(ConfigSpace::parse("B=0;B=1")),
        recorder(testing::header_for(kernel, space)), events(&recorder) {}
  // Another process holds the entry's claim while this process's owner waits for it, and the
  // waiter waits on the owner's attempt (before its tune_begin); then that process lets the claim
  // go and exits, and the owner takes it and tunes. `observer` sees every event and passes it on
  // to `events`.
  Launched run(Observer& observer);

  FakeKernel kernel;
  const ConfigSpace space;
  TraceRecorder recorder;
  testing::EventCounter events;
};

Launched OwnerAndEarlyWaiter::run(Observer& observer) {
  const posix::TempDirectory store_dir("safetune-waiter");
  ClaimHolder* holder = testing::shared_object<ClaimHolder>();
  const pid_t other = testing::spawn([&] {
    DirectoryStore store(store_dir.path());
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Wait);
    holder->holds.store(1);
    while (holder->release.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return true;
  });
  while (holder->holds.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  DirectoryStore store(store_dir.path());
  TunerOptions options;
  options.observer = &observer;
  options.results = {.store = &store, .device = kDevice, .warn = {}};
  Autotuner tuner(kernel, space, options);
  Launched launched;
  std::thread owner([&] {  // the in-process owner: it waits for the other process's claim
    TraceRecorder::bind_thread(0);
    FakeStream stream(kOwnerStream);
    launched.owner = testing::recorded_call(tuner, recorder, kernel.name(), "k", stream);
  });
  const bool owner_waits = events.wait_until(model::EventKind::WaitBegin, 1);
  EXPECT_TRUE(owner_waits) << "the owner never waited for the claim";
  std::thread waiter([&] {  // waits on the owner's attempt, whose tune_begin is not reported yet
    TraceRecorder::bind_thread(1);
    FakeStream stream(kWaiterStream);
    launched.waiter = testing::recorded_call(tuner, recorder, kernel.name(), "k", stream);
  });
  const bool waiter_waits = events.wait_until(model::EventKind::WaitBegin, 2);
  EXPECT_TRUE(waiter_waits) << "the waiter never waited";
  holder->release.store(1);
  owner.join();
  waiter.join();
  EXPECT_EQ(testing::wait_for(other), "exit 0");
  return launched;
}

TEST(AutotunerStoreWaiter, AWaitThatBeganBeforeTheTuneBeginWaitsAnewOnTheAttemptAndRaisesItsFailure) {
  OwnerAndEarlyWaiter process;
  WaitAfterTuneBegin watch(&process.events);
  std::atomic<int> benches{0};
  process.kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (benches.fetch_add(1) == 0) {
      EXPECT_TRUE(watch.wait_until_seen()) << "the waiter never waited anew";
    }
    throw std::runtime_error("the attempt fails on every config");
  };
  const Launched launched = process.run(watch);

  EXPECT_EQ(launched.owner, std::nullopt);  // its attempt failed: it raises
  EXPECT_EQ(launched.waiter, std::nullopt);  // it waited on that attempt: it raises its failure
  EXPECT_EQ(benches.load(), 2);
  const model::CheckResult result = model::check(process.recorder.take());
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
}

// Holds back the waiter's wait_end after the tune_begin (a slow report: the store's graph is
// slow to answer), and says whether every wait that the waiter began before the tune_begin has
// ended.
class SlowEarlyWaitEnd : public Observer {
 public:
  explicit SlowEarlyWaitEnd(Observer* next) : next_(next) {}
  void record(const ObservedEvent& event) noexcept override {
    const bool waiter = event.stream == kWaiterStream;
    if (waiter && event.kind == model::EventKind::WaitEnd && tune_begun()) std::this_thread::sleep_for(kHeldBack);
    next_->record(event);
    const std::lock_guard guard(mutex_);
    tune_begun_ = tune_begun_ || event.kind == model::EventKind::TuneBegin;
    if (waiter && event.kind == model::EventKind::WaitBegin && !tune_begun_) ++early_waits_;
    if (waiter && event.kind == model::EventKind::WaitEnd) ++ended_waits_;
  }
  // Each wait ends before its thread's next begins, so once as many have ended as began early,
  // every early one has.
  bool early_waits_ended() const {
    const std::lock_guard guard(mutex_);
    return early_waits_ > 0 && ended_waits_ >= early_waits_;
  }

 private:
  static constexpr auto kHeldBack = std::chrono::milliseconds(300);
  bool tune_begun() const {
    const std::lock_guard guard(mutex_);
    return tune_begun_;
  }
  Observer* const next_;
  mutable std::mutex mutex_;
  bool tune_begun_ = false;
  int early_waits_ = 0;
  int ended_waits_ = 0;
};

// Until the waiter's early wait ends, this process's graph holds no edge for it, and the store's
// graph may have dropped it (a process paused past its lease): a wait from the owner's hook that
// closed a cycle through it would go unseen (R11). So the owner benches only once it has ended.
TEST(AutotunerStoreWaiter, TheOwnerBenchesOnlyOnceTheWaitsThatBeganBeforeItsTuneBeginHaveEnded) {
  OwnerAndEarlyWaiter process;
  SlowEarlyWaitEnd watch(&process.events);
  std::atomic<int> benches{0};
  process.kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (benches.fetch_add(1) == 0) {
      EXPECT_TRUE(watch.early_waits_ended()) << "the owner benched while the waiter's early wait went on";
    }
  };
  const Launched launched = process.run(watch);

  EXPECT_EQ(launched.owner, Config::parse("B=1"));
  EXPECT_EQ(launched.waiter, Config::parse("B=1"));  // it waited anew, on the attempt
  EXPECT_EQ(benches.load(), 2);
  const model::CheckResult result = model::check(process.recorder.take());
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
}

// A store whose first claim fails, once the waiter is waiting, with an error that is not a
// StoreError (out of memory, say): the owner's call raises it, and its attempt ends before any
// tune_begin. This is the one way to end an attempt before its tune_begin that one process can
// stage at a chosen moment (the others are a cycle across processes, and an invalidate between a
// load and its settling).
class FirstClaimFails final : public ResultsStore {
 public:
  explicit FirstClaimFails(const testing::EventCounter& events) : events_(events) {}
  std::optional<std::string> read(const EntryId&) override { return std::nullopt; }
  std::unique_ptr<StoreClaim> claim(const EntryId&, ClaimMode) override {
    if (failed_.exchange(true)) return std::make_unique<StoreClaim>();
    at_claim.set_value();
    EXPECT_TRUE(events_.wait_until(model::EventKind::WaitBegin, 1)) << "the waiter never waited";
    throw std::runtime_error("the claim's bookkeeping failed");
  }
  bool publish(const StoreClaim&, const EntryId&, const std::string&) override { return true; }
  void quarantine(const StoreClaim&, const EntryId&, const std::string&) override {}
  void withdraw(const EntryId&) override {}
  std::string where(const EntryId&) const override { return "the test's store"; }
  std::promise<void> at_claim;  // the owner's first claim has begun

 private:
  const testing::EventCounter& events_;
  std::atomic<bool> failed_{false};
};

TEST(AutotunerStoreWaiter, AWaiterOfAnAttemptThatEndedBeforeItsTuneBeginTunesAgain) {
  FakeKernel kernel({{"B=0", 5}, {"B=1", 1}});
  const ConfigSpace space = ConfigSpace::parse("B=0;B=1");
  TraceRecorder recorder(testing::header_for(kernel, space));
  testing::EventCounter events(&recorder);
  std::atomic<int> benches{0};
  kernel.inside_benchmark = [&](const Invocation&, const Config&) { benches.fetch_add(1); };
  FirstClaimFails store(events);
  TunerOptions options;
  options.observer = &events;
  options.results = {.store = &store, .device = kDevice, .warn = {}};
  Autotuner tuner(kernel, space, options);

  std::optional<Config> owner_launched, waiter_launched;
  std::thread owner([&] {
    TraceRecorder::bind_thread(0);
    FakeStream stream(kOwnerStream);
    owner_launched = testing::recorded_call(tuner, recorder, kernel.name(), "k", stream);
  });
  std::future<void> owner_at_claim = store.at_claim.get_future();
  ASSERT_TRUE(testing::ready_in_time(owner_at_claim));
  std::thread waiter([&] {
    TraceRecorder::bind_thread(1);
    FakeStream stream(kWaiterStream);
    waiter_launched = testing::recorded_call(tuner, recorder, kernel.name(), "k", stream);
  });
  owner.join();
  waiter.join();

  EXPECT_EQ(owner_launched, std::nullopt);  // its store step failed: it raises
  EXPECT_EQ(waiter_launched, Config::parse("B=1"));  // it tuned again, and won
  EXPECT_EQ(benches.load(), 2);
  // The owner's raise is the environment's, not tuning's: the model flags it (R14), and nothing
  // else. A waiter that raised it too would be a second R14.
  const model::CheckResult result = model::check(recorder.take());
  ASSERT_EQ(result.violations.size(), 1u) << testing::violation_text(result);
  EXPECT_EQ(result.violations[0].rule, model::Rule::R14);
  EXPECT_NE(result.violations[0].message.find("thread 0's call"), std::string::npos) << result.violations[0].message;
}

}  // namespace
}  // namespace safetune
