// Tuning attempts: their begin (R2 exclusive, R3 single), their benches and outcome (R4
// integrity), the publication of a winner, and the marking of waiters of a failed attempt (R8).
// What an attempt benched is the same in every choice (State::benches); when it began and ended
// is the choice's (Choice::in_flight).
#include <algorithm>
#include <utility>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

// Lists of configs in messages show at most this many.
constexpr std::size_t kShownConfigs = 8;

// R4 on one more bench of an attempt, in the choice being advanced (an attempt may exist in some
// choices only: a black-box call is re-entrant in some).
void check_bench(StepContext& step, std::int64_t attempt_id) {
  const Event& e = step.event;
  const std::string& config = *e.config;
  const KeyId key = key_of(e);
  const AttemptBenches& attempt = step.state.benches[attempt_id];
  auto head = [&] { return "attempt " + std::to_string(attempt_id) + " on " + key.show(); };
  if (attempt.benched.contains(config)) {
    auto earlier = std::find_if(attempt.benches.begin(), attempt.benches.end(),
                                [&](const BenchRecord& b) { return b.config == config; });
    return report_in_choice(step, Rule::R4, {earlier->seq, e.seq},
                            head() + " benched " + printable(config) + " twice (" + seq_text(earlier->seq) + " and " +
                                seq_text(e.seq) + ")");
  }
  const auto* listed = listed_configs(step.state, key.kernel);
  if (listed && !listed->contains(config))
    report_in_choice(step, Rule::R4, {attempt_id, e.seq},
                     head() + " benched " + printable(config) + " at " + seq_text(e.seq) +
                         ", which is not in the header's config list");
}

// The bench, in what the attempt benched (once, whatever the choice). A repeated config is R4's
// and is not recorded again.
void record_bench(State& state, const Event& e, std::int64_t attempt_id) {
  AttemptBenches& attempt = state.benches[attempt_id];
  const std::string& config = *e.config;
  if (attempt.benched.contains(config)) return;
  const auto* listed = listed_configs(state, e.kernel);
  const bool in_list = listed && listed->contains(config);
  attempt.benches.push_back(BenchRecord{e.seq, config, e.time_ns});
  attempt.benched.insert(config);
  if (in_list) ++attempt.listed_benched;
}

// The only config of the kernel's space, when the space is known to have one: the header lists
// exactly one, or (no list) the attempt benched only that one. R4's one exception rests on it.
std::optional<std::string> only_config(const State& state, const AttemptBenches& attempt, const KeyId& key) {
  if (const auto* listed = listed_configs(state, key.kernel))
    return listed->size() == 1 ? std::optional<std::string>(*listed->begin()) : std::nullopt;
  if (attempt.benched.size() == 1) return *attempt.benched.begin();
  return std::nullopt;
}

// A listed config space of more than one config must be benched completely by every attempt
// that ends (a one-config space is R4's exception: Triton skips benching it).
void check_complete(StepContext& step, std::int64_t id, const AttemptBenches& attempt, const KeyId& key) {
  const auto* listed = listed_configs(step.state, key.kernel);
  if (!listed || listed->size() == 1 || attempt.listed_benched == listed->size()) return;
  std::string missing;
  std::size_t count = 0;
  for (const auto& config : step.state.header.configs.at(key.kernel)) {  // in benchmark order
    if (attempt.benched.contains(config)) continue;
    if (++count <= kShownConfigs) missing += (missing.empty() ? "" : ", ") + printable(config);
  }
  if (count > kShownConfigs) missing += " and " + std::to_string(count - kShownConfigs) + " more";
  report_in_choice(step, Rule::R4, {id, step.event.seq},
                   "attempt " + std::to_string(id) + " on " + key.show() + " ended at " + seq_text(step.event.seq) +
                       " without benching " + missing);
}

// The winner must be the fastest successful bench (ties: lowest seq, i.e. benched first), except
// in a one-config space, where the attempt may succeed with that config whatever its benches did.
void check_winner(StepContext& step, std::int64_t id, const AttemptBenches& attempt, const KeyId& key,
                  const std::string& winner) {
  const std::optional<std::string> only = only_config(step.state, attempt, key);
  if (only == winner) return;
  const BenchRecord* best = nullptr;
  for (const auto& bench : attempt.benches)
    if (bench.time_ns && (!best || *bench.time_ns < *best->time_ns)) best = &bench;
  auto chose = [&] {
    return "attempt " + std::to_string(id) + " on " + key.show() + " chose " + printable(winner) + " at " +
           seq_text(step.event.seq);
  };
  if (best && best->config != winner)
    return report_in_choice(step, Rule::R4, {best->seq, step.event.seq},
                  chose() + ", but " + printable(best->config) + " was fastest (" + seq_text(best->seq) + ")");
  if (best) return;
  if (!attempt.benches.empty())
    return report_in_choice(step, Rule::R4, {id, step.event.seq}, chose() + " although every bench failed");
  if (only)
    return report_in_choice(step, Rule::R4, {id, step.event.seq},
                  chose() + " with no successful bench, but the kernel's only config is " + printable(*only));
  // No bench at all in a listed space of several configs: check_complete() has reported, on this
  // same event, the configs it did not bench. With no list, nothing says that the space has more
  // configs than the winner (R4's one-config exception).
}

