// Tuning attempts: their begin (R2 exclusive, R3 single), their benches and outcome (R4
// integrity), the publication of a winner, and the marking of waiters of a failed attempt (R8).
#include <algorithm>
#include <utility>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

// Lists of configs in messages show at most this many.
constexpr std::size_t kShownConfigs = 8;

void begin_attempt(Step& step, OpenCall& call) {
  const Event& e = step.event;
  KeyState& ks = step.state.keys[call.key];
  const bool overlaps = !ks.in_flight.empty();
  const bool repeats = ks.succeeded_since_invalidate;
  if (overlaps) {
    const Attempt& other = ks.in_flight.back();
    report(step, Rule::R2, {other.id, e.seq},
           thread_text(e.thread) + " began an attempt on " + call.key.show() + " at " +
               seq_text(e.seq) + " while " + thread_text(other.owner) + "'s attempt (" +
               seq_text(other.id) + ") was in flight");
  }
  if (repeats)
    report(step, Rule::R3, {ks.last_success_seq, e.seq},
           thread_text(e.thread) + " began a new attempt on " + call.key.show() + " at " +
               seq_text(e.seq) + " although an attempt succeeded at " +
               seq_text(ks.last_success_seq) + " with no invalidate since");
  ++step.state.stats.attempts;
  if (overlaps || repeats) ++step.state.stats.duplicate_tunings;
  ks.in_flight.push_back(Attempt{.id = e.seq, .owner = e.thread, .owner_call = call.begin_seq});
  call.owned = Ownership::InFlight;
  call.owned_attempt_id = e.seq;
  call.owned_winner.reset();
}

Attempt* attempt_owned_by(State& state, const KeyId& key, const ThreadName& thread) {
  auto& in_flight = state.keys[key].in_flight;
  for (auto it = in_flight.rbegin(); it != in_flight.rend(); ++it)
    if (it->owner == thread) return &*it;
  return nullptr;
}

Attempt take_attempt(State& state, const KeyId& key, std::int64_t id) {
  auto& in_flight = state.keys[key].in_flight;
  auto it = std::find_if(in_flight.begin(), in_flight.end(),
                         [id](const Attempt& a) { return a.id == id; });
  Attempt attempt = std::move(*it);
  in_flight.erase(it);
  return attempt;
}

void record_bench(Step& step, Attempt& attempt) {
  const Event& e = step.event;
  const std::string& config = *e.config;
  const KeyId key = key_of(e);
  auto head = [&] { return "attempt " + std::to_string(attempt.id) + " on " + key.show(); };
  if (attempt.benched.contains(config)) {
    auto earlier = std::find_if(attempt.benches.begin(), attempt.benches.end(),
                                [&](const BenchRecord& b) { return b.config == config; });
    return report(step, Rule::R4, {earlier->seq, e.seq},
                  head() + " benched " + printable(config) + " twice (" + seq_text(earlier->seq) +
                      " and " + seq_text(e.seq) + ")");
  }
  const auto* listed = listed_configs(step.state, key.kernel);
  const bool in_list = listed && listed->contains(config);
  if (listed && !in_list)
    report(step, Rule::R4, {attempt.id, e.seq},
           head() + " benched " + printable(config) + " at " + seq_text(e.seq) +
               ", which is not in the header's config list");
  attempt.benches.push_back(BenchRecord{e.seq, config, e.time_ns});
  attempt.benched.insert(config);
  if (in_list) ++attempt.listed_benched;
}

// The only config of the kernel's space, when the space is known to have one: the header lists
// exactly one, or (no list) the attempt benched only that one. R4's one exception rests on it.
std::optional<std::string> only_config(const State& state, const Attempt& attempt, const KeyId& key) {
  if (const auto* listed = listed_configs(state, key.kernel))
    return listed->size() == 1 ? std::optional<std::string>(*listed->begin()) : std::nullopt;
  if (attempt.benched.size() == 1) return *attempt.benched.begin();
  return std::nullopt;
}

