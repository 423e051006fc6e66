// Leases in the model: a `lease_lost` event, and the overlaps (R2) and late repeats (R3) it excuses
// (docs/rules.md, "Across processes").
//
// With a store that grants an attempt by lease (Redis: DESIGN.md, "Across processes"), an owner
// that stops renewing it (paused, slow, cut off from the server) is taken over by another process
// once the lease expires, and learns of it only when it next talks to the store. It then records
// `lease_lost`: its attempt is over (neither a success nor a failure, like an attempt abandoned by
// an exit) and it must not publish (R12). Its call goes on: it may wait for, or load, the winner of
// whoever took over, or begin a new attempt.
//
// So the takeover's tune_begin comes before the lease_lost in the trace, while the old attempt is
// still in flight there. The same pause, taken between the claim of the lease and the tune_begin,
// puts the old owner's tune_begin after the takeover's: over the takeover's attempt in flight, or
// after its success. Which of two overlapping attempts held the key, the trace cannot tell. A
// tune_begin of another process over an attempt in flight is therefore R2 only once both attempts
// have ended otherwise than by losing their lease: with a tune_end (it still held the key), or
// still in flight when the trace ends. The overlap is judged when the earlier ends, and then, if
// the later is still in flight, when the later ends (Attempt::overlapping). A process's exit
// excuses its attempts as a lease_lost does: an owner killed after its lease ran out (paused,
// starved) never learned so. Within one process there is no lease, and R2 is judged at once
// (begin_attempt).
//
// A tune_begin after a success its process did not know in memory is a late repeat: R3 only once
// its attempt ends otherwise than by losing its lease. An attempt that really repeats a success
// still ends so, and is reported then. What a process knows in memory: its own attempt's success,
// and a load of its own that came before the call of the new attempt began (a call that begins
// after it finds the winner published in the process, or the owner's attempt in flight): R3 at
// once. A load of its own that came after that call began does not count: the call may be the
// process's owner, paused between its claim and its tune_begin, and the load a call beside it
// that read the takeover's winner from the store while the owner's attempt was still its own.
//
// A header that says `"live_owners": true` (the harness paused no owner: every owner stayed live,
// renewing its lease) takes that excuse away: a lease_lost is then judged as a tune_end would be.
// A store that never renews its leases loses them to long attempts of live owners.
//
// A tune_begin that breaks both, or overlaps several attempts, counts one duplicate tuning: its
// first report counts it (count_duplicate).
#include <algorithm>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

Attempt* in_flight_attempt(Choice& choice, std::int64_t id) {
  for (Attempt& attempt : choice.in_flight)
    if (attempt.id == id) return &attempt;
  return nullptr;
}

void report_overlap(Choice& choice, const Overlap& overlap, std::vector<std::int64_t> seqs, const std::string& why) {
  report_with_state(choice.found, Rule::R2, std::move(seqs), overlap.message + ", and " + why, overlap.state_before);
  ++choice.violation_count;
  count_duplicate(choice, overlap.begin_seq);
}

void report_late_repeat(Choice& choice, Attempt& late, std::vector<std::int64_t> seqs, const std::string& why) {
  const LateRepeat& repeat = *late.late_repeat;
  report_with_state(choice.found, Rule::R3, std::move(seqs), repeat.message + ", and " + why, repeat.state_before);
  ++choice.violation_count;
  count_duplicate(choice, late.id);
}

// Why an overlap whose earlier attempt ended holding its lease is R2, now that the later one `how`.
std::string both_kept_their_leases(const Overlap& overlap, const std::string& how) {
  return "that attempt ended at " + seq_text(overlap.earlier_end_seq) + " without losing its lease, and the later one " + how;
}

}  // namespace

void count_duplicate(Choice& choice, std::int64_t begin_seq) {
  if (choice.duplicates_counted.insert(begin_seq).second) ++choice.duplicate_tunings;
}

bool may_hold_a_lease(const State& state, const ThreadName& owner) {
  return state.header.white_box && owner.process.has_value();
}

bool may_have_claimed_before_the_success(const State& state, const Choice& choice, const OpenCall& newcomer) {
  if (!may_hold_a_lease(state, newcomer.thread)) return false;
  const Name& process = *newcomer.thread.process;
  if (choice.tuned_in.contains(process)) return false;
  const auto load = choice.loaded_in.find(process);
  return load == choice.loaded_in.end() || load->second > newcomer.begin_seq;
}

bool may_yet_lose_its_lease(const State& state, const Attempt& in_flight, const ThreadName& newcomer) {
  return may_hold_a_lease(state, in_flight.owner) && newcomer.process && *in_flight.owner.process != *newcomer.process;
}

void judge_deferred(StepContext& step, Attempt& ended) {
  judge_deferred_because(step, ended, "ended at " + seq_text(step.event.seq) + " without losing its lease");
}

