// The results store in the model: a call's `load` of the key's entry (R12, R13), a failed step in
// the store (`store_failed`, R14) and a process's `exit` (docs/rules.md, "Across processes").
//
// A load with a config is an observation at its own seq: the call read a published winner. The
// model then holds that winner as published (from an earlier run, if the trace shows none), and a
// successful load counts for R3 as a success of the key. A load with an error is a miss; its
// config, when the trace gives it, is the rejected entry's winner, which the call must not launch
// unless an attempt published it after that load (R13).
//
// A rejected load means the store holds no valid entry of the key: as for an invalidate, a new
// attempt is no R3 duplicate and a waiting call no R10 break; unlike one, the winner a process
// may still hold in memory stays a valid answer to launch.
//
// An exit ends its process: its open calls are gone (not hangs, R7), the winners it held in memory
// with them, and the attempts they owned are abandoned: neither a success nor a failure. A waiter
// of an abandoned attempt may take over (a new attempt is a retry, not R3), and has no reason from
// it to raise (R14).
#include <algorithm>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

std::string published_text(const Choice& choice) {
  return answer_text(*choice.winner) +
         (choice.last_success_seq > 0 ? " (published at " + seq_text(choice.last_success_seq) + ")" : "");
}

// After the store lost the key's entry (a rejected load, or a withdrawal), a load that returns
// another config than the winner held in memory read an entry published since: by an attempt still in flight (its
// tune_end may come after the load; it must then agree, end_attempt), or by one abandoned since
// (its process died after publishing). With neither, no one can have published it.
bool republished_since_rejection(const Choice& choice, const std::string& config) {
  return choice.winner == config || !choice.in_flight.empty() || choice.abandoned_since_rejection;
}

// The load read the store at some moment after its thread's previous event (call.last_seq) and
// was recorded after it: a winner that stopped being published in between (an invalidate of
// another process withdrew it, or a later winner replaced it) may be what it read. The process
// then holds it; the store gained nothing: no success of the key (R3), no load for the later ones
// to agree with (R12).
bool read_before_it_was_withdrawn(const Choice& choice, const OpenCall& call, const std::string& config) {
  if (choice.winner == config) return false;
  const auto it = choice.history.winner_until.find(config);
  return it != choice.history.winner_until.end() && it->second > call.last_seq;
}

// R12 in one choice: the load must return the published winner, and agree with the loads since
// the last invalidate. A black-box winner still undecided (its owner has not launched) may be it.
// After the store lost the key's entry (a rejected load, or an invalidate withdrew it), the first
// valid load shows what was published since (republished_since_rejection), and the loads after it
// must agree with it.
void load_in_choice(StepContext& step, const OpenCall& call, const std::string& config) {
  const Event& e = step.event;
  Choice& choice = *step.choice;
  if (read_before_it_was_withdrawn(choice, call, config)) return hold_winner(choice, e.process, config, e.seq, HeldBy::Load);
  auto head = [&] { return thread_text(thread_of(e)) + " loaded " + printable(config) + " for " + call.key.show() + " at " + seq_text(e.seq); };
  const bool store_lost_it = choice.entry_rejected;
  if (!store_lost_it && choice.winner && *choice.winner != config && !undecided_owner(*choice.winner))
    return report_in_choice(step, Rule::R12, {choice.last_success_seq, e.seq},
                            head() + ", but the key's published winner is " + published_text(choice));
  if ((store_lost_it || choice.entry_withdrawn) && !republished_since_rejection(choice, config))
    return report_in_choice(step, Rule::R12, {choice.entry_lost_seq, e.seq},
                            head() + ", but the store lost the key's entry at " + seq_text(choice.entry_lost_seq) +
                                (store_lost_it ? " (a rejected load)" : " (an invalidate withdrew it)") +
                                ", and no attempt has been in flight since to publish another");
  if (choice.loaded && *choice.loaded != config)
    return report_in_choice(step, Rule::R12, {choice.loaded_seq, e.seq},
                            head() + ", but an earlier load since the last invalidate returned " + printable(*choice.loaded));
  if (!choice.loaded) choice.loaded_seq = e.seq;
  choice.loaded = config;
  choice.succeeded_since_invalidate = true;  // R3: a success of the key, published or not before
  if (e.process) choice.loaded_in.emplace(*e.process, e.seq);  // the first load of each process
  choice.entry_rejected = false;             // the store holds a valid entry again
  choice.entry_withdrawn = false;
  choice.abandoned_since_rejection = false;
  hold_winner(choice, e.process, config, e.seq, HeldBy::Load);  // a load that breaks R12 is no valid answer
  if (choice.winner && !store_lost_it) return;
  publish_winner(choice, config, e.seq, e.seq);  // an entry from before the trace, or since the loss
  choice.last_success_seq = e.seq;
  choice.r3_note.clear();
}

// The store lost the key's entry: tuning it again is no duplicate (R3), and a call that begins now
// may wait for that tuning (R10). Loads since no longer need agree with what comes next (R12).
void entry_rejected_in_choice(StepContext& step) {
  Choice& choice = *step.choice;
  choice.entry_rejected = true;
  choice.entry_lost_seq = step.event.seq;
  choice.abandoned_since_rejection = false;
  choice.forget_successes();
  choice.loaded.reset();
  choice.history.last_invalidate_seq = step.event.seq;
}

// An exit's step on one call of its process: the same event, seen on the call's key, so that the
// key's hidden points may be placed before it (for_each_choice).
Event exit_on_key(const Event& exit, const KeyId& key) {
  Event on_key = exit;
  on_key.kernel = key.kernel;
  on_key.key = key.key;
  return on_key;
}