// A listed config space of more than one config must be benched completely by every attempt
// that ends (a one-config space is R4's exception: Triton skips benching it).
void check_complete(Step& step, const Attempt& attempt, const KeyId& key) {
  const auto* listed = listed_configs(step.state, key.kernel);
  if (!listed || listed->size() == 1 || attempt.listed_benched == listed->size()) return;
  const auto& space = step.state.header.configs.at(key.kernel);  // in benchmark order
  std::string missing;
  std::size_t count = 0;
  for (const auto& config : space) {
    if (attempt.benched.contains(config)) continue;
    if (++count <= kShownConfigs) missing += (missing.empty() ? "" : ", ") + printable(config);
  }
  if (count > kShownConfigs) missing += " and " + std::to_string(count - kShownConfigs) + " more";
  report(step, Rule::R4, {attempt.id, step.event.seq},
         "attempt " + std::to_string(attempt.id) + " on " + key.show() + " ended at " +
             seq_text(step.event.seq) + " without benching " + missing);
}

// The winner must be the fastest successful bench (ties: lowest seq, i.e. benched first), except
// in a one-config space, where the attempt may succeed with that config whatever its benches did.
void check_winner(Step& step, const Attempt& attempt, const KeyId& key, const std::string& winner) {
  const std::optional<std::string> only = only_config(step.state, attempt, key);
  if (only == winner) return;
  const BenchRecord* best = nullptr;
  for (const auto& bench : attempt.benches)
    if (bench.time_ns && (!best || *bench.time_ns < *best->time_ns)) best = &bench;
  auto chose = [&] {
    return "attempt " + std::to_string(attempt.id) + " on " + key.show() + " chose " + printable(winner) + " at " +
           seq_text(step.event.seq);
  };
  if (best && best->config != winner)
    return report(step, Rule::R4, {best->seq, step.event.seq},
                  chose() + ", but " + printable(best->config) + " was fastest (" + seq_text(best->seq) + ")");
  if (best) return;
  if (!attempt.benches.empty())
    return report(step, Rule::R4, {attempt.id, step.event.seq},
                  chose() + " although every bench failed");
  if (only)
    return report(step, Rule::R4, {attempt.id, step.event.seq},
                  chose() + " with no successful bench, but the kernel's only config is " + printable(*only));
  if (const auto* listed = listed_configs(step.state, key.kernel))
    report(step, Rule::R4, {attempt.id, step.event.seq},
           chose() + " with no successful bench, but the kernel has " + std::to_string(listed->size()) + " configs");
}

// The winner becomes valid for every call on the key from `published_seq` on.
void publish(Step& step, const KeyId& key, const std::string& winner, std::int64_t published_seq) {
  KeyState& ks = step.state.keys[key];
  publish_winner(ks, winner, step.event.seq, published_seq);
  ks.succeeded_since_invalidate = true;
  ks.last_success_seq = step.event.seq;
  ++step.state.stats.successful_tunings;
}

// Under policy block, the calls that waited on a failed attempt must now end with an error or
// launch a later winner. White-box: a wait of theirs overlapped the attempt. Black-box: they were
// open on the key, on another thread, and had not launched.
void mark_waiters_of_failure(Step& step, const KeyId& key, const Attempt& attempt) {
  if (step.state.header.policy.wait != WaitPolicy::Block) return;
  const bool white_box = step.state.header.white_box;
  for (const std::int64_t seq : step.state.keys[key].open_calls) {
    OpenCall& call = step.state.calls.at(seq);
    if (call.thread == attempt.owner || call.launches > 0) continue;
    // White-box: a call waited on this attempt when one of its waits began while the attempt
    // was in flight (after its tune_begin, whose seq is the attempt id). A wait that began on an
    // earlier attempt and is still open now waited on that one: its winner, published inside
    // the call's window, stays a valid answer.
    const bool waited = call.wait_open_seq.value_or(-1) > attempt.id ||
                        call.last_wait_begin_seq > attempt.id;
    if (white_box && !waited) continue;
    call.waited_on_failure_seq = step.event.seq;
  }
}

OpenCall* owner_call(State& state, const Attempt& attempt) {
  auto it = state.calls.find(attempt.owner_call);
  return it == state.calls.end() ? nullptr : &it->second;
}

