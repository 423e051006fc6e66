// Launch judgement: R5 agreement, R6 no early use, R8 for waiters of a failed attempt, R9 for
// re-entrant calls; and, in black-box choices, the launches that wait for an undecided winner.
#include <algorithm>
#include <utility>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

bool is_right(const WindowFacts& window) {
  return window.waited_on_failure_seq ? window.later_winner : window.config_valid;
}

// Judges an ordinary launch (not an owner's, not re-entrant) against its window.
void judge_window(std::vector<Violation>& found, const ThreadName& thread, const KeyId& key,
                  const WindowFacts& window, const std::string& config, std::int64_t seq,
                  const std::string& state_before) {
  if (is_right(window)) return;
  const std::string head = thread_text(thread) + " launched " + printable(config) + " on " + key.show() +
                           " at " + seq_text(seq);
  const std::string span = " (window " + seq_text(window.begin_seq) + ".." + std::to_string(seq) + ")";
  if (window.waited_on_failure_seq)
    return report_with_state(found, Rule::R8, {*window.waited_on_failure_seq, seq},
                             head + " after the attempt it waited on failed at " +
                                 seq_text(*window.waited_on_failure_seq) +
                                 ", but no later successful attempt published it",
                             state_before);
  if (window.winner_seen)
    return report_with_state(found, Rule::R5, {window.begin_seq, seq},
                             head + ", but the valid answers in its window" + span + " were " + window.valid_answers,
                             state_before);
  report_with_state(found, Rule::R6, {window.begin_seq, seq},
                    head + " before any winner was published in its window" + span +
                        " (early use); the valid answers were " + window.valid_answers,
                    state_before);
}

void judge_in_choice(Choice& choice, const ThreadName& thread, const KeyId& key, const WindowFacts& window,
                     const std::string& config, std::int64_t seq, const std::string& state_before) {
  const std::size_t before = choice.found.size();
  judge_window(choice.found, thread, key, window, config, seq, state_before);
  choice.violation_count += static_cast<std::int64_t>(choice.found.size() - before);
}

void judge_reentrant_launch(StepContext& step, const OpenCall& call) {
  const Event& e = step.event;
  auto head = [&] {
    return thread_text(thread_of(e)) + "'s re-entrant call on " + call.key.show() + " (" + seq_text(call.begin_seq) +
           ") launched " + printable(*e.config) + " at " + seq_text(e.seq);
  };
  if (step.state.header.policy.reentry == ReentryPolicy::Error)
    return report_in_choice(step, Rule::R9, {call.begin_seq, e.seq},
                            head() + "; re-entry policy error demands an error and no launch");
  auto fallback = step.state.header.policy.fallback_for(call.key.kernel);
  if (!fallback || *fallback != *e.config)
    report_in_choice(step, Rule::R9, {call.begin_seq, e.seq},
                     head() + "; re-entry policy fallback demands the fallback " +
                         (fallback ? printable(*fallback) : std::string("(none)")));
}

// A launch that is wrong in this choice unless an undecided winner in its window turns out to be
// its config waits for the owners to launch; any other is judged now.
void judge_or_wait(StepContext& step, const OpenCall& call, const CallView& view) {
  const Event& e = step.event;
  Choice& choice = *step.choice;
  WindowFacts window = window_facts(step.state, choice, call, view, *e.config);
  if (is_right(window)) return;
  if (auto cycle = cycle_closed_by(step.state, call); cycle && judge_cycle_closing_launch(step, call, *cycle))
    return;
  std::string state_before = describe(step.state, call.key, thread_of(e), &choice);
  if (window.unsettled.empty())
    return judge_in_choice(choice, thread_of(e), call.key, window, *e.config, e.seq, state_before);
  choice.pending.push_back(PendingLaunch{thread_of(e), call.key, std::move(window), *e.config, e.seq, std::move(state_before)});
}

