// Property (b): per-thread programs of calls and invalidations, generated on the test thread
// (rapidcheck has no parallel testing), run on real threads, each with its own sim stream and
// seeded schedule noise. Only after the threads join is anything asserted: the trace must pass
// the model, and every call must end the way the contract allows for its key.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <latch>
#include <thread>

#include "property_rig.h"

namespace safetune::property {
namespace {

struct Op {
  bool invalidate = false;
  int key = 0;
};

void showValue(const Op& op, std::ostream& out) {
  out << (op.invalidate ? "invalidate(k" : "call(k") << op.key << ')';
}

using Program = std::vector<Op>;

rc::Gen<Program> programs(int keys) {
  return rc::gen::resize(
      6, rc::gen::nonEmpty(rc::gen::container<Program>(rc::gen::build<Op>(
             rc::gen::set(&Op::invalidate,
                          rc::gen::weightedElement<bool>({{4, false}, {1, true}})),
             rc::gen::set(&Op::key, rc::gen::inRange(0, keys))))));
}

// Runs every program on its own thread, all released together; returns each thread's outcomes.
std::vector<std::vector<Outcome>> run_in_parallel(Rig& rig, const std::vector<Program>& programs) {
  std::vector<std::vector<Outcome>> outcomes(programs.size());
  std::latch start(static_cast<std::ptrdiff_t>(programs.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < programs.size(); ++t) {
    threads.emplace_back([&, t] {
      TraceRecorder::bind_thread(static_cast<int>(t) + 1);
      auto stream = rig.device.new_stream();
      start.arrive_and_wait();
      for (const Op& op : programs[t]) {
        if (op.invalidate) {
          rig.tuner.invalidate(key_name(op.key));
        } else {
          outcomes[t].push_back(rig.recorded_call(key_name(op.key), *stream));
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return outcomes;
}

// With no hook action there is no re-entry, so a call ends with its key's one possible winner,
// the fallback (wait policy fallback), or, when every config fails, a tuning failure.
bool allowed(const Rig& rig, const Scenario& scenario, const Outcome& outcome) {
  const auto winner = rig.expected_winner(outcome.key);
  if (outcome.config && scenario.wait == WaitPolicy::Fallback && *outcome.config == kFallback) {
    return true;
  }
  if (winner) return outcome.config == winner;
  return outcome.error_kind == "tuning_failed";
}

RC_GTEST_PROP(ParallelPrograms, TraceAndResultsAgreeWithTheModel, ()) {
  Scenario scenario;
  scenario.seed = *rc::gen::inRange<std::uint64_t>(1, 1000);
  scenario.faults = *rc::gen::resize(
      4, rc::gen::nonEmpty(rc::gen::container<std::vector<Fault>>(rc::gen::weightedElement<Fault>(
             {{6, Fault::None}, {1, Fault::BenchmarkFails}, {1, Fault::HookThrows}}))));
  scenario.wait = *rc::gen::element(WaitPolicy::Block, WaitPolicy::Fallback);
  const int keys = *rc::gen::inRange(1, 3);
  const int threads = *rc::gen::inRange(2, 5);
  std::vector<Program> per_thread;
  for (int t = 0; t < threads; ++t) per_thread.push_back(*programs(keys));

  Rig rig(scenario, sim::RandomDelayOptions{.probability = 0.3,
                                            .max_delay = std::chrono::microseconds(30)});
  const auto outcomes = run_in_parallel(rig, per_thread);

  RC_ASSERT(rig.violations() == std::string());
  for (const auto& thread_outcomes : outcomes) {
    for (const Outcome& outcome : thread_outcomes) RC_ASSERT(allowed(rig, scenario, outcome));
  }
}

}  // namespace
}  // namespace safetune::property
