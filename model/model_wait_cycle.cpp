// R11 no wait cycle (white-box): the waits form a graph, thread -> the attempt it waits on ->
// that attempt's owner; no wait may close a cycle in it, and a call that would close one gets the
// re-entry policy's answer, judged as R9 judges a re-entrant call.
//
// White-box: a waiting thread waits in its innermost call (it is blocked there), on the attempt
// that was in flight on that call's key when its wait_begin came, or, when none was, on the first
// to begin there after it (adopt_waits; OpenCall::waits_on_attempt). Across processes, where a
// lease may have run out unseen, several attempts may be in flight on a key at once:
//   - a thread waits on its own process's attempt, when one is in flight (it waits for its
//     process's owner in memory), else on the latest;
//   - a wait on another process's attempt that a third process's attempt began over (a takeover:
//     the lease of the one waited on ran out) waits for the takeover, as the waiter keeps trying
//     for the key's claim, which the takeover now holds: the walk follows the latest.
// So a refusal of a cycle through a takeover is no R14; whether a wait closing such a cycle is
// R11 is decided once the attempts on it end (model_lease_cycles.cpp).
// The edge lasts while that attempt is in flight: its tune_end releases the waiter, even before
// the waiter's wait_end is recorded. So the walk from an attempt's owner reads one map entry per
// thread.
//
// Black-box traces show no waits and no attempt's begin, so the graph is read from what they do
// show: only an owner's hook or benchmark calls out, so an open call that has not launched owns
// its key's attempt when it holds an inner call or has benched; and a thread whose innermost call
// has neither launched nor benched may be waiting in it. A launch of the fallback (policy
// fallback) by a call that such a graph puts on a cycle is the cycle's answer, not an early use:
// had that call waited, every thread of the cycle would have waited for ever.
#include <set>
#include <vector>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

// A cycle names its edges, but a report stays short however many threads it runs through.
constexpr std::size_t kShownEdges = 8;

// White-box keys have one choice: its attempts in flight (more than one only when R2 is broken).
const std::vector<Attempt>* in_flight(const State& state, const KeyId& key) {
  auto it = state.keys.find(key);
  return it == state.keys.end() ? nullptr : &it->second.choices.front().in_flight;
}

// The attempt that a wait of `waiter` on `key` begun now waits on, or null.
const Attempt* attempt_for_new_wait(const State& state, const ThreadName& waiter, const KeyId& key) {
  const std::vector<Attempt>* attempts = in_flight(state, key);
  if (attempts == nullptr || attempts->empty()) return nullptr;
  if (waiter.process)
    for (auto it = attempts->rbegin(); it != attempts->rend(); ++it)
      if (it->owner.process == waiter.process) return &*it;
  return &attempts->back();
}

// What `waiter`'s wait on `waited` (in flight on `key`) waits for now: the takeover of it, if one
// began in a third process.
const Attempt& waited_now(const State& state, const ThreadName& waiter, const KeyId& key, const Attempt& waited) {
  if (!waiter.process || waited.owner.process == waiter.process) return waited;
  const Attempt& latest = in_flight(state, key)->back();
  return latest.owner.process != waited.owner.process ? latest : waited;
}

// The attempt with this id, while it is in flight on `key`; null once it ended (or for id 0).
const Attempt* attempt_in_flight(const State& state, const KeyId& key, std::int64_t id) {
  const std::vector<Attempt>* attempts = in_flight(state, key);
  if (attempts == nullptr || id == 0) return nullptr;
  for (const Attempt& attempt : *attempts)
    if (attempt.id == id) return &attempt;
  return nullptr;
}

std::string edge_text(const ThreadName& waiter, const KeyId& key, const Attempt& attempt) {
  return thread_text(waiter) + " waits on " + key.show() + " (attempt " + seq_text(attempt.id) + ", owner " +
         thread_text(attempt.owner) + ")";
}

std::string joined(const std::vector<std::string>& edges);

// Black-box: whether `call` visibly owns its key's attempt (see the top of the file).
bool visibly_owns(const State& state, const OpenCall& call) {
  if (call.launches > 0) return false;
  return call.first_bench.has_value() || state.threads.at(call.thread).back() != call.begin_seq;
}

