// A pause gate's stop run on a thread of its own, and a probe of whether a store's views hold it
// back, for the tests of the gate (tests/stress/pause_gate_test.cpp, and the Redis store's in
// tests/store/stress_redis_test.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "impl/store/results_store.h"
#include "stress/cli/options.h"
#include "stress/harness/pause_gate.h"
#include "stress/harness/round_store.h"

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

// Holds an exclusive view of an entry of `store` while a stop of `gate` is asked for: true when the
// stop came inside the view, that is, when the store's views are not steps of the gate's.
inline bool stops_inside_a_view(ResultsStore& store, PauseGate& gate) {
  auto view = store.view(EntryId{.kernel = "k", .key = "key", .device = "d"}, ResultsStore::ViewMode::Exclusive);
  if (view == nullptr) throw std::logic_error("the store offers no view to stop inside");
  StopOnAnotherThread stop(gate);
  std::this_thread::sleep_for(kSettle);
  const bool stopped_inside = stop.stopped;
  view.reset();
  stop.continue_once_stopped();
  return stopped_inside;
}

// The same for what a --pause-owners worker opens (process_round.cpp): the round's store of
// `--store store_text`, handed the worker's gate.
inline bool rounds_gated_store_stops_inside_a_view(const std::string& store_text) {
  StressOptions options;
  options.store = store_text;
  const RoundStore round(options, 1);
  PauseGate gate;
  const std::unique_ptr<ResultsStore> store = round.open(std::nullopt, &gate);
  if (store == nullptr) throw std::logic_error("the round opened no store for " + store_text);
  return stops_inside_a_view(*store, gate);
}

}  // namespace safetune::stress::testing