// Whether the call's last closed wait began while the attempt was in flight and may have ended on
// it. Across processes, not if its process held a winner at some moment since that wait began: the
// wait may have ended on that winner, however late its wait_end is recorded (a waiter's wait_end
// and the owner's failing tune_end race in the trace).
bool closed_wait_on(const Choice& choice, const OpenCall& call, const Attempt& attempt) {
  if (call.last_wait_begin_seq <= attempt.id) return false;
  if (call.thread.process == attempt.owner.process) return true;
  return !held_by_process_since(choice, call, call.last_wait_begin_seq);
}

// The calls that waited on a failed attempt may now end with an error (R14); under policy block
// they must end with one or launch a later winner (R8). White-box: a wait of theirs overlapped the
// attempt. Black-box (policy block only: under fallback nobody waits): they were open on the key,
// on another thread, and had not launched.
void mark_waiters_of_failure(StepContext& step, const Attempt& attempt) {
  const bool block = step.state.header.policy.wait == WaitPolicy::Block;
  const bool white_box = step.state.header.white_box;
  if (!block && !white_box) return;
  for (const std::int64_t seq : key_choices(step).open_calls) {
    const OpenCall& call = step.state.calls.at(seq);
    if (call.thread == attempt.owner || call.launches > 0) continue;
    // White-box: a call waited on this attempt when one of its waits began while the attempt
    // was in flight (after its tune_begin, whose seq is the attempt id), or when its wait is
    // still open and began after the key's last success: it waited for this attempt to begin (an
    // owner's tune_begin comes after its store steps, and its process's waiters wait meanwhile).
    // A wait open since before a success waited on that success: its winner, published inside
    // the call's window, stays a valid answer. Across processes, a wait during which its process
    // held a winner (its owner loaded one, before the wait began or after) may have ended on that,
    // however late its wait_end is recorded: an attempt that fails is none it waited on, unless
    // the wait began in the attempt's own process after the attempt began (it then waited on it).
    const std::int64_t open_since = call.wait_open_seq.value_or(-1);
    const bool waits_in_its_process = call.thread.process == attempt.owner.process && open_since > attempt.id;
    const bool open_wait_counts = waits_in_its_process || !held_during_wait(*step.choice, call);
    const bool open_wait_on_it = open_since > attempt.id || open_since > step.choice->last_success_seq;
    const bool waited = (open_wait_counts && open_wait_on_it) || closed_wait_on(*step.choice, call, attempt);
    if (white_box && !waited) continue;
    CallView& view = step.choice->views[seq];
    view.saw_failure = true;
    if (block) view.waited_on_failure_seq = step.event.seq;
  }
}

// White-box: an owner that launched before its tune_end is judged now.
void judge_early_owner_launch(StepContext& step, const OpenCall& call, const Attempt& attempt) {
  if (call.launches == 0) return;
  auto head = [&] {
    return thread_text(attempt.owner) + " launched " + printable(*call.launched) + " at " + seq_text(call.launch_seq) +
           " on " + call.key.show();
  };
  if (step.event.config && *step.event.config != *call.launched)
    report_in_choice(step, Rule::R5, {call.launch_seq, step.event.seq},
                     head() + ", but its attempt's winner is " + printable(*step.event.config));
  if (step.event.error)
    report_in_choice(step, Rule::R8, {call.launch_seq, step.event.seq},
                     head() + ", but its attempt failed at " + seq_text(step.event.seq));
}

}  // namespace

Attempt* attempt_of_thread(Choice& choice, const ThreadName& thread) {
  for (auto it = choice.in_flight.rbegin(); it != choice.in_flight.rend(); ++it)
    if (it->owner == thread) return &*it;
  return nullptr;
}

Attempt* attempt_owned_by(Choice& choice, std::int64_t owner_call) {
  for (Attempt& attempt : choice.in_flight)
    if (attempt.owner_call == owner_call) return &attempt;
  return nullptr;
}