// Black-box: a path of possible waits from `thread`, which owns an attempt on some key, back to
// `closing`; appended to `edges`. Depth-first over the owners of each key, each thread once.
bool reaches(const State& state, const ThreadName& thread, const ThreadName& closing, std::set<ThreadName>& seen,
             std::vector<std::string>& edges) {
  if (thread == closing) return true;
  if (!seen.insert(thread).second) return false;
  const OpenCall& innermost = state.calls.at(state.threads.at(thread).back());
  if (innermost.launches > 0 || innermost.first_bench) return false;  // running, not waiting
  for (const std::int64_t seq : state.keys.at(innermost.key).open_calls) {
    const OpenCall& owner = state.calls.at(seq);
    if (owner.thread == thread || !visibly_owns(state, owner)) continue;
    edges.push_back(thread_text(thread) + " may wait on " + innermost.key.show() + " (owner " +
                    thread_text(owner.thread) + ")");
    if (reaches(state, owner.thread, closing, seen, edges)) return true;
    edges.pop_back();
  }
  return false;
}

std::optional<std::string> black_box_cycle(const State& state, const ThreadName& thread, const KeyId& key) {
  std::set<ThreadName> seen;
  for (const std::int64_t seq : state.keys.at(key).open_calls) {
    const OpenCall& owner = state.calls.at(seq);
    if (owner.thread == thread || !visibly_owns(state, owner)) continue;
    std::vector<std::string> edges{thread_text(thread) + " would wait on " + key.show() + " (owner " +
                                   thread_text(owner.thread) + ")"};
    if (reaches(state, owner.thread, thread, seen, edges)) return joined(edges);
  }
  return std::nullopt;
}

std::string joined(const std::vector<std::string>& edges) {
  std::string text;
  for (std::size_t i = 0; i < edges.size() && i < kShownEdges; ++i) text += (i == 0 ? "" : ", ") + edges[i];
  if (edges.size() > kShownEdges) text += ", ... (" + std::to_string(edges.size() - kShownEdges) + " more)";
  return text;
}

std::optional<WaitCycle> white_box_wait_cycle(const State& state, const ThreadName& thread, const KeyId& key) {
  const Attempt* attempt = attempt_for_new_wait(state, thread, key);
  if (attempt == nullptr || attempt->owner == thread) return std::nullopt;  // no wait, or R9's
  std::vector<std::string> edges{edge_text(thread, key, *attempt)};
  WaitCycle cycle{.steps = {{.attempt = {.key = key, .id = attempt->id}, .owner = attempt->owner}}};
  // Each step moves to another waiting thread; more steps than threads would be a cycle that
  // does not pass through `thread` (an R11 already reported), which this wait does not close.
  for (std::size_t step = 0; step <= state.threads.size(); ++step) {
    const ThreadName owner = attempt->owner;
    if (owner == thread) {
      cycle.text = joined(edges);
      return cycle;
    }
    auto it = state.threads.find(owner);
    if (it == state.threads.end()) return std::nullopt;
    const OpenCall& innermost = state.calls.at(it->second.back());
    if (!innermost.wait_open_seq) return std::nullopt;
    attempt = attempt_in_flight(state, innermost.key, innermost.waits_on_attempt);
    if (attempt == nullptr) return std::nullopt;  // that attempt ended: its waiter is released
    attempt = &waited_now(state, owner, innermost.key, *attempt);
    edges.push_back(edge_text(owner, innermost.key, *attempt));
    cycle.steps.push_back({.attempt = {.key = innermost.key, .id = attempt->id}, .owner = attempt->owner});
  }
  return std::nullopt;
}

}  // namespace

std::int64_t attempt_to_wait_on(const State& state, const ThreadName& waiter, const KeyId& key) {
  const Attempt* attempt = attempt_for_new_wait(state, waiter, key);
  return attempt != nullptr ? attempt->id : 0;
}

// A wait that began with no attempt in flight on its key waits for one to begin: an owner reports
// its tune_begin only after its store steps (its claim), and its process's threads wait on it
// meanwhile, as mark_waiters_of_failure reads them too. So the first attempt to begin there is
// the one it waits on; a wait that already waited on one was released when that one ended.
void adopt_waits(State& state, const KeyId& key, std::int64_t id, const ThreadName& owner) {
  if (!state.header.white_box) return;
  for (const std::int64_t seq : state.keys.at(key).open_calls) {
    OpenCall& call = state.calls.at(seq);
    if (call.wait_open_seq && call.waits_on_attempt == 0 && call.thread != owner) call.waits_on_attempt = id;
  }
}

