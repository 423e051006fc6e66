// Runs a test scenario that could deadlock, so that a deadlock fails the test instead of
// hanging ctest.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

namespace safetune::testing {

inline constexpr std::chrono::seconds kDeadline{20};

// Runs `scenario` on its own thread. If it has not returned within `limit`, the scenario is
// stuck (a deadlock or a lost wake-up): the process reports it and exits with status 1, because
// a stuck thread can be neither joined nor safely abandoned. Exceptions are rethrown here.
inline void run_with_deadline(const std::function<void()>& scenario,
                              std::chrono::seconds limit = kDeadline) {
  std::packaged_task<void()> task(scenario);
  std::future<void> done = task.get_future();
  std::thread runner(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "DEADLOCK: the scenario did not finish within %lld s\n",
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  runner.join();
  done.get();
}

// Waits for `future` at most kDeadline; false if it did not become ready.
template <class T>
bool ready_in_time(std::future<T>& future) {
  return future.wait_for(kDeadline) == std::future_status::ready;
}

}  // namespace safetune::testing
