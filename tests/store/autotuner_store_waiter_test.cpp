// A waiter whose wait began before its owner's tune_begin. With a store, the in-process owner
// reports its tune_begin only once it holds the entry's claim, so a call of the same process that
// waits on it meanwhile waited, in the trace, on no attempt yet. When that attempt fails, the
// waiter does not raise its failure: it goes round again and tunes. (Across processes a success
// may come between its wait_begin and that failure; the model then reads the wait as one on that
// success, and raising would be R14.) Another real process holds the claim until both calls
// wait; the trace must satisfy the model.
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

const DeviceIdentity kDevice{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};
const EntryId kEntry{.kernel = "add", .key = "k", .device = "sim"};

struct ClaimHolder {
  std::atomic<int> holds{0};
  std::atomic<int> release{0};
};

TEST(AutotunerStoreWaiter, AWaitThatBeganBeforeTheTuneBeginTunesAgainAfterTheAttemptFails) {
  const posix::TempDirectory store_dir("safetune-waiter");
  ClaimHolder* holder = testing::shared_object<ClaimHolder>();
  const pid_t other = testing::spawn([&] {  // another process holds the entry's claim, then dies
    DirectoryStore store(store_dir.path());
    const auto claim = store.claim(kEntry, ResultsStore::ClaimMode::Wait);
    holder->holds.store(1);
    while (holder->release.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return true;
  });
  while (holder->holds.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  FakeKernel kernel({{"B=0", 5}, {"B=1", 1}});
  std::atomic<int> benches{0};
  kernel.inside_benchmark = [&](const Invocation&, const Config&) {
    if (benches.fetch_add(1) < 2) throw std::runtime_error("the first attempt fails on every config");
  };
  const ConfigSpace space = ConfigSpace::parse("B=0;B=1");
  TraceRecorder recorder(testing::header_for(kernel, space));
  testing::EventCounter events(&recorder);
  DirectoryStore store(store_dir.path());
  TunerOptions options;
  options.observer = &events;
  options.results = {.store = &store, .device = kDevice, .warn = {}};
  Autotuner tuner(kernel, space, options);

  std::optional<Config> owner_launched, waiter_launched;
  std::thread owner([&] {  // the in-process owner: it waits for the other process's claim
    TraceRecorder::bind_thread(0);
    FakeStream stream(0);
    owner_launched = testing::recorded_call(tuner, recorder, kernel.name(), "k", stream);
  });
  ASSERT_TRUE(events.wait_until(model::EventKind::WaitBegin, 1));
  std::thread waiter([&] {  // waits on the owner's attempt, whose tune_begin is not reported yet
    TraceRecorder::bind_thread(1);
    FakeStream stream(1);
    waiter_launched = testing::recorded_call(tuner, recorder, kernel.name(), "k", stream);
  });
  ASSERT_TRUE(events.wait_until(model::EventKind::WaitBegin, 2));
  holder->release.store(1);
  owner.join();
  waiter.join();
  EXPECT_EQ(testing::wait_for(other), "exit 0");

  EXPECT_EQ(owner_launched, std::nullopt);  // its attempt failed: it raises
  EXPECT_EQ(waiter_launched, Config::parse("B=1"));  // it tuned again, and won
  EXPECT_EQ(benches.load(), 4);
  const model::CheckResult result = model::check(recorder.take());
  EXPECT_TRUE(result.ok()) << testing::violation_text(result);
}

}  // namespace
}  // namespace safetune
