// The pause gate (stress/harness/pause_gate.h): --pause-owners stops a process between two of its
// store steps, never inside one, and a step within a step never waits on a stop.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "impl/posix/temp_directory.h"
#include "impl/store/directory_store.h"
#include "stress/cli/options.h"
#include "stress/harness/pause_gate.h"
#include "stress/harness/round_store.h"
#include "tests/stress/stop_on_another_thread.h"

namespace safetune::stress {
namespace {

using testing::kSettle;
using testing::StopOnAnotherThread;

TEST(PauseGate, AStopWaitsForTheStepInFlight) {
  PauseGate gate;
  auto step = std::make_unique<GatedStep>(gate);
  StopOnAnotherThread stop(gate);
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(stop.stopped) << "the process was stopped inside a step";
  step.reset();
  stop.continue_once_stopped();
}

TEST(PauseGate, NoStepBeginsWhileAStopIsUnderWay) {
  PauseGate gate;
  StopOnAnotherThread stop(gate);
  while (!stop.stopped) std::this_thread::yield();
  std::atomic<bool> began{false};
  auto step = std::async(std::launch::async, [&] {
    GatedStep inside(gate);
    began = true;
  });
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(began) << "a step began while the process was stopped";
  stop.continue_once_stopped();
  step.get();
  EXPECT_TRUE(began);
}

TEST(PauseGate, AStepWithinAStepDoesNotWaitOnAStopAskedFor) {
  PauseGate gate;
  auto outer = std::make_unique<GatedStep>(gate);
  StopOnAnotherThread stop(gate);
  std::this_thread::sleep_for(kSettle);  // the stop is asked for: the gate is closed to new steps
  { GatedStep inner(gate); }             // would wait for ever if it waited on the stop
  EXPECT_FALSE(stop.stopped);
  outer.reset();
  stop.continue_once_stopped();
}

// A gated store's view is a step: the stop waits until it is let go.
TEST(PauseGate, AGatedStoresViewIsAStep) {
  posix::TempDirectory directory;
  PauseGate gate;
  PauseGated<DirectoryStore> store(gate, directory.path());
  const EntryId id{.kernel = "k", .key = "key", .device = "d"};
  auto view = store.view(id, ResultsStore::ViewMode::Exclusive);
  ASSERT_NE(view, nullptr);
  StopOnAnotherThread stop(gate);
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(stop.stopped) << "the process was stopped while it held a view";
  view.reset();
  stop.continue_once_stopped();
}

// What a --pause-owners worker opens (process_round.cpp): the round's store, handed the worker's
// gate. Its views must be steps too, or the gate shields nothing in a run.
TEST(PauseGate, TheRoundsStoreOpenedWithTheGateGatesItsViews) {
  posix::TempDirectory directory;
  StressOptions options;
  options.store = directory.path();
  const RoundStore round(options, 1);
  PauseGate gate;
  const std::unique_ptr<ResultsStore> store = round.open(std::nullopt, &gate);
  ASSERT_NE(store, nullptr);
  auto view = store->view(EntryId{.kernel = "k", .key = "key", .device = "d"}, ResultsStore::ViewMode::Exclusive);
  ASSERT_NE(view, nullptr);
  StopOnAnotherThread stop(gate);
  std::this_thread::sleep_for(kSettle);
  EXPECT_FALSE(stop.stopped) << "the round's store let the process stop while it held a view";
  view.reset();
  stop.continue_once_stopped();
}

}  // namespace
}  // namespace safetune::stress
