// `future-single-flight` (future_single_flight.h): a correct autotuner of another design.
#include "stress/subjects/future_single_flight.h"

#include <stdexcept>

#include "impl/bench_lock.h"

namespace safetune::stress::subjects {

namespace {

bool has_value(const std::shared_future<int>& winner) {
  return winner.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

Config FutureSingleFlight::call(const Invocation& inv) {
  std::unique_lock lock(mutex_);
  auto it = flights_.find(inv.key);
  if (it == flights_.end()) return own(inv, lock);
  const Flight flight = it->second;
  // A flight in the map is in progress or has a value: a failed one is erased before its
  // future gets the failure.
  if (has_value(flight.winner)) {
    lock.unlock();
    return launch(inv, env_.space[static_cast<std::size_t>(flight.winner.get())]);
  }
  if (flight.owner == std::this_thread::get_id()) {
    lock.unlock();
    return reentry_answer(inv, "key '" + std::string(inv.key) + "': re-entrant call from the thread tuning it");
  }
  if (env_.wait == model::WaitPolicy::Fallback) {
    lock.unlock();
    return launch(inv, *env_.fallback);
  }
  const WaitGraph::Edge edge{flight.owner, flight.identity, env_.kernel.name(), std::string(inv.key)};
  if (auto cycle = wait_graph_.wait_unless_cycle(std::this_thread::get_id(), edge, [] { return true; })) {
    lock.unlock();
    return reentry_answer(inv, "key '" + std::string(inv.key) + "': waiting would close a cycle (" +
                                   describe_cycle<StdSync>(std::this_thread::get_id(), *cycle) + ")");
  }
  return wait(inv, lock, flight.winner);
}

void FutureSingleFlight::invalidate(std::string_view key) {
  std::lock_guard lock(mutex_);
  auto it = flights_.find(key);
  if (it != flights_.end() && has_value(it->second.winner)) flights_.erase(it);  // in progress: no effect
  report(model::EventKind::Invalidate, key, -1);
}

Config FutureSingleFlight::own(const Invocation& inv, std::unique_lock<std::mutex>& lock) {
  std::promise<int> promise;
  flights_[std::string(inv.key)] = Flight{promise.get_future().share(), std::this_thread::get_id(), &promise};
  report(model::EventKind::TuneBegin, inv.key, inv.stream.id());
  lock.unlock();
  std::string failures;
  const int winner = tune(inv, failures);
  lock.lock();
  wait_graph_.attempt_finished(&promise);  // before any waiter wakes
  if (winner >= 0) {
    report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), &env_.space[static_cast<std::size_t>(winner)].str());
    promise.set_value(winner);
    lock.unlock();
    return launch(inv, env_.space[static_cast<std::size_t>(winner)]);
  }
  const std::string error = "key '" + std::string(inv.key) + "': every config failed: " + failures;
  report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), nullptr, &error);
  flights_.erase(std::string(inv.key));  // the next call retries, maybe before the waiters wake
  lock.unlock();
  promise.set_exception(std::make_exception_ptr(std::runtime_error(error)));
  throw std::runtime_error(error);
}

Config FutureSingleFlight::wait(const Invocation& inv, std::unique_lock<std::mutex>& lock,
                                std::shared_future<int> winner) {
  report(model::EventKind::WaitBegin, inv.key, inv.stream.id());
  lock.unlock();
  // A wait from inside a benchmark (a nested call under the bench lock) gives up this thread's
  // holds while it blocks, so that the owner it waits for can benchmark (impl/bench_lock.h); they
  // are taken back when the wait is over.
  BenchLockYield yield(env_.bench_lock);
  yield.release();
  if (waiter_timeout_ && winner.wait_for(*waiter_timeout_) == std::future_status::timeout) {
    // timeout-retune's bug: the waiter takes a slow owner for a lost one and tunes again itself.
    report(model::EventKind::WaitEnd, inv.key, inv.stream.id());
    std::string failures;
    const int mine = tune(inv, failures);
    if (mine < 0) throw std::runtime_error("key '" + std::string(inv.key) + "': every config failed: " + failures);
    return launch(inv, env_.space[static_cast<std::size_t>(mine)]);
  }
  winner.wait();
  report(model::EventKind::WaitEnd, inv.key, inv.stream.id());
  return launch(inv, env_.space[static_cast<std::size_t>(winner.get())]);  // get() throws the failure
}

int FutureSingleFlight::tune(const Invocation& inv, std::string& failures) {
  int best = -1;
  double best_time = 0;
  for (std::size_t i = 0; i < env_.space.size(); ++i) {
    const Config& config = env_.space[i];
    try {
      if (env_.pre_bench_hook) env_.pre_bench_hook(inv, config);
      double time = 0;
      {
        BenchLockHold hold(env_.bench_lock);
        time = env_.kernel.benchmark(inv, config);
      }
      report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), nullptr, time);
      if (best < 0 || time < best_time) {  // strict: a tie keeps the config benched first
        best = static_cast<int>(i);
        best_time = time;
      }
    } catch (const std::exception& failure) {
      const std::string error = failure.what();
      report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), &error);
      failures += (failures.empty() ? "" : "; ") + config.str() + ": " + error;
    }
  }
  return best;
}

Config FutureSingleFlight::reentry_answer(const Invocation& inv, const std::string& why) {
  if (env_.reentry == model::ReentryPolicy::Fallback) return launch(inv, *env_.fallback);
  throw std::logic_error(why);
}

Config FutureSingleFlight::launch(const Invocation& inv, const Config& config) {
  try {
    env_.kernel.launch(inv, config);
  } catch (...) {
    report_launch_failed(env_.observer, env_.kernel.name(), inv.key, config.str(), inv.stream.id());
    throw;
  }
  report(model::EventKind::Launch, inv.key, inv.stream.id(), &config.str());
  return config;
}

void FutureSingleFlight::report(model::EventKind kind, std::string_view key, int stream, const std::string* config,
                                const std::string* error, std::optional<double> time_ns) const {
  if (env_.observer == nullptr) return;
  env_.observer->record(ObservedEvent{.kind = kind, .kernel = env_.kernel.name(), .key = key, .config = config,
                                      .error = error, .time_ns = time_ns, .stream = stream});
}

}  // namespace safetune::stress::subjects