void begin_attempt(StepContext& step, const OpenCall& call, std::int64_t id) {
  const Event& e = step.event;
  Choice& choice = *step.choice;
  const bool overlaps = !choice.in_flight.empty();
  const bool repeats = choice.succeeded_since_invalidate;
  auto when = [&] { return id != 0 ? "at " + seq_text(e.seq) : "before " + seq_text(e.seq); };
  // Across processes, each attempt in flight may yet lose its lease, and the overlap with each is
  // judged when both have ended (model_lease.cpp): it is recorded against every one, so that one
  // stale attempt's lease_lost excuses only its own. One in flight with no lease between (the
  // same process) is R2 at once.
  const bool overlap_deferred =
      overlaps && std::all_of(choice.in_flight.begin(), choice.in_flight.end(),
                              [&](const Attempt& other) { return may_yet_lose_its_lease(step.state, other, call.thread); });
  const bool repeat_deferred = repeats && may_have_claimed_before_the_success(step.state, choice, call);
  const std::string state_before =
      overlap_deferred || repeat_deferred ? describe(step.state, call.key, call.thread, &choice) : "";
  const auto overlap_message = [&](const Attempt& other) {
    return thread_text(call.thread) + " began an attempt on " + call.key.show() + " " + when() + " while " +
           thread_text(other.owner) + "'s attempt (" + seq_text(other.id) + ") was in flight";
  };
  if (overlap_deferred) {
    for (Attempt& other : choice.in_flight)
      other.overlapped_by.push_back(Overlap{.begin_seq = e.seq,
                                            .earlier_id = other.id,
                                            .message = overlap_message(other),
                                            .state_before = state_before});
  } else if (overlaps) {
    const Attempt& other = *std::find_if(choice.in_flight.rbegin(), choice.in_flight.rend(), [&](const Attempt& attempt) {
      return !may_yet_lose_its_lease(step.state, attempt, call.thread);
    });
    report_in_choice(step, Rule::R2, {other.id != 0 ? other.id : other.owner_call, e.seq}, overlap_message(other));
  }
  std::optional<LateRepeat> late_repeat;
  if (repeats) {
    const std::string message = thread_text(call.thread) + " began a new attempt on " + call.key.show() + " " + when() +
                                " although an attempt succeeded at " + seq_text(choice.last_success_seq) +
                                " with no invalidate since" + choice.r3_note;
    if (repeat_deferred)
      late_repeat = LateRepeat{.success_seq = choice.last_success_seq,
                               .message = message,
                               .state_before = state_before};
    else
      report_in_choice(step, Rule::R3, {choice.last_success_seq, e.seq}, message);
  }
  if ((overlaps && !overlap_deferred) || (repeats && !repeat_deferred)) count_duplicate(choice, e.seq);
  choice.in_flight.push_back(
      Attempt{.id = id, .owner = call.thread, .owner_call = call.begin_seq, .late_repeat = std::move(late_repeat)});
  CallView& view = choice.views[call.begin_seq];
  view.owned = Ownership::InFlight;
  view.owned_attempt_id = id;
  view.owned_winner.reset();
}

void end_attempt(StepContext& step, const OpenCall& call, const std::optional<std::string>& winner,
                 std::int64_t published_seq) {
  Choice& choice = *step.choice;
  auto it = std::find_if(choice.in_flight.begin(), choice.in_flight.end(),
                         [&](const Attempt& a) { return a.owner_call == call.begin_seq; });
  Attempt attempt = std::move(*it);
  choice.in_flight.erase(it);
  judge_deferred(step, attempt);
  settle_cycles_through(step, call.key, attempt.id, LeaseAtEnd::Kept);
  CallView& view = choice.views[call.begin_seq];
  view.owned = winner ? Ownership::Succeeded : Ownership::Failed;
  view.owned_winner = winner;
  if (!winner) return mark_waiters_of_failure(step, attempt);
  if (choice.loaded && *choice.loaded != *winner && !undecided_owner(*winner))
    report_in_choice(step, Rule::R12, {choice.loaded_seq, step.event.seq},
                     thread_text(attempt.owner) + "'s attempt on " + call.key.show() + " ended at " + seq_text(step.event.seq) +
                         " with the winner " + printable(*winner) + ", but a load at " + seq_text(choice.loaded_seq) +
                         " since the last invalidate returned " + printable(*choice.loaded) + " as the key's published winner");
  publish_winner(choice, *winner, step.event.seq, published_seq);
  hold_winner(choice, attempt.owner.process, *winner, step.event.seq, HeldBy::Attempt);
  choice.succeeded_since_invalidate = true;
  if (attempt.owner.process) choice.tuned_in.insert(*attempt.owner.process);
  choice.last_success_seq = published_seq;
  choice.r3_note.clear();
}

