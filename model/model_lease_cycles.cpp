// R11 across processes: a cycle of waits through an attempt whose lease ran out (docs/rules.md,
// "Across processes").
//
// An owner paused past its lease (SIGSTOP, a long GC) is taken for dead: its lease runs out, the
// store drops it from the graph of waits, and a waiter on its key takes the key over at its next
// poll. It learns of this only when it next talks to the store, and records `lease_lost` then,
// possibly long after. Until then the trace still shows its attempt in flight, and its thread
// waiting where it waited before the pause. A wait_begin whose cycle runs through that attempt
// closes no cycle: the waiter waits for whoever takes the key over, not for the stale owner.
//
// So a wait_begin that closes a cycle through an attempt waited on from another process (on any
// edge: the stale one may be the closing waiter's own attempt, its process paused and continued) is
// R11 only once each such attempt has ended holding its lease (a tune_end), or is still in flight
// at the end of the trace. A `lease_lost` of any of them, or an exit of its process (an owner
// killed after its lease ran out never learned so), excuses the cycle. A cycle within one process
// has no lease on it, and neither has any cycle under `"live_owners": true` (no owner was paused, so
// every owner kept its lease): R11 at once.
//
// A deadlock that really holds is still caught: its owners stay live and renew their leases, so
// none loses one, and R11 is reported when they end, or at the end of the trace (with R7 for its
// hung calls).
#include <algorithm>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

// The attempts on `cycle` waited on from another process: a lease stands between each of them and
// its waiter. Either end of such an edge may be the stale one: the owner paused past its lease, or
// the waiter's own process (its attempts then stale, and the edges into them too).
std::vector<AttemptOnKey> attempts_waited_on_across_processes(const State& state, const ThreadName& closing,
                                                              const WaitCycle& cycle) {
  std::vector<AttemptOnKey> others;
  if (state.header.live_owners) return others;
  const ThreadName* waiter = &closing;
  for (const CycleStep& step : cycle.steps) {
    if (may_hold_a_lease(state, step.owner) && waiter->process && *step.owner.process != *waiter->process)
      others.push_back(step.attempt);
    waiter = &step.owner;
  }
  return others;
}

void report_cycle(std::vector<Violation>& found, const DeferredCycle& cycle, std::vector<std::int64_t> seqs,
                  const std::string& why) {
  report_with_state(found, Rule::R11, std::move(seqs), cycle.message + ", and " + why, cycle.state_before);
}

}  // namespace

void judge_wait_closing_cycle(StepContext& step, const OpenCall& call, const WaitCycle& cycle) {
  const Event& e = step.event;
  std::string message = thread_text(thread_of(e)) + "'s call on " + call.key.show() + " (seq " +
                        std::to_string(call.begin_seq) + ") waited at seq " + std::to_string(e.seq) +
                        ", closing a cycle of waits: " + cycle.text;
  std::vector<AttemptOnKey> across = attempts_waited_on_across_processes(step.state, thread_of(e), cycle);
  if (across.empty()) return report_in_choice(step, Rule::R11, {call.begin_seq, e.seq}, message);
  step.state.deferred_cycles.push_back(
      DeferredCycle{.seqs = {call.begin_seq, e.seq},
                    .message = std::move(message),
                    .state_before = describe(step.state, key_of(e), thread_of(e), step.choice),
                    .undecided = std::move(across)});
}

void settle_cycles_through(StepContext& step, const KeyId& key, std::int64_t id, LeaseAtEnd lease) {
  const AttemptOnKey ended{.key = key, .id = id};
  const std::int64_t seq = step.event.seq;
  std::erase_if(step.state.deferred_cycles, [&](DeferredCycle& cycle) {
    auto it = std::find(cycle.undecided.begin(), cycle.undecided.end(), ended);
    if (it == cycle.undecided.end()) return false;
    if (lease == LeaseAtEnd::Lost) return true;  // stale: the wait waited for a takeover
    cycle.undecided.erase(it);
    if (!cycle.undecided.empty()) return false;
    std::vector<std::int64_t> seqs = cycle.seqs;
    seqs.push_back(seq);
    report_cycle(step.found, cycle, std::move(seqs),
                 "each attempt waited on from another process on that cycle ended holding its lease, the last (" +
                     seq_text(id) + " on " + key.show() + ") at " + seq_text(seq));
    return true;
  });
}

void judge_deferred_cycles_at_end(State& state, std::vector<Violation>& found) {
  for (const DeferredCycle& cycle : state.deferred_cycles) {
    const AttemptOnKey& open = cycle.undecided.front();
    report_cycle(found, cycle, cycle.seqs,
                 "an attempt waited on from another process on that cycle (" + seq_text(open.id) + " on " +
                     open.key.show() + ") was still in flight, its lease never lost, at the end of the trace");
  }
  state.deferred_cycles.clear();
}

}  // namespace safetune::model::detail
