// The step function's dispatch, calls (call_begin/call_end, waits), invalidation and finish().
// Attempts live in model_attempt.cpp, launch judgement in model_launch.cpp, the history of valid
// answers in model_history.cpp, the choices of a black-box key in model_choices.cpp.
#include "model.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "model_internal.h"

namespace safetune::model {

using namespace detail;

Phase phase(const Choice& choice) {
  if (!choice.in_flight.empty()) return Phase::Tuning;
  return choice.winner ? Phase::Tuned : Phase::Cold;
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

OpenCall* require_call(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = innermost_call(step.state, thread_of(e));
  if (call == nullptr) {
    report(step, Rule::R1, {e.seq},
           thread_text(thread_of(e)) + " has " + std::string(event_name(e.kind)) + " on " + key_of(e).show() +
               " at seq " + std::to_string(e.seq) + " outside any call");
    return nullptr;
  }
  if (call->key.kernel != e.kernel || call->key.key != e.key) {
    report(step, Rule::R1, {call->begin_seq, e.seq},
           thread_text(thread_of(e)) + " has " + std::string(event_name(e.kind)) + " on " + key_of(e).show() +
               " at seq " + std::to_string(e.seq) + ", but its innermost open call (seq " +
               std::to_string(call->begin_seq) + ") is on " + call->key.show());
    return nullptr;
  }
  return call;
}

KeyChoices& key_choices(StepContext& step) {
  if (step.key != nullptr) return *step.key;
  auto it = step.state.keys.find(KeyId{step.event.kernel, step.event.key});
  if (it == step.state.keys.end()) it = step.state.keys.emplace(key_of(step.event), KeyChoices{}).first;
  step.key = &it->second;  // map nodes stay put: valid for the whole step
  return *step.key;
}

CallView& view_of(StepContext& step, const OpenCall& call) { return step.choice->views[call.begin_seq]; }

// An invalidate always resets R3 and R10 (they ask only whether one came between), and drops the
// winner its own process holds, but it unpublishes the winner only when no attempt is in flight on
// the key, or when each attempt in flight is in doubt (attempts_in_doubt).
void invalidate_effect(StepContext& step, const std::optional<Name>& process) {
  Choice& choice = *step.choice;
  drop_held_winner(choice, process, step.event.seq);
  choice.forget_successes();
  choice.loaded.reset();
  choice.history.last_invalidate_seq = step.event.seq;
  if (choice.in_flight.empty() || (choice.winner && attempts_in_doubt(choice))) {
    withdraw_winner(choice, step.event.seq);
    choice.entry_withdrawn = true;
    choice.entry_lost_seq = step.event.seq;
    choice.r3_note.clear();
    return;
  }
  choice.r3_note = " (the invalidate placed " + std::string(step.state.header.white_box ? "at " : "before ") +
                   seq_text(step.event.seq) + " came while " + thread_text(choice.in_flight.back().owner) +
                   "'s attempt was in flight, so it had no effect on the winner that attempt published)";
}

}  // namespace detail

namespace {

void on_call_begin(StepContext& step) {
  const Event& e = step.event;
  ++step.state.stats.calls;
  const std::int64_t seq = e.seq;
  OpenCall& call = step.state.calls.emplace(seq, OpenCall{.thread = thread_of(e), .key = key_of(e), .begin_seq = seq}).first->second;
  step.state.threads[thread_of(e)].push_back(seq);
  key_choices(step).open_calls.insert(seq);
  for_each_choice(step, [&call](StepContext& in) {
    Choice& choice = *in.choice;
    CallView& view = choice.views[call.begin_seq];
    view.began_tuned = choice.winner.has_value() && !choice.entry_rejected;
    view.reentrant = std::any_of(choice.in_flight.begin(), choice.in_flight.end(),
                                 [&](const Attempt& attempt) { return attempt.owner == call.thread; });
  });
}

}  // namespace

namespace detail {

// Removes the thread's innermost call; a thread left with none is forgotten, so that the state
// follows the threads with open calls, not every thread name the trace ever used.
void pop_innermost_call(State& state, const ThreadName& thread) {
  auto it = state.threads.find(thread);
  const std::int64_t seq = it->second.back();
  const OpenCall& call = state.calls.at(seq);
  if (call.first_bench) state.benches.erase(*call.first_bench);
  state.keys.at(call.key).open_calls.erase(seq);
  state.calls.erase(seq);
  it->second.pop_back();
  if (it->second.empty()) state.threads.erase(it);
}

}  // namespace detail

namespace {

// What the trace shows of a call's end, whatever the choice: R5 on its result, R1 on a wait left
// open (white-box).
void judge_call_end(StepContext& step, OpenCall& call) {
  const Event& e = step.event;
  auto where = [&] {
    return call.key.show() + " (call seq " + std::to_string(call.begin_seq) + ", end seq " + std::to_string(e.seq) + ")";
  };
  if (e.config && call.launches == 0)
    report(step, Rule::R5, {call.begin_seq, e.seq},
           thread_text(thread_of(e)) + " returned " + printable(*e.config) + " from its call on " + where() + " without launching");
  else if (e.config && call.launch_failed)
    report(step, Rule::R5, {call.launch_seq, e.seq},
           thread_text(thread_of(e)) + " returned " + printable(*e.config) + " from its call on " + where() +
               ", although its launch failed (seq " + std::to_string(call.launch_seq) + ")");
  else if (e.config && *call.launched != *e.config)
    report(step, Rule::R5, {call.launch_seq, e.seq},
           thread_text(thread_of(e)) + " launched " + printable(*call.launched) + " (seq " + std::to_string(call.launch_seq) +
               ") but returned " + printable(*e.config) + " from its call on " + where());
  if (call.wait_open_seq) {
    report(step, Rule::R1, {*call.wait_open_seq, e.seq},
           thread_text(thread_of(e)) + " ended its call on " + call.key.show() + " at seq " + std::to_string(e.seq) +
               " while its wait (seq " + std::to_string(*call.wait_open_seq) + ") was still open");
    call.wait_open_seq.reset();
  }
}

// Whether a rule names a reason for the call to end with an error (R14). A re-entrant call, and a
// cycle-closing one in a white-box trace, are judged by R9 and R11 whichever the policy. A black-box
// cycle is one of possible waits: it excuses an error under re-entry policy error only.
bool may_raise(const StepContext& step, const OpenCall& call, const CallView& view) {
  if (call.launch_failed || call.store_failed || view.owned == Ownership::Failed || view.saw_failure || view.reentrant) return true;
  const bool judged_by_r11 =
      step.state.header.white_box || step.state.header.policy.reentry == ReentryPolicy::Error;
  return judged_by_r11 && call.launches == 0 && cycle_closed_by(step.state, call).has_value();
}

// R14: an error with no reason that the rules name is a spurious failure.
void judge_spurious_failure(StepContext& step, const OpenCall& call, const CallView& view) {
  const Event& e = step.event;
  if (!e.error || may_raise(step, call, view)) return;
  const std::string why = view.owned == Ownership::Succeeded
                              ? "its own attempt (" + seq_text(view.owned_attempt_id) + ") succeeded"
                              : "it neither owned nor waited on an attempt that failed";
  report_in_choice(step, Rule::R14, {call.begin_seq, e.seq},
                   thread_text(thread_of(e)) + "'s call on " + call.key.show() + " (" + seq_text(call.begin_seq) +
                       ") raised \"" + printable(*e.error) + "\" at " + seq_text(e.seq) + ", but " + why +
                       ", it was neither re-entrant nor closing a cycle, and neither a launch nor a store step of it failed");
}

// In one choice: R9 on a re-entrant call's result, R8 on an owner whose attempt failed, R14.
void judge_call_result(StepContext& step, const OpenCall& call, const CallView& view) {
  const Event& e = step.event;
  auto where = [&] {
    return call.key.show() + " (call seq " + std::to_string(call.begin_seq) + ", end seq " + std::to_string(e.seq) + ")";
  };
  if (view.reentrant) {
    const bool error_policy = step.state.header.policy.reentry == ReentryPolicy::Error;
    if (error_policy && e.config)
      report_in_choice(step, Rule::R9, {call.begin_seq, e.seq},
                       thread_text(thread_of(e)) + "'s re-entrant call on " + where() + " returned " + printable(*e.config) +
                           " instead of an error (re-entry policy error)");
    if (!error_policy && e.error && !call.launch_failed)
      report_in_choice(step, Rule::R9, {call.begin_seq, e.seq},
                       thread_text(thread_of(e)) + "'s re-entrant call on " + where() + " raised \"" + printable(*e.error) +
                           "\" instead of launching the fallback (re-entry policy fallback)");
  }
  // A waiter of a failed attempt raises for that failure (R8), whatever waits now surround it.
  if (view.owned == Ownership::None && !view.reentrant && !view.saw_failure) judge_cycle_closing_error(step, call);
  if (view.owned == Ownership::Failed && e.config && step.state.header.white_box)
    report_in_choice(step, Rule::R8, {view.owned_attempt_id, e.seq},
                     thread_text(thread_of(e)) + "'s attempt " + std::to_string(view.owned_attempt_id) + " on " + where() +
                         " failed, but its call returned " + printable(*e.config) + " instead of an error");
  judge_spurious_failure(step, call, view);
}

// White-box R1: a call may not end while its attempt is open. Recovery: the attempt is dropped
// unjudged, so that later events are judged sanely.
void close_open_attempt(StepContext& step, const OpenCall& call, CallView& view) {
  if (view.owned != Ownership::InFlight) return;
  report_in_choice(step, Rule::R1, {view.owned_attempt_id, step.event.seq},
                   thread_text(call.thread) + " ended its call on " + call.key.show() + " at seq " +
                       std::to_string(step.event.seq) + " while its attempt " + std::to_string(view.owned_attempt_id) +
                       " was still open");
  settle_cycles_through(step, call.key, view.owned_attempt_id, LeaseAtEnd::Kept);
  std::erase_if(step.choice->in_flight, [&](const Attempt& a) { return a.owner_call == call.begin_seq; });
  view.owned = Ownership::Failed;
}

// Black-box: a call that benched and did not launch ends its attempt failed; a choice that placed
// this attempt's end as a success, or an early begin of a call that never benched, dies.
void end_black_box_call(StepContext& step, const OpenCall& call, const CallView& view) {
  Choice& choice = *step.choice;
  auto end = std::find_if(choice.chosen_ends.begin(), choice.chosen_ends.end(),
                          [&](const ChosenEnd& placed) { return placed.owner_call == call.begin_seq; });
  if (end != choice.chosen_ends.end()) {
    if (end->success) {  // placed as a success, but it never launched
      step.dead = true;
      return;
    }
    judge_benches(step, end->attempt_id, call.key, std::nullopt);
    choice.chosen_ends.erase(end);
    return;
  }
  if (view.owned != Ownership::InFlight) return;
  if (!call.first_bench) {  // an early begin, but it never benched
    step.dead = true;
    return;
  }
  judge_benches(step, *call.first_bench, call.key, std::nullopt);  // a failed attempt
  end_attempt(step, call, std::nullopt, step.event.seq);
}

void on_call_end(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);  // reports the R1 violation; the event is then ignored
  if (call == nullptr) return;
  if (e.error) ++step.state.stats.errors;
  judge_call_end(step, *call);
  for_each_choice(step, [&](StepContext& in) {
    CallView& view = view_of(in, *call);  // a map node: stays put while ending an attempt adds views
    if (in.state.header.white_box) close_open_attempt(in, *call, view);
    else end_black_box_call(in, *call, view);
    if (in.dead) return;
    judge_call_result(in, *call, view);
    in.choice->views.erase(call->begin_seq);
  });
  pop_innermost_call(step.state, thread_of(step.event));
}

void on_wait_begin(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  for_each_choice(step, [&](StepContext& in) {
    const CallView& view = view_of(in, *call);
    if (view.reentrant)
      report_in_choice(in, Rule::R9, {call->begin_seq, e.seq},
                       thread_text(thread_of(e)) + "'s re-entrant call on " + call->key.show() + " (seq " +
                           std::to_string(call->begin_seq) + ") waited at seq " + std::to_string(e.seq) +
                           " on the attempt its own thread owns");
    else if (auto cycle = cycle_of_wait(in.state, thread_of(e), call->key))
      judge_wait_closing_cycle(in, *call, *cycle);
    else if (view.began_tuned && in.choice->history.last_invalidate_seq < call->begin_seq)
      report_in_choice(in, Rule::R10, {call->begin_seq, e.seq},
                       thread_text(thread_of(e)) + "'s call on " + call->key.show() + " began at seq " +
                           std::to_string(call->begin_seq) + " on a tuned key with no invalidate since, yet waited at seq " +
                           std::to_string(e.seq));
  });
  call->wait_open_seq = e.seq;
  call->waits_on_attempt = attempt_to_wait_on(step.state, thread_of(e), call->key);
}

void on_wait_end(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (!call->wait_open_seq)
    return report(step, Rule::R1, {e.seq},
                  thread_text(thread_of(e)) + " has wait_end on " + call->key.show() + " at seq " + std::to_string(e.seq) +
                      " with no open wait_begin");
  call->last_wait_begin_seq = *call->wait_open_seq;
  call->wait_open_seq.reset();
}

// Black-box: the call of an invalidate opens its window; white-box: the invalidate event is its
// effect, so its call adds nothing.
void on_invalidate_begin(StepContext& step) {
  if (step.state.header.white_box) return;
  key_choices(step).invalidates_begun[thread_of(step.event)] = step.event.seq;
  for_each_choice(step, [](StepContext& in) { in.choice->pending_invalidates.insert(in.event.seq); });
}

// The invalidate's return: its effect now, unless a choice placed it earlier in its window. Its
// begin is forgotten only after the choices ran: one may place its effect just before this event,
// and needs its process then (invalidating_process).
void on_invalidate(StepContext& step) {
  std::optional<std::int64_t> begun;
  auto& calls = key_choices(step).invalidates_begun;
  const auto it = step.state.header.white_box ? calls.end() : calls.find(thread_of(step.event));
  if (it != calls.end()) begun = it->second;
  for_each_choice(step, [&](StepContext& in) {
    if (begun && in.choice->pending_invalidates.erase(*begun) == 0) return;  // placed earlier
    invalidate_effect(in, in.event.process);
  });
  if (it != calls.end()) calls.erase(it);
}

void dispatch(StepContext& step) {
  switch (step.event.kind) {
    case EventKind::CallBegin: return on_call_begin(step);
    case EventKind::CallEnd: return on_call_end(step);
    case EventKind::TuneBegin: return on_tune_begin(step);
    case EventKind::Bench: return on_bench(step);
    case EventKind::TuneEnd: return on_tune_end(step);
    case EventKind::WaitBegin: return on_wait_begin(step);
    case EventKind::WaitEnd: return on_wait_end(step);
    case EventKind::Launch:
    case EventKind::LaunchFailed: return on_launch(step);
    case EventKind::Invalidate: return on_invalidate(step);
    case EventKind::InvalidateBegin: return on_invalidate_begin(step);
    case EventKind::Load: return on_load(step);
    case EventKind::Exit: return on_exit(step);
    case EventKind::LeaseLost: return on_lease_lost(step);
    case EventKind::StoreFailed: return on_store_failed(step);
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
  if (state.incomplete) return;  // checked no further: the verdict is incomplete
  remember_cycles(state, event);
  StepContext current{.state = state, .event = event, .found = found};
  dispatch(current);
  if (event.kind == EventKind::Exit) return;
  if (OpenCall* call = innermost_call(state, thread_of(event))) {
    call->last_seq = event.seq;
    call->cycle_seen.reset();
  }
}

StepResult step(State state, const Event& event) {
  std::vector<Violation> found;
  advance(state, event, found);
  return StepResult{std::move(state), std::move(found)};
}

std::vector<Violation> finish(State& state) {
  std::vector<Violation> found;
  if (state.incomplete) {
    // Checked no further: the rest of the trace may end the calls still open and settle the
    // pending launches, so neither is judged. A violation that every choice kept stands: later
    // events can only rule choices out or add violations.
    finish_choices(state, found, [](State&, Choice&) {});
    return found;
  }
  finish_choices(state, found, [](State& settled, Choice& choice) {
    settle_all_pending(settled, choice);
    judge_deferred_at_end(choice);
  });
  judge_deferred_cycles_at_end(state, found);
  for (const auto& [seq, call] : state.calls) {
    const KeyChoices& key = state.keys.at(call.key);
    report_with_state(found, Rule::R7, {seq},
                      thread_text(call.thread) + "'s call on " + call.key.show() + " (seq " + std::to_string(seq) +
                          ") has no call_end by the end of the trace (a hang)",
                      describe(state, call.key, call.thread, &key.choices.front()));
  }
  return found;
}

}  // namespace safetune::model
