// Property (a): generated command sequences on one thread, against the real autotuner on the sim
// device: plain calls, re-entries (a pre-bench hook that calls the same key), nested calls (a
// hook that calls another key), faults (failing configs, throwing hooks) and invalidations,
// under every policy. The recorded trace must pass the model, and every call must end the way a
// small executable statement of the contract (ExpectedTuner below) predicts.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>

#include "property_rig.h"

namespace safetune::property {
namespace {

struct Command {
  enum Kind : std::uint8_t { Call, CallReentrant, CallNested, Invalidate } kind = Call;
  int key = 0;
  int other = 0;  // CallNested: the key its hook calls (may equal `key`: that is a re-entry)
};

void showValue(const Command& command, std::ostream& out) {
  static const char* names[] = {"call", "call_reentrant", "call_nested", "invalidate"};
  out << names[command.kind] << "(k" << command.key;
  if (command.kind == Command::CallNested) out << " -> k" << command.other;
  out << ')';
}

// The contract, executed on one thread: what each call returns, in call_end order.
class ExpectedTuner {
 public:
  ExpectedTuner(const Rig& rig, const Scenario& scenario) : rig_(rig), scenario_(scenario) {}

  // `inner` is the key the hook calls for each config it does not fail (none: no hook action).
  void call(const std::string& key, std::optional<std::string> inner, std::vector<Outcome>& out) {
    if (auto it = tuned_.find(key); it != tuned_.end()) {
      out.push_back({key, it->second, {}});
    } else if (tuning_.contains(key)) {
      out.push_back(scenario_.reentry == ReentryPolicy::Fallback ? Outcome{key, kFallback, {}}
                                                                 : Outcome{key, {}, "reentrant"});
    } else {
      tune(key, inner, out);
    }
  }
  void invalidate(const std::string& key) { tuned_.erase(key); }

 private:
  void tune(const std::string& key, const std::optional<std::string>& inner,
            std::vector<Outcome>& out) {
    tuning_.insert(key);
    for (Fault fault : scenario_.faults) {
      if (fault != Fault::HookThrows && inner) call(*inner, std::nullopt, out);
    }
    tuning_.erase(key);
    const auto winner = rig_.expected_winner(key);
    if (!winner) {
      out.push_back({key, {}, "tuning_failed"});
      return;
    }
    tuned_[key] = *winner;
    out.push_back({key, *winner, {}});
  }

  const Rig& rig_;
  const Scenario& scenario_;
  std::map<std::string, std::string> tuned_;
  std::set<std::string> tuning_;
};

rc::Gen<Scenario> scenarios() {
  return rc::gen::build<Scenario>(
      rc::gen::set(&Scenario::seed, rc::gen::inRange<std::uint64_t>(1, 1000)),
      rc::gen::set(&Scenario::faults,
                   rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<std::vector<Fault>>(
                                          rc::gen::weightedElement<Fault>(
                                              {{6, Fault::None},
                                               {1, Fault::LaunchFails},
                                               {1, Fault::BenchmarkFails},
                                               {1, Fault::HookThrows}}))))),
      rc::gen::set(&Scenario::wait, rc::gen::element(WaitPolicy::Block, WaitPolicy::Fallback)),
      rc::gen::set(&Scenario::reentry,
                   rc::gen::element(ReentryPolicy::Error, ReentryPolicy::Fallback)));
}

rc::Gen<Command> commands(int keys) {
  return rc::gen::build<Command>(
      rc::gen::set(&Command::kind,
                   rc::gen::weightedElement<Command::Kind>({{4, Command::Call},
                                                            {2, Command::CallReentrant},
                                                            {2, Command::CallNested},
                                                            {2, Command::Invalidate}})),
      rc::gen::set(&Command::key, rc::gen::inRange(0, keys)),
      rc::gen::set(&Command::other, rc::gen::inRange(0, keys)));
}

// Runs one command on the real autotuner, appending every call's outcome in call_end order.
void run(Rig& rig, Stream& stream, const Command& command, std::vector<Outcome>& out) {
  const std::string key = key_name(command.key);
  if (command.kind == Command::Invalidate) {
    rig.tuner.invalidate(key);
    return;
  }
  std::optional<std::string> inner;
  if (command.kind == Command::CallReentrant) inner = key;
  if (command.kind == Command::CallNested) inner = key_name(command.other);
  // Only the top-level call's hook acts; the calls it makes run with no hook action.
  bool inside_action = false;
  rig.hook_action = [&, inner](const Invocation&, const Config&) {
    if (!inner || inside_action) return;
    inside_action = true;
    out.push_back(rig.recorded_call(*inner, stream));  // never throws
    inside_action = false;
  };
  out.push_back(rig.recorded_call(key, stream));
  rig.hook_action = nullptr;
}

void expect(ExpectedTuner& expected, const Command& command, std::vector<Outcome>& out) {
  const std::string key = key_name(command.key);
  if (command.kind == Command::Invalidate) return expected.invalidate(key);
  std::optional<std::string> inner;
  if (command.kind == Command::CallReentrant) inner = key;
  if (command.kind == Command::CallNested) inner = key_name(command.other);
  expected.call(key, inner, out);
}

RC_GTEST_PROP(SingleThreadStateMachine, TraceAndResultsAgreeWithTheModel, ()) {
  const Scenario scenario = *scenarios();
  const int keys = *rc::gen::inRange(1, 4);
  const auto program = *rc::gen::resize(
      12, rc::gen::container<std::vector<Command>>(commands(keys)));

  TraceRecorder::bind_thread(0);
  Rig rig(scenario, std::nullopt);
  auto stream = rig.device.new_stream();
  ExpectedTuner expected_tuner(rig, scenario);
  std::vector<Outcome> actual;
  std::vector<Outcome> expected;
  for (const Command& command : program) {
    run(rig, *stream, command, actual);
    expect(expected_tuner, command, expected);
  }
  RC_ASSERT(rig.violations() == std::string());
  RC_ASSERT(actual == expected);
}

}  // namespace
}  // namespace safetune::property