// In one choice: the call's attempt in flight is abandoned, not ended; a black-box end that a
// choice placed as a success is ruled out (the owner never launched), one placed as a failure stands.
void abandon_in_choice(StepContext& step, const OpenCall& call) {
  Choice& choice = *step.choice;
  auto end = std::find_if(choice.chosen_ends.begin(), choice.chosen_ends.end(),
                          [&](const ChosenEnd& placed) { return placed.owner_call == call.begin_seq; });
  if (end != choice.chosen_ends.end()) {
    if (end->success) {
      step.dead = true;
      return;
    }
    choice.chosen_ends.erase(end);
  }
  const CallView& view = choice.views[call.begin_seq];
  if (view.owned == Ownership::InFlight && !step.state.header.white_box && !call.first_bench) {
    step.dead = true;  // an early begin, but it never benched
    return;
  }
  // Its deferred R2 overlaps, R3 repeat and R11 cycles are excused, as by a lease_lost: an owner
  // killed after its lease ran out (paused, starved) never learned so, and its trace cannot show it.
  const auto owned = [&](const Attempt& attempt) { return attempt.owner_call == call.begin_seq; };
  if (const Attempt* attempt = attempt_owned_by(choice, call.begin_seq)) {
    excuse_overlaps_by(choice, attempt->id);
    settle_cycles_through(step, call.key, attempt->id, LeaseAtEnd::Lost);
  }
  const auto abandoned = std::erase_if(choice.in_flight, owned);
  if (abandoned > 0 && (choice.entry_rejected || choice.entry_withdrawn)) choice.abandoned_since_rejection = true;
  choice.views.erase(call.begin_seq);
}

// Counted once whatever the choices: white-box shows the attempt; black-box, a call that benched
// and never launched owned one.
bool owns_attempt_in_flight(const State& state, const OpenCall& call) {
  if (!state.header.white_box) return call.first_bench && call.launches == 0;
  const Choice& choice = state.keys.at(call.key).choices.front();
  return std::any_of(choice.in_flight.begin(), choice.in_flight.end(),
                     [&](const Attempt& attempt) { return attempt.owner_call == call.begin_seq; });
}

void abandon_call(StepContext& exit, const OpenCall& call) {
  const Event on_key = exit_on_key(exit.event, call.key);
  StepContext step{.state = exit.state, .event = on_key, .found = exit.found};
  if (owns_attempt_in_flight(exit.state, call)) ++exit.state.stats.abandoned_attempts;
  for_each_choice(step, [&call](StepContext& in) { abandon_in_choice(in, call); });
}

}  // namespace

void on_load(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (e.error) {
    ++step.state.stats.rejected_loads;
    if (step.state.header.fresh_store)
      report(step, Rule::R12, {e.seq},
             thread_text(thread_of(e)) + " rejected the entry of " + call->key.show() + " at " + seq_text(e.seq) + " (" +
                 printable(*e.error) + "), but the store started empty and only this run's processes wrote it: an entry they published was not whole");
    if (e.config) call->rejected[*e.config] = e.seq;
    for_each_choice(step, [](StepContext& in) { entry_rejected_in_choice(in); });
    return;
  }
  ++step.state.stats.loads;
  if (const auto* listed = listed_configs(step.state, call->key.kernel); listed && !listed->contains(*e.config))
    report(step, Rule::R12, {e.seq},
           thread_text(thread_of(e)) + " loaded " + printable(*e.config) + " for " + call->key.show() + " at " +
               seq_text(e.seq) + ", which is not in the kernel's config space: no attempt can have published it");
  for_each_choice(step, [&](StepContext& in) { load_in_choice(in, *call, *e.config); });
}

// A step of the call in the store failed: under the store-failure policy fail the call ends with an
// error for it (R14 names the reason); under tune-locally it goes on and tunes. Either way the
// store told the call nothing, so no other rule changes.
void on_store_failed(StepContext& step) {
  if (OpenCall* call = require_call(step)) call->store_failed = true;
}

void on_exit(StepContext& step) {
  State& state = step.state;
  const std::optional<Name>& process = step.event.process;
  std::vector<ThreadName> threads;
  for (auto it = state.threads.lower_bound(ThreadName{.process = process}); it != state.threads.end() && it->first.process == process; ++it)
    threads.push_back(it->first);
  for (const ThreadName& thread : threads) {
    while (state.threads.contains(thread)) {
      const OpenCall& call = state.calls.at(state.threads.at(thread).back());
      abandon_call(step, call);
      pop_innermost_call(state, thread);
    }
    for (auto& [key, choices] : state.keys) choices.invalidates_begun.erase(thread);
  }
  if (!process) return;
  for (auto& [key, choices] : state.keys)  // its calls are gone: no window sees what it held
    for (Choice& choice : choices.choices) choice.held.erase(*process);
  for (auto& [key, choices] : state.keys)
    for (Choice& choice : choices.choices) let_go_of_held(choice, *process, step.event.seq);
}

void judge_rejected_launch(StepContext& step, const OpenCall& call) {
  const Event& e = step.event;
  auto rejected = call.rejected.find(*e.config);
  if (rejected == call.rejected.end()) return;
  // A default answer (the fallback, the only config) is no use of the entry: R6 judges it.
  if (is_default_answer(step.state, call.key.kernel, *e.config)) return;
  const auto& published = step.choice->history.published_at;
  if (auto it = published.find(*e.config); it != published.end() && it->second > rejected->second) return;
  report_in_choice(step, Rule::R13, {rejected->second, e.seq},
                   thread_text(thread_of(e)) + " launched " + printable(*e.config) + " on " + call.key.show() + " at " +
                       seq_text(e.seq) + ", the winner of the entry its load rejected at " + seq_text(rejected->second) +
                       ", and no attempt published it since");
}

}  // namespace safetune::model::detail
