// The step function's dispatch, calls (call_begin/call_end, waits), invalidation and finish().
// Attempts live in model_attempt.cpp, launch judgement in model_launch.cpp.
#include "model.h"

#include <utility>

#include "model_internal.h"

namespace safetune::model {

using namespace detail;

Phase phase(const KeyState& key) {
  if (!key.in_flight.empty()) return Phase::Tuning;
  return key.winner ? Phase::Tuned : Phase::Cold;
}

namespace detail {

KeyId key_of(const Event& event) { return KeyId{event.kernel, event.key}; }

std::set<std::string> default_answers(const Header& header, const std::string& kernel) {
  std::set<std::string> answers;
  if (header.policy.wait == WaitPolicy::Fallback)
    if (auto fallback = header.policy.fallback_for(kernel)) answers.insert(*fallback);
  if (auto it = header.configs.find(kernel); it != header.configs.end() && it->second.size() == 1)
    answers.insert(it->second.front());
  return answers;
}

std::set<std::string> valid_answers(const State& state, const KeyId& key) {
  auto it = state.keys.find(key);
  if (it != state.keys.end() && it->second.winner) return {*it->second.winner};
  return default_answers(state.header, key.kernel);
}

OpenCall* require_call(Step& step) {
  const Event& e = step.event;
  auto it = step.state.threads.find(e.thread);
  if (it == step.state.threads.end() || it->second.empty()) {
    report(step, Rule::R1, {e.seq},
           thread_text(e.thread) + " has " + std::string(event_name(e.kind)) + " on " +
               key_of(e).show() + " at seq " + std::to_string(e.seq) + " outside any call");
    return nullptr;
  }
  OpenCall& call = it->second.back();
  if (call.key != key_of(e)) {
    report(step, Rule::R1, {call.window.begin_seq, e.seq},
           thread_text(e.thread) + " has " + std::string(event_name(e.kind)) + " on " +
               key_of(e).show() + " at seq " + std::to_string(e.seq) +
               ", but its innermost open call (seq " + std::to_string(call.window.begin_seq) +
               ") is on " + call.key.show());
    return nullptr;
  }
  return &call;
}

}  // namespace detail

namespace {

bool owns_attempt_in_flight(const State& state, const KeyId& key, const ThreadName& thread) {
  auto it = state.keys.find(key);
  if (it == state.keys.end()) return false;
  for (const auto& attempt : it->second.in_flight)
    if (attempt.owner == thread) return true;
  return false;
}

void on_call_begin(Step& step) {
  const Event& e = step.event;
  ++step.state.stats.calls;
  OpenCall call;
  call.key = key_of(e);
  call.window.begin_seq = e.seq;
  call.window.valid_seen = valid_answers(step.state, call.key);
  auto key_it = step.state.keys.find(call.key);
  call.window.winner_seen = key_it != step.state.keys.end() && key_it->second.winner.has_value();
  call.began_tuned = call.window.winner_seen;
  call.reentrant = owns_attempt_in_flight(step.state, call.key, e.thread);
  step.state.threads[e.thread].push_back(std::move(call));
}

// R1's white-box part: a call may not end while its attempt or wait is open. Recovery: the
// attempt is dropped unjudged and the wait closed, so that later events are judged sanely.
void close_white_box_leftovers(Step& step, OpenCall& call) {
  const Event& e = step.event;
  if (call.owned == Ownership::InFlight) {
    report(step, Rule::R1, {call.owned_attempt_id, e.seq},
           thread_text(e.thread) + " ended its call on " + call.key.show() + " at seq " +
               std::to_string(e.seq) + " while its attempt " +
               std::to_string(call.owned_attempt_id) + " was still open");
    abandon_attempt(step.state, e.thread, call);
    call.owned = Ownership::Failed;
  }
  if (call.wait_open_seq) {
    report(step, Rule::R1, {*call.wait_open_seq, e.seq},
           thread_text(e.thread) + " ended its call on " + call.key.show() + " at seq " +
               std::to_string(e.seq) + " while its wait (seq " +
               std::to_string(*call.wait_open_seq) + ") was still open");
    call.wait_open_seq.reset();
  }
}

void judge_call_result(Step& step, const OpenCall& call) {
  const Event& e = step.event;
  const std::string who = thread_text(e.thread);
  const std::string where = call.key.show() + " (call seq " +
                            std::to_string(call.window.begin_seq) + ", end seq " +
                            std::to_string(e.seq) + ")";
  if (e.config) {
    if (call.launches == 0)
      report(step, Rule::R5, {call.window.begin_seq, e.seq},
             who + " returned " + *e.config + " from its call on " + where + " without launching");
    else if (*call.launched != *e.config)
      report(step, Rule::R5, {call.launch_seq, e.seq},
             who + " launched " + *call.launched + " (seq " + std::to_string(call.launch_seq) +
                 ") but returned " + *e.config + " from its call on " + where);
  }
  if (call.reentrant) {
    const bool error_policy = step.state.header.policy.reentry == ReentryPolicy::Error;
    if (error_policy && e.config)
      report(step, Rule::R9, {call.window.begin_seq, e.seq},
             who + "'s re-entrant call on " + where + " returned " + *e.config +
                 " instead of an error (re-entry policy error)");
    if (!error_policy && e.error)
      report(step, Rule::R9, {call.window.begin_seq, e.seq},
             who + "'s re-entrant call on " + where + " raised \"" + *e.error +
                 "\" instead of launching the fallback (re-entry policy fallback)");
  }
  if (call.owned == Ownership::Failed && e.config && step.state.header.white_box)
    report(step, Rule::R8, {call.owned_attempt_id, e.seq},
           who + "'s attempt " + std::to_string(call.owned_attempt_id) + " on " + where +
               " failed, but its call returned " + *e.config + " instead of an error");
}

void on_call_end(Step& step) {
  const Event& e = step.event;
  auto it = step.state.threads.find(e.thread);
  if (it == step.state.threads.end() || it->second.empty() || it->second.back().key != key_of(e)) {
    require_call(step);  // reports the R1 violation; the event is ignored
    return;
  }
  if (e.error) ++step.state.stats.errors;
  OpenCall& call = it->second.back();
  if (step.state.header.white_box) close_white_box_leftovers(step, call);
  else if (call.owned == Ownership::InFlight) black_box_attempt_fails(step, call);
  judge_call_result(step, it->second.back());
  it->second.pop_back();
}

void on_wait_begin(Step& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (call->reentrant)
    report(step, Rule::R9, {call->window.begin_seq, e.seq},
           thread_text(e.thread) + "'s re-entrant call on " + call->key.show() + " (seq " +
               std::to_string(call->window.begin_seq) + ") waited at seq " +
               std::to_string(e.seq) + " on the attempt its own thread owns");
  else if (call->began_tuned)
    report(step, Rule::R10, {call->window.begin_seq, e.seq},
           thread_text(e.thread) + "'s call on " + call->key.show() + " began at seq " +
               std::to_string(call->window.begin_seq) +
               " on a tuned key with no invalidate since, yet waited at seq " +
               std::to_string(e.seq));
  call->wait_open_seq = e.seq;
}

void on_wait_end(Step& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (!call->wait_open_seq) {
    report(step, Rule::R1, {e.seq},
           thread_text(e.thread) + " has wait_end on " + call->key.show() + " at seq " +
               std::to_string(e.seq) + " with no open wait_begin");
    return;
  }
  call->last_wait_begin_seq = *call->wait_open_seq;
  call->wait_open_seq.reset();
}

// An invalidate always resets R3 and R10 (they ask only whether one came between), but it
// unpublishes the winner only when no attempt is in flight on the key.
void on_invalidate(Step& step) {
  const KeyId key = key_of(step.event);
  KeyState& ks = step.state.keys[key];
  ks.succeeded_since_invalidate = false;
  const bool takes_effect = ks.in_flight.empty();
  if (takes_effect) ks.winner.reset();
  const auto answers = default_answers(step.state.header, key.kernel);
  for_each_open_call(step.state, key, [&](const ThreadName&, OpenCall& call) {
    call.began_tuned = false;
    if (takes_effect) call.window.valid_seen.insert(answers.begin(), answers.end());
  });
}

void dispatch(Step& step) {
  switch (step.event.kind) {
    case EventKind::CallBegin: return on_call_begin(step);
    case EventKind::CallEnd: return on_call_end(step);
    case EventKind::TuneBegin: return on_tune_begin(step);
    case EventKind::Bench: return on_bench(step);
    case EventKind::TuneEnd: return on_tune_end(step);
    case EventKind::WaitBegin: return on_wait_begin(step);
    case EventKind::WaitEnd: return on_wait_end(step);
    case EventKind::Launch: return on_launch(step);
    case EventKind::Invalidate: return on_invalidate(step);
  }
}

}  // namespace

State initial_state(const Header& header) {
  State state;
  state.header = header;
  return state;
}

StepResult step(State state, const Event& event) {
  std::vector<Violation> found;
  Step current{state, event, found};
  dispatch(current);
  return StepResult{std::move(state), std::move(found)};
}

std::vector<Violation> finish(State state) {
  std::vector<Violation> found;
  settle_all_pending(state, found);
  for (const auto& [thread, calls] : state.threads)
    for (const auto& call : calls)
      report_with_state(found, Rule::R7, {call.window.begin_seq},
                        thread_text(thread) + "'s call on " + call.key.show() + " (seq " +
                            std::to_string(call.window.begin_seq) +
                            ") has no call_end by the end of the trace (a hang)",
                        describe(state, call.key, thread));
  return found;
}

}  // namespace safetune::model