void judge_benches(StepContext& step, std::int64_t attempt_id, const KeyId& key,
                   const std::optional<std::string>& winner) {
  const AttemptBenches& attempt = step.state.benches[attempt_id];
  check_complete(step, attempt_id, attempt, key);
  if (winner) check_winner(step, attempt_id, attempt, key, *winner);
}

void on_tune_begin(StepContext& step) {
  OpenCall* call = require_call(step);
  if (!call) return;
  ++step.state.stats.attempts;
  call->lease_lost_attempt = 0;  // a tune_end from now on is the new attempt's
  call->lease_lost_seq = 0;
  step.state.benches.emplace(step.event.seq, AttemptBenches{});
  for_each_choice(step, [call](StepContext& in) { begin_attempt(in, *call, in.event.seq); });
  adopt_waits(step.state, call->key, step.event.seq, call->thread);
}

void on_bench(StepContext& step) {
  const Event& e = step.event;
  ++step.state.stats.benches;
  if (e.error) ++step.state.stats.failed_benches;
  OpenCall* call = require_call(step);
  if (!call) return;
  const bool white_box = step.state.header.white_box;
  // Black-box: the first bench names the attempt, unless the call is re-entrant in every choice
  // (then it is R9's, and no attempt at all).
  const std::optional<std::int64_t> id =
      white_box ? std::optional<std::int64_t>() : std::optional<std::int64_t>(call->first_bench.value_or(e.seq));
  bool recorded = false;
  std::int64_t bench_of = 0;
  for_each_choice(step, [&](StepContext& in) {
    const CallView& view = view_of(in, *call);
    if (view.reentrant)
      return report_in_choice(in, Rule::R9, {call->begin_seq, e.seq},
                              thread_text(thread_of(e)) + "'s re-entrant call on " + call->key.show() + " (" +
                                  seq_text(call->begin_seq) + ") benched " + printable(*e.config) + " at " +
                                  seq_text(e.seq));
    if (!white_box) {
      const bool ended = std::any_of(in.choice->chosen_ends.begin(), in.choice->chosen_ends.end(),
                                     [&](const ChosenEnd& end) { return end.owner_call == call->begin_seq; });
      if (ended) {  // an end was placed after an earlier bench: that was not the last one
        in.dead = true;
        return;
      }
      if (Attempt* owned = attempt_owned_by(*in.choice, call->begin_seq)) {
        if (owned->id == 0) owned->id = *id;  // begun early, before this first bench
        in.choice->views[call->begin_seq].owned_attempt_id = *id;
      } else {
        begin_attempt(in, *call, *id);
      }
    } else if (!attempt_of_thread(*in.choice, thread_of(e))) {
      return report_in_choice(in, Rule::R1, {e.seq},
                              thread_text(thread_of(e)) + " benched " + printable(*e.config) + " on " + call->key.show() +
                                  " at " + seq_text(e.seq) + " with no attempt open on its thread");
    }
    const std::int64_t attempt = white_box ? attempt_of_thread(*in.choice, thread_of(e))->id : *id;
    check_bench(in, attempt);
    if (!recorded) {  // what the attempt benched is the same in every choice
      recorded = true;
      bench_of = attempt;
    }
  });
  if (recorded) record_bench(step.state, e, bench_of);
  if (recorded && !white_box && !call->first_bench) {
    call->first_bench = id;
    ++step.state.stats.attempts;
  }
}

void on_tune_end(StepContext& step) {
  const Event& e = step.event;
  OpenCall* call = require_call(step);
  if (!call) return;
  if (call->lease_lost_attempt != 0) return on_tune_end_after_lease_lost(step, *call);
  for_each_choice(step, [&](StepContext& in) {
    const Attempt* open = attempt_of_thread(*in.choice, thread_of(e));
    if (!open)
      return report_in_choice(in, Rule::R1, {e.seq},
                              thread_text(thread_of(e)) + " has tune_end on " + call->key.show() + " at " + seq_text(e.seq) +
                                  " with no tune_begin open on its thread");
    const Attempt attempt = *open;
    judge_benches(in, attempt.id, call->key, e.config);
    in.state.benches.erase(attempt.id);
    const OpenCall& owner = in.state.calls.at(attempt.owner_call);
    const bool latest = in.choice->views[attempt.owner_call].owned_attempt_id == attempt.id;
    if (e.config) ++in.state.stats.successful_tunings;
    end_attempt(in, owner, e.config, e.seq);
    if (latest) judge_early_owner_launch(in, owner, attempt);
  });
}

}  // namespace safetune::model::detail
