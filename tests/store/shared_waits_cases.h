// The graph of every process's waits (SharedWaits) of each store that keeps one, across real
// processes: a wait that would close a cycle through another process is refused, a killed process
// drops out of the graph, and a waiter wakes when the attempt it waits on ends, even when the next
// attempt on its key begins at once. And the reference autotuner through it: two processes whose
// hooks call each other's key end, one call refused, instead of hanging; and a nested call from
// inside a benchmark gives up the bench lock while it waits on another process.
//
// Typed tests: a test binary instantiates them for a store kind (tests/store/store_kinds.h), in
// namespace safetune::store_cases.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "impl/autotuner.h"
#include "impl/bench_lock.h"
#include "tests/impl/fake_kernel.h"
#include "tests/store/child_process.h"

namespace safetune::store_cases {

using testing::FakeKernel;
using testing::FakeStream;

inline const EntryId kFirst{.kernel = "add", .key = "k0", .device = "sim"};
inline const EntryId kSecond{.kernel = "add", .key = "k1", .device = "sim"};
// Long enough for a waiter that failed to block to have been seen returning.
inline constexpr auto kPause = std::chrono::milliseconds(100);

inline void sleep_a_little() { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }

inline void wait_until(const std::atomic<int>& value, int at_least) {
  while (value.load() < at_least) sleep_a_little();
}

inline const auto kNoReport = [] {};
inline const auto kNeverClaimed = [] { return false; };

// Kind: a store kind of tests/store/store_kinds.h; `kind.open()` opens this test's store.
template <class Kind>
class WaitsAcrossProcesses : public ::testing::Test {
 protected:
  Kind kind;
};
TYPED_TEST_SUITE_P(WaitsAcrossProcesses);

template <class Kind>
class AutotunerAcrossProcesses : public ::testing::Test {
 protected:
  Kind kind;
};
TYPED_TEST_SUITE_P(AutotunerAcrossProcesses);

TYPED_TEST_P(WaitsAcrossProcesses, AWaitThatClosesACycleThroughAnotherProcessIsRefused) {
  std::atomic<int>* const step = testing::shared_object<std::atomic<int>>();
  const pid_t other = testing::spawn([&] {  // owns k1, then waits on k0
    const auto store = this->kind.open();
    SharedWaits& waits = *store->waits();
    waits.attempt_began(kSecond, kNoReport);
    step->store(1);
    wait_until(*step, 2);  // this process owns k0
    int reported = 0;
    if (waits.wait_unless_cycle(kFirst, [&] { ++reported; })) return false;  // no cycle yet
    step->store(3);
    waits.await_waited_attempt(kNeverClaimed);  // until k0's attempt ends
    waits.wait_ended(kNoReport);
    waits.attempt_ended(kSecond, kNoReport);
    return reported == 1;
  });
  const auto store = this->kind.open();
  SharedWaits& waits = *store->waits();
  wait_until(*step, 1);
  waits.attempt_began(kFirst, kNoReport);
  step->store(2);
  wait_until(*step, 3);
  // Past a lease, where there is one: a live process stays in the graph (a Redis store's keeper
  // renews its liveness), and so does its wait.
  std::this_thread::sleep_for(3 * TypeParam::kLease);
  bool reported = false;
  const std::optional<std::string> cycle = waits.wait_unless_cycle(kSecond, [&] { reported = true; });
  ASSERT_TRUE(cycle.has_value());
  EXPECT_FALSE(reported);  // a refused wait is not reported: the call does not wait
  EXPECT_NE(cycle->find("key 'k1'"), std::string::npos) << *cycle;
  EXPECT_NE(cycle->find("key 'k0'"), std::string::npos) << *cycle;
  waits.attempt_ended(kFirst, kNoReport);
  EXPECT_EQ(testing::wait_for(other), "exit 0");
}

TYPED_TEST_P(WaitsAcrossProcesses, AKilledProcesssAttemptsAndWaitsLeaveTheGraph) {
  std::atomic<int>* const step = testing::shared_object<std::atomic<int>>();
  const pid_t other = testing::spawn([&] {  // owns k0 and waits on k1 until killed
    const auto store = this->kind.open();
    SharedWaits& waits = *store->waits();
    waits.attempt_began(kFirst, kNoReport);
    wait_until(*step, 1);
    (void)waits.wait_unless_cycle(kSecond, kNoReport);
    step->store(2);
    wait_until(*step, 3);  // never: it is killed first
    return true;
  });
  const auto store = this->kind.open();
  SharedWaits& waits = *store->waits();
  waits.attempt_began(kSecond, kNoReport);
  step->store(1);
  wait_until(*step, 2);
  EXPECT_TRUE(waits.wait_unless_cycle(kFirst, kNoReport).has_value());  // alive: a cycle
  ::kill(other, SIGKILL);
  EXPECT_EQ(testing::wait_for(other), "signal 9");
  std::this_thread::sleep_for(TypeParam::kDeathSeenAfter);
  // Dead: its wait is gone, and its attempt on k0 is over (the directory store) or taken over (the
  // Redis store, which cannot tell death from a pause), so this wait closes nothing. It ends as
  // soon as the claim is this thread's.
  EXPECT_FALSE(waits.wait_unless_cycle(kFirst, kNoReport).has_value());
  int tries = 0;
  waits.await_waited_attempt([&] { return ++tries == 3; });
  EXPECT_EQ(tries, 3);
  waits.wait_ended(kNoReport);
  waits.attempt_ended(kSecond, kNoReport);
}

TYPED_TEST_P(WaitsAcrossProcesses, AWaiterWakesWhenItsAttemptEndsThoughTheNextBeginsAtOnce) {
  std::atomic<int>* const step = testing::shared_object<std::atomic<int>>();
  const pid_t other = testing::spawn([&] {  // attempt 1 on k0, then attempt 2 straight after
    const auto store = this->kind.open();
    SharedWaits& waits = *store->waits();
    waits.attempt_began(kFirst, kNoReport);
    step->store(1);
    wait_until(*step, 2);
    waits.attempt_ended(kFirst, kNoReport);
    waits.attempt_began(kFirst, kNoReport);
    wait_until(*step, 3);
    waits.attempt_ended(kFirst, kNoReport);
    return true;
  });
  const auto store = this->kind.open();
  SharedWaits& waits = *store->waits();
  wait_until(*step, 1);
  std::atomic<bool> waits_on_attempt_1{false};
  std::atomic<bool> woke{false};
  std::thread waiter_wait([&] {
    waits_on_attempt_1.store(!waits.wait_unless_cycle(kFirst, kNoReport).has_value());
    waits.await_waited_attempt(kNeverClaimed);
    woke.store(true);
  });
  std::this_thread::sleep_for(kPause);
  EXPECT_TRUE(waits_on_attempt_1.load());
  EXPECT_FALSE(woke.load());  // attempt 1 is in flight
  step->store(2);
  waiter_wait.join();  // attempt 2 holds its own byte: this wait is over
  EXPECT_TRUE(woke.load());
  step->store(3);
  EXPECT_EQ(testing::wait_for(other), "exit 0");
}

// The reference, one autotuner per process on one store: k0's hook (in this process)
// calls k1, and k1's hook (in the other) calls k0, once both attempts are in flight. One of the
// two nested calls would close the cycle; it is refused (TuningCycle, a failed bench of that
// config), and both processes tune their key and end.
TYPED_TEST_P(AutotunerAcrossProcesses, HooksThatCallEachOthersKeyAcrossProcessesEndWithOneRefusal) {
  std::atomic<int>* const owners = testing::shared_object<std::atomic<int>>();
  std::atomic<int>* const refused = testing::shared_object<std::atomic<int>>();
  const DeviceIdentity device{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};
  const auto tune = [&](const std::string& own, const std::string& other) {
    FakeKernel kernel({{"B=0", 5}, {"B=1", 1}});
    const auto store = this->kind.open();
    TunerOptions options;
    options.results = {.store = store.get(), .device = device, .warn = [](const std::string&) {}};
    bool nested = false;
    Autotuner* tuner = nullptr;
    options.pre_bench_hook = [&](const Invocation& inv, const Config&) {
      if (inv.key != own || std::exchange(nested, true)) return;
      owners->fetch_add(1);
      wait_until(*owners, 2);
      FakeStream stream(1);
      try {
        (void)tuner->call({.key = other, .stream = stream});
      } catch (const TuningCycle&) {
        refused->fetch_add(1);
        throw;
      }
    };
    Autotuner autotuner(kernel, ConfigSpace::parse("B=0;B=1"), options);
    tuner = &autotuner;
    FakeStream stream(0);
    return autotuner.call({.key = own, .stream = stream}).str();
  };
  const pid_t other = testing::spawn([&] { return !tune("k1", "k0").empty(); });
  EXPECT_FALSE(tune("k0", "k1").empty());
  EXPECT_EQ(testing::wait_for(other), "exit 0");
  EXPECT_EQ(refused->load(), 1);
}

// A nested call made from inside a benchmark holds this process's bench lock. When it waits for
// another process's claim it gives its holds up, as an in-process waiter does (docs/store.md,
// "Cycles of waits across processes"). Here A, benchmarking k0 under the lock, calls k1, which the
// other process owns; that owner, from its hook, calls k2, which B owns here; and B needs the lock
// to benchmark k2. Kept, the hold would close a cycle that no graph sees (A -> k1 -> k2 -> the
// lock -> A): every call would hang. Given up, every call ends, each with its winner.
TYPED_TEST_P(AutotunerAcrossProcesses, ANestedCallFromABenchmarkGivesUpTheBenchLockWhileItWaitsOnAnotherProcess) {
  std::atomic<int>* const other_owns_k1 = testing::shared_object<std::atomic<int>>();
  std::atomic<int>* const here_owns_k2 = testing::shared_object<std::atomic<int>>();
  const DeviceIdentity device{.name = "sim", .compute_capability = "0.0", .driver = "test", .toolkit = "test"};
  const auto options_on = [&](ResultsStore& store) {
    TunerOptions options;
    options.results = {.store = &store, .device = device, .warn = [](const std::string&) {}};
    return options;
  };
  const pid_t other = testing::spawn([&] {  // owns k1; its hook calls k2 once B owns it
    FakeKernel kernel({{"B=0", 5}, {"B=1", 1}});
    const auto store = this->kind.open();
    TunerOptions options = options_on(*store);
    Autotuner* tuner = nullptr;
    bool nested = false;
    options.pre_bench_hook = [&](const Invocation& inv, const Config&) {
      if (inv.key != "k1" || std::exchange(nested, true)) return;
      other_owns_k1->store(1);
      wait_until(*here_owns_k2, 1);
      FakeStream stream(1);
      (void)tuner->call({.key = "k2", .stream = stream});
    };
    Autotuner autotuner(kernel, ConfigSpace::parse("B=0;B=1"), options);
    tuner = &autotuner;
    FakeStream stream(0);
    return autotuner.call({.key = "k1", .stream = stream}) == Config::parse("B=1");
  });

  FakeKernel kernel({{"B=0", 5}, {"B=1", 1}});
  const auto store = this->kind.open();
  BenchLock bench_lock;
  TunerOptions options = options_on(*store);
  options.bench_lock = &bench_lock;
  Autotuner* tuner = nullptr;
  std::atomic<int> a_waits{0};
  bool a_nested = false, b_hooked = false;
  kernel.inside_benchmark = [&](const Invocation& inv, const Config&) {  // A, under the lock
    if (inv.key != "k0" || std::exchange(a_nested, true)) return;
    a_waits.store(1);
    FakeStream stream(2);
    (void)tuner->call({.key = "k1", .stream = stream});
  };
  options.pre_bench_hook = [&](const Invocation& inv, const Config&) {  // B, before its first bench
    if (inv.key != "k2" || std::exchange(b_hooked, true)) return;
    here_owns_k2->store(1);
    wait_until(a_waits, 1);
    std::this_thread::sleep_for(kPause);  // A is waiting for k1 by now
  };
  Autotuner autotuner(kernel, ConfigSpace::parse("B=0;B=1"), options);
  tuner = &autotuner;
  std::atomic<int> ended{0};
  std::optional<Config> a_launched, b_launched;
  wait_until(*other_owns_k1, 1);
  std::thread a([&] {
    FakeStream stream(0);
    a_launched = autotuner.call({.key = "k0", .stream = stream});
    ended.fetch_add(1);
  });
  std::thread b([&] {
    FakeStream stream(1);
    b_launched = autotuner.call({.key = "k2", .stream = stream});
    ended.fetch_add(1);
  });
  // A hang is a failure, not a stuck test: after 30 s the cycle is taken to be there.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ended.load() < 2 && std::chrono::steady_clock::now() < deadline) sleep_a_little();
  if (ended.load() < 2) {
    ::kill(other, SIGKILL);
    ADD_FAILURE() << "the calls hang after 30 s: the nested call kept the bench lock while it waited on the other process";
    std::fflush(nullptr);
    ::_exit(1);
  }
  a.join();
  b.join();
  EXPECT_EQ(a_launched, Config::parse("B=1"));
  EXPECT_EQ(b_launched, Config::parse("B=1"));
  EXPECT_EQ(testing::wait_for(other), "exit 0");
}

REGISTER_TYPED_TEST_SUITE_P(WaitsAcrossProcesses, AWaitThatClosesACycleThroughAnotherProcessIsRefused,
                            AKilledProcesssAttemptsAndWaitsLeaveTheGraph,
                            AWaiterWakesWhenItsAttemptEndsThoughTheNextBeginsAtOnce);
REGISTER_TYPED_TEST_SUITE_P(AutotunerAcrossProcesses, HooksThatCallEachOthersKeyAcrossProcessesEndWithOneRefusal,
                            ANestedCallFromABenchmarkGivesUpTheBenchLockWhileItWaitsOnAnotherProcess);

}  // namespace safetune::store_cases
