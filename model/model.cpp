// The step function's dispatch, calls (call_begin/call_end, waits), invalidation and finish().
// Attempts live in model_attempt.cpp, launch judgement in model_launch.cpp, the history of valid
// answers in model_history.cpp.
#include "model.h"

#include <algorithm>
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

const std::set<std::string>* listed_configs(const State& state, const std::string& kernel) {
  auto it = state.listed.find(kernel);
  return it == state.listed.end() ? nullptr : &it->second;
}

std::vector<std::string> default_answers(const State& state, const std::string& kernel) {
  std::vector<std::string> answers;
  if (state.header.policy.wait == WaitPolicy::Fallback)
    if (auto fallback = state.header.policy.fallback_for(kernel)) answers.push_back(*fallback);
  if (const auto* listed = listed_configs(state, kernel); listed && listed->size() == 1)
    answers.push_back(*listed->begin());
  return answers;
}

bool is_default_answer(const State& state, const std::string& kernel, const std::string& config) {
  if (state.header.policy.wait == WaitPolicy::Fallback && state.header.policy.fallback_for(kernel) == config)
    return true;
  const auto* listed = listed_configs(state, kernel);
  return listed && listed->size() == 1 && *listed->begin() == config;
}

OpenCall* innermost_call(State& state, const ThreadName& thread) {
  auto it = state.threads.find(thread);
  if (it == state.threads.end()) return nullptr;
  return &state.calls.at(it->second.back());
}

OpenCall* require_call(Step& step) {
  const Event& e = step.event;
  OpenCall* call = innermost_call(step.state, e.thread);
  if (call == nullptr) {
    report(step, Rule::R1, {e.seq},
           thread_text(e.thread) + " has " + std::string(event_name(e.kind)) + " on " +
               key_of(e).show() + " at seq " + std::to_string(e.seq) + " outside any call");
    return nullptr;
  }
  if (call->key.kernel != e.kernel || call->key.key != e.key) {
    report(step, Rule::R1, {call->begin_seq, e.seq},
           thread_text(e.thread) + " has " + std::string(event_name(e.kind)) + " on " +
               key_of(e).show() + " at seq " + std::to_string(e.seq) +
               ", but its innermost open call (seq " + std::to_string(call->begin_seq) +
               ") is on " + call->key.show());
    return nullptr;
  }
  return call;
}

}  // namespace detail

namespace {

bool owns_attempt_in_flight(const KeyState& key, const ThreadName& thread) {
  return std::any_of(key.in_flight.begin(), key.in_flight.end(),
                     [&](const Attempt& attempt) { return attempt.owner == thread; });
}

void on_call_begin(Step& step) {
  const Event& e = step.event;
  ++step.state.stats.calls;
  OpenCall call{.thread = e.thread, .key = key_of(e), .begin_seq = e.seq};
  KeyState& ks = step.state.keys[call.key];
  call.began_tuned = ks.winner.has_value();
  call.reentrant = owns_attempt_in_flight(ks, e.thread);
  ks.open_calls.insert(e.seq);
  step.state.threads[e.thread].push_back(e.seq);
  step.state.calls.emplace(e.seq, std::move(call));
}

// Removes the thread's innermost call; a thread left with none is forgotten, so that the state
// follows the threads with open calls, not every thread name the trace ever used.
void pop_call(State& state, const ThreadName& thread) {
  auto it = state.threads.find(thread);
  const std::int64_t seq = it->second.back();
  auto call = state.calls.find(seq);
  state.keys[call->second.key].open_calls.erase(seq);
  state.calls.erase(call);
  it->second.pop_back();
  if (it->second.empty()) state.threads.erase(it);
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
    abandon_attempt(step.state, call);
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
  // Messages are built only when a rule is broken: this runs for every call.
  auto who = [&] { return thread_text(e.thread); };
  auto where = [&] {
    return call.key.show() + " (call seq " + std::to_string(call.begin_seq) + ", end seq " + std::to_string(e.seq) + ")";
  };
  if (e.config) {
    if (call.launches == 0)
      report(step, Rule::R5, {call.begin_seq, e.seq},
             who() + " returned " + printable(*e.config) + " from its call on " + where() + " without launching");
    else if (*call.launched != *e.config)
      report(step, Rule::R5, {call.launch_seq, e.seq},
             who() + " launched " + printable(*call.launched) + " (seq " + std::to_string(call.launch_seq) +
                 ") but returned " + printable(*e.config) + " from its call on " + where());
  }
  if (call.reentrant) {
    const bool error_policy = step.state.header.policy.reentry == ReentryPolicy::Error;
    if (error_policy && e.config)
      report(step, Rule::R9, {call.begin_seq, e.seq},
             who() + "'s re-entrant call on " + where() + " returned " + printable(*e.config) +
                 " instead of an error (re-entry policy error)");
    if (!error_policy && e.error)
      report(step, Rule::R9, {call.begin_seq, e.seq},
             who() + "'s re-entrant call on " + where() + " raised \"" + printable(*e.error) +
                 "\" instead of launching the fallback (re-entry policy fallback)");
  }
  if (call.owned == Ownership::Failed && e.config && step.state.header.white_box)
    report(step, Rule::R8, {call.owned_attempt_id, e.seq},
           who() + "'s attempt " + std::to_string(call.owned_attempt_id) + " on " + where() +
               " failed, but its call returned " + printable(*e.config) + " instead of an error");
}

void on_call_end(Step& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);  // reports the R1 violation; the event is then ignored
  if (call == nullptr) return;
  if (e.error) ++step.state.stats.errors;
  if (step.state.header.white_box) close_white_box_leftovers(step, *call);
  else if (call->owned == Ownership::InFlight) black_box_attempt_fails(step, *call);
  judge_call_result(step, *call);
  pop_call(step.state, e.thread);
}

void on_wait_begin(Step& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  const KeyHistory& history = step.state.keys[call->key].history;
  if (call->reentrant)
    report(step, Rule::R9, {call->begin_seq, e.seq},
           thread_text(e.thread) + "'s re-entrant call on " + call->key.show() + " (seq " +
               std::to_string(call->begin_seq) + ") waited at seq " +
               std::to_string(e.seq) + " on the attempt its own thread owns");
  else if (call->began_tuned && history.last_invalidate_seq < call->begin_seq)
    report(step, Rule::R10, {call->begin_seq, e.seq},
           thread_text(e.thread) + "'s call on " + call->key.show() + " began at seq " +
               std::to_string(call->begin_seq) +
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
  KeyState& ks = step.state.keys[key_of(step.event)];
  ks.succeeded_since_invalidate = false;
  ks.history.last_invalidate_seq = step.event.seq;
  if (ks.in_flight.empty()) withdraw_winner(ks, step.event.seq);
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
  for (const auto& [kernel, space] : header.configs) state.listed[kernel].insert(space.begin(), space.end());
  return state;
}

void advance(State& state, const Event& event, std::vector<Violation>& found) {
  Step current{state, event, found};
  dispatch(current);
}

StepResult step(State state, const Event& event) {
  std::vector<Violation> found;
  advance(state, event, found);
  return StepResult{std::move(state), std::move(found)};
}

std::vector<Violation> finish(State state) {
  std::vector<Violation> found;
  settle_all_pending(state, found);
  for (const auto& [seq, call] : state.calls)
    report_with_state(found, Rule::R7, {seq},
                      thread_text(call.thread) + "'s call on " + call.key.show() + " (seq " +
                          std::to_string(seq) + ") has no call_end by the end of the trace (a hang)",
                      describe(state, call.key, call.thread));
  return found;
}

}  // namespace safetune::model