std::optional<WaitCycle> cycle_of_wait(const State& state, const ThreadName& thread, const KeyId& key) {
  if (state.header.white_box) return white_box_wait_cycle(state, thread, key);
  std::optional<std::string> text = black_box_cycle(state, thread, key);
  if (!text) return std::nullopt;
  return WaitCycle{.text = std::move(*text)};
}

std::optional<std::string> wait_cycle(const State& state, const ThreadName& thread, const KeyId& key) {
  std::optional<WaitCycle> cycle = cycle_of_wait(state, thread, key);
  if (!cycle) return std::nullopt;
  return std::move(cycle->text);
}

// A call may have waited before, and been released with no result (its owner in its process
// was still after the store's claim): it may close a cycle as it waits anew. Or the cycle may be
// gone by its answer's record: see remember_cycles.
std::optional<std::string> cycle_closed_by(const State& state, const OpenCall& call) {
  if (call.wait_open_seq) return std::nullopt;
  if (auto now = wait_cycle(state, call.thread, call.key)) return now;
  return call.cycle_seen;
}

// A call finds a cycle, and refuses to wait, at a moment that no event records: between its
// thread's latest event and its answer (an error, or the fallback). Meanwhile another thread of
// the cycle may record an end to its wait or attempt (its owner moved on, and it waits anew at
// once), and the cycle is gone by the answer's record. So before each event that ends a wait or an
// attempt, each call that is not waiting and has not launched keeps the cycle its wait would close
// then; its next own event forgets it (model.cpp, advance).
void remember_cycles(State& state, const Event& event) {
  const bool ends_an_edge = event.kind == EventKind::WaitEnd || event.kind == EventKind::TuneEnd ||
                            event.kind == EventKind::Exit || event.kind == EventKind::LeaseLost;
  if (!state.header.white_box || !ends_an_edge) return;
  for (const auto& [thread, calls] : state.threads) {
    OpenCall& call = state.calls.at(calls.back());
    if (call.wait_open_seq || call.launches > 0 || call.cycle_seen) continue;
    call.cycle_seen = wait_cycle(state, thread, call.key);
  }
}

bool judge_cycle_closing_launch(StepContext& step, const OpenCall& call, const std::string& cycle) {
  const Event& e = step.event;
  auto fallback = step.state.header.policy.fallback_for(call.key.kernel);
  const bool fallback_answer = step.state.header.policy.reentry == ReentryPolicy::Fallback && fallback == e.config;
  if (!step.state.header.white_box) return fallback_answer;  // else judged as any launch
  const std::string head = thread_text(thread_of(e)) + "'s call on " + call.key.show() + " (" + seq_text(call.begin_seq) +
                           ") launched " + printable(*e.config) + " at " + seq_text(e.seq) +
                           " instead of waiting, as a wait would have closed a cycle (" + cycle + "); ";
  if (step.state.header.policy.reentry == ReentryPolicy::Error)
    report_in_choice(step, Rule::R11, {call.begin_seq, e.seq},
                     head + "re-entry policy error demands an error and no launch");
  else if (!fallback_answer)
    report_in_choice(step, Rule::R11, {call.begin_seq, e.seq},
                     head + "re-entry policy fallback demands the fallback " +
                         (fallback ? printable(*fallback) : std::string("(none)")));
  return true;
}

void judge_cycle_closing_error(StepContext& step, const OpenCall& call) {
  const Event& e = step.event;
  if (!step.state.header.white_box || step.state.header.policy.reentry != ReentryPolicy::Fallback || call.launches > 0 || !e.error) return;
  const std::optional<std::string> cycle = cycle_closed_by(step.state, call);
  if (!cycle) return;
  report_in_choice(step, Rule::R11, {call.begin_seq, e.seq},
                   thread_text(thread_of(e)) + "'s call on " + call.key.show() + " (" + seq_text(call.begin_seq) +
                       ") raised \"" + printable(*e.error) + "\" at " + seq_text(e.seq) +
                       " where a wait would have closed a cycle (" + *cycle +
                       "); re-entry policy fallback demands the fallback");
}

}  // namespace safetune::model::detail