// White-box: the owner's launch, against what its attempt did.
void judge_white_box_owner(StepContext& step, const OpenCall& call, const CallView& view) {
  const Event& e = step.event;
  auto head = [&] { return thread_text(thread_of(e)) + " launched " + printable(*e.config) + " on " + call.key.show() + " at " + seq_text(e.seq); };
  switch (view.owned) {
    case Ownership::InFlight: return;  // judged at its tune_end
    case Ownership::Succeeded:
      if (view.owned_winner != e.config)
        report_in_choice(step, Rule::R5, {view.owned_attempt_id, e.seq},
                         head() + ", but its own attempt (" + seq_text(view.owned_attempt_id) + ") chose " +
                             (view.owned_winner ? printable(*view.owned_winner) : std::string("nothing")));
      return;
    case Ownership::Failed:
      return report_in_choice(step, Rule::R8, {view.owned_attempt_id, e.seq},
                              head() + ", but its own attempt (" + seq_text(view.owned_attempt_id) +
                                  ") failed, so the call must end with an error");
    case Ownership::None: return judge_or_wait(step, call, view);
  }
}

// Black-box: a call that benched owns an attempt, and its launch is that attempt's success; a
// call that did not bench owns none.
void judge_black_box_launch(StepContext& step, const OpenCall& call, const CallView& view) {
  const Event& e = step.event;
  Choice& choice = *step.choice;
  if (!call.first_bench) {
    if (view.owned == Ownership::InFlight) step.dead = true;  // an early begin, but it never benched
    else judge_or_wait(step, call, view);
    return;
  }
  if (attempt_owned_by(choice, call.begin_seq)) {
    judge_benches(step, *call.first_bench, call.key, *e.config);
    return end_attempt(step, call, *e.config, e.seq);
  }
  auto end = std::find_if(choice.chosen_ends.begin(), choice.chosen_ends.end(),
                          [&](const ChosenEnd& placed) { return placed.owner_call == call.begin_seq; });
  if (end == choice.chosen_ends.end()) return;  // ended before (R1 recovery): nothing to settle
  if (!end->success) {  // its end was placed as a failure, but it launched
    step.dead = true;
    return;
  }
  const std::int64_t attempt_id = end->attempt_id;
  choice.chosen_ends.erase(end);
  judge_benches(step, attempt_id, call.key, *e.config);
  decide_winner(choice, call.begin_seq, *e.config);
  settle_pending(step, call.begin_seq, *e.config);
}

}  // namespace

// A launch_failed is judged as a launch of its config: the call read the key's state and chose
// it, and for attempts and publication it counts as the launch did.
void on_launch(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (call->launches > 0)
    report(step, Rule::R5, {call->launch_seq, e.seq},
           thread_text(thread_of(e)) + "'s call on " + call->key.show() + " (" + seq_text(call->begin_seq) +
               ") launched again at " + seq_text(e.seq) + " after launching at " + seq_text(call->launch_seq));
  if (++call->launches > 1) return;
  call->launched = e.config;
  call->launch_seq = e.seq;
  call->launch_failed = e.kind == EventKind::LaunchFailed;
  const bool black_box = !step.state.header.white_box;
  if (black_box && call->first_bench) ++step.state.stats.successful_tunings;  // its attempt succeeded
  for_each_choice(step, [&](StepContext& in) {
    const CallView view = view_of(in, *call);
    if (view.reentrant) return judge_reentrant_launch(in, *call);
    if (black_box) judge_black_box_launch(in, *call, view);  // an owner's launch publishes first
    else judge_white_box_owner(in, *call, view);
    if (!in.dead) judge_rejected_launch(in, *call);
  });
}

void settle_pending(StepContext& step, std::int64_t owner_call, const std::string& config) {
  Choice& choice = *step.choice;
  std::vector<PendingLaunch> still_pending;
  for (PendingLaunch& launch : choice.pending) {
    if (launch.window.unsettled.erase(owner_call) == 0) {
      still_pending.push_back(std::move(launch));
      continue;
    }
    if (launch.config == config) continue;  // the winner it read was its config: right
    if (!launch.window.unsettled.empty()) {
      still_pending.push_back(std::move(launch));
      continue;
    }
    judge_in_choice(choice, launch.thread, launch.key, launch.window, launch.config, launch.seq, launch.state_before);
  }
  choice.pending = std::move(still_pending);
}

void settle_all_pending(State&, Choice& choice) {
  for (PendingLaunch& launch : choice.pending)
    judge_in_choice(choice, launch.thread, launch.key, launch.window, launch.config, launch.seq, launch.state_before);
  choice.pending.clear();
}

}  // namespace safetune::model::detail