// White-box: an owner that launched before its tune_end is judged now.
void judge_early_owner_launch(Step& step, const OpenCall& call, const Attempt& attempt) {
  if (call.launches == 0) return;
  auto head = [&] {
    return thread_text(attempt.owner) + " launched " + printable(*call.launched) + " at " + seq_text(call.launch_seq) +
           " on " + call.key.show();
  };
  if (step.event.config && *step.event.config != *call.launched)
    report(step, Rule::R5, {call.launch_seq, step.event.seq},
           head() + ", but its attempt's winner is " + printable(*step.event.config));
  if (step.event.error)
    report(step, Rule::R8, {call.launch_seq, step.event.seq},
           head() + ", but its attempt failed at " + seq_text(step.event.seq));
}

}  // namespace

void on_tune_begin(Step& step) {
  if (OpenCall* call = require_call(step)) begin_attempt(step, *call);
}

void on_bench(Step& step) {
  const Event& e = step.event;
  ++step.state.stats.benches;
  if (e.error) ++step.state.stats.failed_benches;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (call->reentrant)
    return report(step, Rule::R9, {call->begin_seq, e.seq},
                  thread_text(e.thread) + "'s re-entrant call on " + call->key.show() + " (" +
                      seq_text(call->begin_seq) + ") benched " + printable(*e.config) + " at " +
                      seq_text(e.seq));
  if (!step.state.header.white_box && call->owned != Ownership::InFlight) begin_attempt(step, *call);
  Attempt* attempt = attempt_owned_by(step.state, call->key, e.thread);
  if (!attempt)
    return report(step, Rule::R1, {e.seq},
                  thread_text(e.thread) + " benched " + printable(*e.config) + " on " + call->key.show() +
                      " at " + seq_text(e.seq) + " with no attempt open on its thread");
  record_bench(step, *attempt);
}

void on_tune_end(Step& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  const Attempt* open = attempt_owned_by(step.state, call->key, e.thread);
  if (!open)
    return report(step, Rule::R1, {e.seq},
                  thread_text(e.thread) + " has tune_end on " + call->key.show() + " at " +
                      seq_text(e.seq) + " with no tune_begin open on its thread");
  const KeyId key = call->key;
  check_complete(step, *open, key);
  if (e.config) check_winner(step, *open, key, *e.config);
  Attempt attempt = take_attempt(step.state, key, open->id);
  if (e.config) publish(step, key, *e.config, e.seq);
  else mark_waiters_of_failure(step, key, attempt);
  if (OpenCall* owner = owner_call(step.state, attempt); owner && owner->owned_attempt_id == attempt.id) {
    judge_early_owner_launch(step, *owner, attempt);
    owner->owned = e.config ? Ownership::Succeeded : Ownership::Failed;
    owner->owned_winner = e.config;
  }
}

void black_box_attempt_succeeds(Step& step, OpenCall& call, const std::string& winner) {
  const Attempt* open = attempt_owned_by(step.state, call.key, step.event.thread);
  if (!open) return;
  check_complete(step, *open, call.key);
  check_winner(step, *open, call.key, winner);
  Attempt attempt = take_attempt(step.state, call.key, open->id);
  const std::int64_t last_bench = attempt.benches.back().seq;
  publish(step, call.key, winner, last_bench);
  settle_pending(step, call.key, attempt.id, winner, last_bench);
  call.owned = Ownership::Succeeded;
  call.owned_winner = winner;
}

void black_box_attempt_fails(Step& step, OpenCall& call) {
  const Attempt* open = attempt_owned_by(step.state, call.key, step.event.thread);
  if (!open) return;
  check_complete(step, *open, call.key);
  Attempt attempt = take_attempt(step.state, call.key, open->id);
  mark_waiters_of_failure(step, call.key, attempt);
  settle_pending(step, call.key, attempt.id, std::nullopt, std::nullopt);
  call.owned = Ownership::Failed;
}

void abandon_attempt(State& state, const OpenCall& call) {
  auto& in_flight = state.keys[call.key].in_flight;
  std::erase_if(in_flight, [&](const Attempt& a) {
    return a.owner == call.thread && a.id == call.owned_attempt_id;
  });
}

}  // namespace safetune::model::detail
