// The pause gate (stress/harness/pause_gate.h): --pause-owners stops a process between two of its
// store steps, never inside one, and a step within a step never waits on a stop.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "impl/posix/temp_directory.h"
#include "impl/store/directory_store.h"
#include "stress/harness/pause_gate.h"
#include "tests/stress/pause_gate_probe.h"

namespace safetune::stress {
namespace {

using testing::kSettle;
using testing::StopOnAnotherThread;
using testing::stops_inside_a_view;

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
  EXPECT_FALSE(stops_inside_a_view(store, gate)) << "the process was stopped while it held a view";
}

// What a --pause-owners worker opens (process_round.cpp): the round's store, handed the worker's
// gate. Its views must be steps too, or the gate shields nothing in a run.
TEST(PauseGate, TheRoundsStoreOpenedWithTheGateGatesItsViews) {
  posix::TempDirectory directory;
  EXPECT_FALSE(testing::rounds_gated_store_stops_inside_a_view(directory.path()))
      << "the round's store let the process stop while it held a view";
}

}  // namespace
}  // namespace safetune::stress
