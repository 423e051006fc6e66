#include "mini_tuner.h"

#include <cmath>
#include <stdexcept>

#include "impl/bench_lock.h"

namespace safetune::stress::subjects {

Config MiniTuner::call(const Invocation& inv) {
  // Declared before the lock: a waiter gives up its bench-lock holds while it waits and takes
  // them back after mutex_ is released (impl/bench_lock.h explains the deadlock this avoids).
  BenchLockYield yield(env_.bench_lock);
  Lock lock(mutex_);
  Entry& entry = entries_.try_emplace(std::string(inv.key)).first->second;
  if (entry.tuned) {
    const int config = entry.config;
    lock.unlock();
    return launch(inv, config);
  }
  if (!entry.attempt) return tune(inv, lock, entry);
  if (entry.attempt->owner == std::this_thread::get_id()) return on_reentry(inv, lock, entry);
  if (env_.wait == model::WaitPolicy::Fallback) return on_busy_fallback(inv, lock, entry);
  yield.release();
  return wait_for(inv, lock, entry, entry.attempt);
}

void MiniTuner::invalidate(std::string_view key) {
  Lock lock(mutex_);
  Entry& entry = entries_.try_emplace(std::string(key)).first->second;
  if (!entry.attempt) entry.tuned = false;  // on a key in tuning it has no effect
  report(model::EventKind::Invalidate, key, -1);
}

Config MiniTuner::on_reentry(const Invocation& inv, Lock& lock, Entry&) {
  lock.unlock();
  if (env_.reentry == model::ReentryPolicy::Fallback) return launch(inv, fallback_index());
  throw std::logic_error("key '" + std::string(inv.key) + "': re-entrant call from its owner");
}

Config MiniTuner::on_busy_fallback(const Invocation& inv, Lock& lock, Entry&) {
  lock.unlock();
  return launch(inv, fallback_index());
}

Config MiniTuner::wait_for(const Invocation& inv, Lock& lock, Entry& entry, AttemptPtr attempt) {
  report(model::EventKind::WaitBegin, inv.key, inv.stream.id());
  finished_.wait(lock, [&] { return attempt->done; });
  report(model::EventKind::WaitEnd, inv.key, inv.stream.id());
  if (attempt->winner < 0) return on_waited_failure(inv, lock, entry, *attempt);
  // Read the key's published fields, as a cache would; a later attempt may have replaced them.
  const int config = entry.tuned ? entry.config : attempt->winner;
  lock.unlock();
  return launch(inv, config);
}

Config MiniTuner::on_waited_failure(const Invocation&, Lock& lock, Entry&, const Attempt& attempt) {
  const std::string error = attempt.error;
  lock.unlock();
  throw std::runtime_error(error);
}

Config MiniTuner::tune(const Invocation& inv, Lock& lock, Entry& entry) {
  auto attempt = std::make_shared<Attempt>();
  entry.attempt = attempt;
  report(model::EventKind::TuneBegin, inv.key, inv.stream.id());
  lock.unlock();
  std::vector<std::optional<double>> times;
  std::string failures;
  for (const Config& config : env_.space.configs()) times.push_back(bench_one(inv, config, failures));
  const int winner = pick_winner(times);
  lock.lock();
  if (winner < 0) {
    attempt->error = "key '" + std::string(inv.key) + "': every config failed: " + failures;
    fail(inv, entry, *attempt);
    const std::string error = attempt->error;
    lock.unlock();
    throw std::runtime_error(error);
  }
  publish(inv, entry, *attempt, winner);
  lock.unlock();
  Config launched = launch(inv, winner);
  after_owner_launch(entry, winner);
  return launched;
}

std::optional<double> MiniTuner::bench_one(const Invocation& inv, const Config& config,
                                           std::string& failures) {
  try {
    const double time = measure(inv, config);
    report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), nullptr, time);
    return time;
  } catch (const std::exception& e) {
    const std::string error = e.what();
    report(model::EventKind::Bench, inv.key, inv.stream.id(), &config.str(), &error);
    failures += (failures.empty() ? "" : "; ") + config.str() + ": " + error;
    return std::nullopt;
  }
}

double MiniTuner::measure(const Invocation& inv, const Config& config) {
  if (env_.pre_bench_hook) env_.pre_bench_hook(inv, config);
  BenchLockHold hold(env_.bench_lock);
  const double time = env_.kernel.benchmark(inv, config);
  if (!std::isfinite(time) || time < 0) throw LaunchError("invalid benchmark time");
  return time;
}

int MiniTuner::pick_winner(const std::vector<std::optional<double>>& times) const {
  int best = -1;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i] && (best < 0 || *times[i] < *times[static_cast<std::size_t>(best)])) {
      best = static_cast<int>(i);  // strict: a tie keeps the config benched first
    }
  }
  return best;
}

void MiniTuner::publish(const Invocation& inv, Entry& entry, Attempt& attempt, int winner) {
  const std::string& config = env_.space[static_cast<std::size_t>(winner)].str();
  report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), &config);
  entry.config = winner;
  entry.tuned = true;
  if (entry.attempt.get() == &attempt) entry.attempt.reset();
  attempt.winner = winner;
  attempt.done = true;
  wake_waiters();
}

void MiniTuner::fail(const Invocation& inv, Entry& entry, Attempt& attempt) {
  report(model::EventKind::TuneEnd, inv.key, inv.stream.id(), nullptr, &attempt.error);
  if (entry.attempt.get() == &attempt) entry.attempt.reset();
  attempt.done = true;
  wake_waiters();
}

Config MiniTuner::launch(const Invocation& inv, int index) {
  const Config& config = env_.space[static_cast<std::size_t>(index)];
  env_.kernel.launch(inv, config);
  report(model::EventKind::Launch, inv.key, inv.stream.id(), &config.str());
  return config;
}

void MiniTuner::report(model::EventKind kind, std::string_view key, int stream,
                       const std::string* config, const std::string* error,
                       std::optional<double> time_ns) const noexcept {
  if (env_.observer == nullptr) return;
  env_.observer->record(ObservedEvent{kind, env_.kernel.name(), key, config, error, time_ns, stream});
}

int MiniTuner::fallback_index() const {
  return static_cast<int>(env_.space.index_of(*env_.fallback).value());
}

}  // namespace safetune::stress::subjects