// Each overlap of `ended` is judged now, unless the later attempt is still in flight: it may yet
// lose its lease, and is then judged when it ends (Attempt::overlapping).
void judge_deferred_because(StepContext& step, Attempt& ended, const std::string& how) {
  Choice& choice = *step.choice;
  if (ended.late_repeat)
    report_late_repeat(choice, ended, {ended.late_repeat->success_seq, ended.id, step.event.seq}, "that attempt " + how);
  for (Overlap overlap : ended.overlapped_by) {
    if (Attempt* later = in_flight_attempt(choice, overlap.begin_seq)) {
      overlap.earlier_end_seq = step.event.seq;
      later->overlapping.push_back(std::move(overlap));
      continue;
    }
    report_overlap(choice, overlap, {ended.id, overlap.begin_seq, step.event.seq}, "that attempt " + how);
  }
  for (const Overlap& overlap : ended.overlapping)
    report_overlap(choice, overlap, {overlap.earlier_id, ended.id, overlap.earlier_end_seq, step.event.seq},
                   both_kept_their_leases(overlap, how));
}

void judge_deferred_at_end(Choice& choice) {
  const std::string how = "was still in flight, its lease never lost, at the end of the trace";
  const std::string why = "that attempt " + how;
  for (std::size_t i = 0; i < choice.in_flight.size(); ++i) {
    Attempt& attempt = choice.in_flight[i];  // reports mark attempts, never add or remove one
    if (attempt.late_repeat) report_late_repeat(choice, attempt, {attempt.late_repeat->success_seq, attempt.id}, why);
    for (const Overlap& overlap : attempt.overlapped_by) report_overlap(choice, overlap, {attempt.id, overlap.begin_seq}, why);
    for (const Overlap& overlap : attempt.overlapping)
      report_overlap(choice, overlap, {overlap.earlier_id, attempt.id, overlap.earlier_end_seq},
                     both_kept_their_leases(overlap, how));
  }
}

bool attempts_in_doubt(const Choice& choice) {
  const auto overlapped = [&](const Attempt& attempt) {
    return std::any_of(choice.in_flight.begin(), choice.in_flight.end(), [&](const Attempt& other) {
      return std::any_of(other.overlapped_by.begin(), other.overlapped_by.end(),
                         [&](const Overlap& overlap) { return overlap.begin_seq == attempt.id; });
    });
  };
  return std::all_of(choice.in_flight.begin(), choice.in_flight.end(), [&](const Attempt& attempt) {
    return attempt.late_repeat || !attempt.overlapped_by.empty() || !attempt.overlapping.empty() || overlapped(attempt);
  });
}

void excuse_overlaps_by(Choice& choice, std::int64_t later) {
  for (Attempt& attempt : choice.in_flight)
    std::erase_if(attempt.overlapped_by, [&](const Overlap& overlap) { return overlap.begin_seq == later; });
}

void on_lease_lost(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  ++step.state.stats.lost_leases;
  std::int64_t lost = 0;
  for_each_choice(step, [&](StepContext& in) {
    Attempt* attempt = attempt_of_thread(*in.choice, thread_of(e));
    if (!attempt)
      return report_in_choice(in, Rule::R1, {e.seq},
                              thread_text(thread_of(e)) + " has lease_lost on " + call->key.show() + " at " +
                                  seq_text(e.seq) + " with no tune_begin open on its thread");
    lost = attempt->id;
    if (step.state.header.live_owners)
      judge_deferred_because(in, *attempt, "lost its lease at " + seq_text(e.seq) +
                                               " though no owner of the run was paused (live_owners): a live owner "
                                               "that renews its lease keeps it");
    CallView& view = in.choice->views[attempt->owner_call];
    view.owned = Ownership::None;  // it owns nothing now: its launch is judged as any call's
    view.owned_attempt_id = 0;
    view.owned_winner.reset();
    const std::int64_t id = attempt->id;
    settle_cycles_through(in, call->key, id, LeaseAtEnd::Lost);  // none is deferred under live_owners
    std::erase_if(in.choice->in_flight, [&](const Attempt& a) { return a.id == id; });  // its overlaps excused
    if (!step.state.header.live_owners) excuse_overlaps_by(*in.choice, id);
  });
  if (lost == 0) return;
  step.state.benches.erase(lost);  // never judged by R4: the attempt did not finish
  call->lease_lost_attempt = lost;
  call->lease_lost_seq = e.seq;
}

void on_tune_end_after_lease_lost(StepContext& step, OpenCall& call) {
  const Event& e = step.event;
  if (e.config)
    report(step, Rule::R12, {call.lease_lost_seq, e.seq},
           thread_text(thread_of(e)) + "'s attempt on " + call.key.show() + " (" + seq_text(call.lease_lost_attempt) +
               ") published " + printable(*e.config) + " at " + seq_text(e.seq) + ", after it lost its lease at " +
               seq_text(call.lease_lost_seq) + ": a fenced owner must not publish");
  // A failure is the owner's own account of the attempt that already ended: it changes nothing.
  call.lease_lost_attempt = 0;
  call.lease_lost_seq = 0;
}

}  // namespace safetune::model::detail
