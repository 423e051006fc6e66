// A pause gate's stop run on a thread of its own, for the tests of the gate
// (tests/stress/pause_gate_test.cpp, and the Redis store's in tests/store/stress_redis_test.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "stress/harness/pause_gate.h"

namespace safetune::stress::testing {

// Long enough for a thread that is not held back to run; the tests' outcome does not depend on it,
// only how surely a broken gate is caught.
constexpr auto kSettle = std::chrono::milliseconds(50);

// Runs stop_between_steps on its own thread; `stopped` is set while its stop runs, which returns
// once go_on is set.
struct StopOnAnotherThread {
  explicit StopOnAnotherThread(PauseGate& gate)
      : done(std::async(std::launch::async, [this, &gate] {
          gate.stop_between_steps([this] {
            stopped = true;
            continued.wait();
          });
        })) {}
  // Waits until the stop runs, then lets it return, and waits for stop_between_steps to end.
  void continue_once_stopped() {
    while (!stopped) std::this_thread::yield();
    go_on.set_value();
    done.get();
  }
  std::atomic<bool> stopped{false};
  std::promise<void> go_on;
  std::shared_future<void> continued = go_on.get_future().share();
  std::future<void> done;  // declared last: its thread uses the members above
};

}  // namespace safetune::stress::testing
