// Launch judgement: R5 agreement, R6 no early use, R8 for waiters of a failed attempt, R9 for
// re-entrant calls; and the black-box launches whose judgement waits for an attempt's outcome.
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
                             head + ", but the valid answers in its window" + span + " were " +
                                 window.valid_answers,
                             state_before);
  report_with_state(found, Rule::R6, {window.begin_seq, seq},
                    head + " before any winner was published in its window" + span +
                        " (early use); the valid answers were " + window.valid_answers,
                    state_before);
}

void judge_reentrant_launch(Step& step, const OpenCall& call) {
  const Event& e = step.event;
  auto head = [&] {
    return thread_text(e.thread) + "'s re-entrant call on " + call.key.show() + " (" + seq_text(call.begin_seq) +
           ") launched " + printable(*e.config) + " at " + seq_text(e.seq);
  };
  if (step.state.header.policy.reentry == ReentryPolicy::Error)
    return report(step, Rule::R9, {call.begin_seq, e.seq},
                  head() + "; re-entry policy error demands an error and no launch");
  auto fallback = step.state.header.policy.fallback_for(call.key.kernel);
  if (!fallback || *fallback != *e.config)
    report(step, Rule::R9, {call.begin_seq, e.seq},
           head() + "; re-entry policy fallback demands the fallback " +
               (fallback ? printable(*fallback) : std::string("(none)")));
}

// Black-box: while an attempt is in flight on the key its winner may already count as published
// (from its last bench), so a launch that looks wrong now waits in the key's state for the
// attempt to end. One that is right now stays right: an attempt's end only adds valid answers.
void defer_or_judge(Step& step, const OpenCall& call) {
  const Event& e = step.event;
  KeyState& ks = step.state.keys[call.key];
  WindowFacts window = window_facts(step.state, ks, call, *e.config);
  if (is_right(window)) return;
  if (step.state.header.white_box || ks.in_flight.empty())
    return judge_window(step.found, e.thread, call.key, window, *e.config, e.seq,
                        describe(step.state, call.key, e.thread));
  PendingLaunch pending{e.thread, std::move(window), *e.config, e.seq, {}, describe(step.state, call.key, e.thread)};
  for (const auto& attempt : ks.in_flight) pending.awaiting.push_back(attempt.id);
  ks.pending.push_back(std::move(pending));
}

void judge_owner_launch(Step& step, OpenCall& call) {
  const Event& e = step.event;
  // Built only when a rule is broken: this runs for every launch.
  auto head = [&] { return thread_text(e.thread) + " launched " + printable(*e.config) + " on " + call.key.show() + " at " + seq_text(e.seq); };
  switch (call.owned) {
    case Ownership::InFlight:
      // White-box: judged at its tune_end. Black-box: this launch is the attempt's success.
      if (!step.state.header.white_box) black_box_attempt_succeeds(step, call, *e.config);
      return;
    case Ownership::Succeeded:
      if (call.owned_winner != e.config)
        report(step, Rule::R5, {call.owned_attempt_id, e.seq},
               head() + ", but its own attempt (" + seq_text(call.owned_attempt_id) + ") chose " +
                   (call.owned_winner ? printable(*call.owned_winner) : std::string("nothing")));
      return;
    case Ownership::Failed:
      report(step, Rule::R8, {call.owned_attempt_id, e.seq},
             head() + ", but its own attempt (" + seq_text(call.owned_attempt_id) +
                 ") failed, so the call must end with an error");
      return;
    case Ownership::None:
      return defer_or_judge(step, call);
  }
}

// An attempt that published `winner` at `published_seq` ended: what that adds to a window.
void add_publication(PendingLaunch& launch, const std::string& winner, std::int64_t published_seq) {
  if (published_seq >= launch.seq) return;
  WindowFacts& window = launch.window;
  window.winner_seen = true;
  if (launch.config == winner) window.config_valid = true;
  if (window.waited_on_failure_seq && published_seq > *window.waited_on_failure_seq && launch.config == winner)
    window.later_winner = true;
  window.valid_answers = window.valid_answers == "none" ? printable(winner)
                                                       : window.valid_answers + " | " + printable(winner);
}

}  // namespace

void on_launch(Step& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (call->launches > 0)
    report(step, Rule::R5, {call->launch_seq, e.seq},
           thread_text(e.thread) + "'s call on " + call->key.show() + " (" +
               seq_text(call->begin_seq) + ") launched again at " + seq_text(e.seq) +
               " after launching at " + seq_text(call->launch_seq));
  ++call->launches;
  if (call->launches > 1) return;
  call->launched = e.config;
  call->launch_seq = e.seq;
  if (call->reentrant) return judge_reentrant_launch(step, *call);
  judge_owner_launch(step, *call);
}

void settle_pending(Step& step, const KeyId& key, std::int64_t attempt_id,
                    const std::optional<std::string>& winner,
                    std::optional<std::int64_t> published_seq) {
  auto& pending = step.state.keys[key].pending;
  std::vector<PendingLaunch> still_pending;
  for (auto& launch : pending) {
    if (std::erase(launch.awaiting, attempt_id) == 0) {
      still_pending.push_back(std::move(launch));
      continue;
    }
    if (winner) add_publication(launch, *winner, *published_seq);
    if (launch.awaiting.empty())
      judge_window(step.found, launch.thread, key, launch.window, launch.config, launch.seq,
                   launch.state_before);
    else
      still_pending.push_back(std::move(launch));
  }
  pending = std::move(still_pending);
}

void settle_all_pending(State& state, std::vector<Violation>& found) {
  for (auto& [key, ks] : state.keys) {
    for (const auto& launch : ks.pending)
      judge_window(found, launch.thread, key, launch.window, launch.config, launch.seq,
                   launch.state_before);
    ks.pending.clear();
  }
}

}  // namespace safetune::model::detail
