// Leases in the model: a `lease_lost` event and the overlaps it excuses (docs/rules.md, "Across
// processes").
//
// With a store that grants an attempt by lease (Redis: DESIGN.md, "Across processes"), an owner
// that stops renewing it (paused, slow, cut off from the server) is taken over by another process
// once the lease expires, and learns of it only when it next talks to the store. It then records
// `lease_lost`: its attempt is over (neither a success nor a failure, like an attempt abandoned by
// an exit) and it must not publish (R12). Its call goes on: it may wait for, or load, the winner of
// whoever took over, or begin a new attempt.
//
// So the takeover's tune_begin comes before the lease_lost in the trace, while the old attempt is
// still in flight there. A tune_begin of another process over an attempt in flight is therefore R2
// only once that attempt ends otherwise than by losing its lease: with a tune_end (it still held
// the key), with its process's exit, or still in flight when the trace ends. Within one process
// there is no lease, and R2 is judged at once (begin_attempt).
#include "model_internal.h"

namespace safetune::model::detail {

namespace {

void report_overlap(Choice& choice, const Overlap& overlap, std::vector<std::int64_t> seqs, const std::string& why) {
  report_with_state(choice.found, Rule::R2, std::move(seqs), overlap.message + ", and " + why, overlap.state_before);
  ++choice.violation_count;
  if (!overlap.counted) ++choice.duplicate_tunings;
}

}  // namespace

bool may_yet_lose_its_lease(const State& state, const Attempt& in_flight, const ThreadName& newcomer) {
  return state.header.white_box && in_flight.owner.process && newcomer.process &&
         *in_flight.owner.process != *newcomer.process;
}

void judge_overlaps(StepContext& step, const Attempt& ended, std::string_view how) {
  for (const Overlap& overlap : ended.overlapped_by)
    report_overlap(*step.choice, overlap, {ended.id, overlap.begin_seq, step.event.seq},
                   "that attempt " + std::string(how) + " at " + seq_text(step.event.seq) + " without losing its lease");
}

void judge_overlaps_at_end(Choice& choice) {
  for (const Attempt& attempt : choice.in_flight)
    for (const Overlap& overlap : attempt.overlapped_by)
      report_overlap(choice, overlap, {attempt.id, overlap.begin_seq},
                     "that attempt was still in flight, its lease never lost, at the end of the trace");
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
    CallView& view = in.choice->views[attempt->owner_call];
    view.owned = Ownership::None;  // it owns nothing now: its launch is judged as any call's
    view.owned_attempt_id = 0;
    view.owned_winner.reset();
    const std::int64_t id = attempt->id;
    std::erase_if(in.choice->in_flight, [&](const Attempt& a) { return a.id == id; });  // its overlaps excused
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
