// Implementation details of the model (model.h), shared by model*.cpp. Not a public API.
//
// An event is handled in two parts. What the trace shows is the same in every choice (R1
// nesting, R4 benches, R5's launch counts, the call stacks): its handler works on the State and
// reports into StepContext::found. What depends on hidden points works on one Choice of the event's key
// at a time (StepContext::choice), and reports into that choice: for_each_choice() runs it over every
// choice, after model_choices.cpp has placed the hidden points that may lie just before the
// event, and keeps the choices that survive.
//
// Handlers check first and mutate after, so that the state_before of each violation really is the
// state just before the breaking event.
//
// Cost: every handler touches a bounded number of map entries (the event's thread, its innermost
// call, its key) times the key's choices, plus, for a failed attempt, the calls open on its key.
// Nothing scans every thread, every call or every config.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.h"
#include "printable.h"

namespace safetune::model::detail {

struct StepContext {
  State& state;
  const Event& event;
  std::vector<Violation>& found;  // what the trace shows, whatever the choice
  Choice* choice = nullptr;       // the choice being advanced, in for_each_choice
  bool dead = false;              // set by a handler: no choice of points leads to this event
  KeyChoices* key = nullptr;        // the event's key, once looked up (key_choices())
};

// --- reporting (model_describe.cpp) ---
std::string seq_text(std::int64_t seq);            // "seq 7"
std::string thread_text(const ThreadName& thread);  // "thread 3"
std::string answer_text(const std::string& answer); // a config, or an undecided winner, shown
// The key's state in `choice` (its first choice when null) and the thread's open calls: two
// lines, each of bounded length.
std::string describe(const State& state, const KeyId& key, const ThreadName& thread, const Choice* choice);
// A violation in what the trace shows (R1, R4, R5's counts, R7).
void report(StepContext& step, Rule rule, std::vector<std::int64_t> seqs, const std::string& message);
// A violation of the choice being advanced.
void report_in_choice(StepContext& step, Rule rule, std::vector<std::int64_t> seqs, const std::string& message);
void report_with_state(std::vector<Violation>& found, Rule rule, std::vector<std::int64_t> seqs,
                       const std::string& message, std::string state_before);

// --- calls and keys (model.cpp) ---
KeyId key_of(const Event& event);
// The default answers (valid when no winner is published): the fallback under wait policy
// fallback, the only config when the header lists exactly one for the kernel.
bool is_default_answer(const State& state, const std::string& kernel, const std::string& config);
std::vector<std::string> default_answers(const State& state, const std::string& kernel);
OpenCall* innermost_call(State& state, const ThreadName& thread);  // null when it has none
// Forgets the thread's innermost call (its call_end, or its process's exit).
void pop_innermost_call(State& state, const ThreadName& thread);
// The innermost open call of the event's thread when it names the event's kernel and key;
// otherwise reports R1 and returns nullptr (the caller then ignores the event).
OpenCall* require_call(StepContext& step);
// The header's config space of `kernel` as a set, or null when the header lists none.
const std::set<std::string>* listed_configs(const State& state, const std::string& kernel);
CallView& view_of(StepContext& step, const OpenCall& call);  // in the choice being advanced
KeyChoices& key_choices(StepContext& step);                      // the event's key
// In the choice being advanced: an invalidate by `process` takes effect at the event (or just
// before it).
void invalidate_effect(StepContext& step, const std::optional<Name>& process);

// --- choices (model_choices.cpp) ---
// Runs `apply` on every choice of the event's key, after placing, in copies of them, the hidden
// points that may lie just before the event (black-box only); keeps the choices that survive
// (StepContext::dead not set), merges equal ones, keeps only violation-free ones while there are any,
// and hands the violations of a key left with one choice to StepContext::found.
void for_each_choice(StepContext& step, const std::function<void(StepContext&)>& apply);
// End of trace: the violations of each key's best choice, after `settle` ran on each choice.
void finish_choices(State& state, std::vector<Violation>& found, const std::function<void(State&, Choice&)>& settle);
// The answer that stands for an attempt's winner while its owner has not launched yet.
std::string undecided_answer(std::int64_t owner_call);
std::optional<std::int64_t> undecided_owner(const std::string& answer);

// --- the key's history of valid answers (model_history.cpp) ---
// The winner becomes the key's published winner at `now`; `published_seq` is the moment it
// counts as published from (R8's "later winner").
void publish_winner(Choice& choice, const std::string& winner, std::int64_t now, std::int64_t published_seq);
// An invalidate that takes effect: the key has no published winner from `now` on.
void withdraw_winner(Choice& choice, std::int64_t now);
// Across processes: `process` holds `winner` in memory from `now` on (its attempt published it, or
// it loaded it); drop_held_winner: it holds none from `now` on (its own invalidate took effect).
// Both do nothing for a trace of one process (no process name).
// A load adds to what the process holds; its own attempt's winner replaces it (hold_winner).
enum class HeldBy { Attempt, Load };
void hold_winner(Choice& choice, const std::optional<Name>& process, const std::string& winner, std::int64_t now,
                 HeldBy by);
void drop_held_winner(Choice& choice, const std::optional<Name>& process, std::int64_t now);
// What a process went on holding beside a later load (held_until) is held until this.
inline constexpr std::int64_t kStillHeld = std::numeric_limits<std::int64_t>::max();
// The process holds none of those from `now` on (its own invalidate, or its exit).
void let_go_of_held(Choice& choice, const Name& process, std::int64_t now);
// Across processes: `call`'s process held a winner at some moment of its open wait (R8, R14: the
// wait may have ended on it, whenever its wait_end is recorded, rather than on another process's
// attempt). False with no open wait.
bool held_during_wait(const Choice& choice, const OpenCall& call);
// Across processes: `call`'s process held a winner at some moment of [since, now]. False for a
// trace of one process.
bool held_by_process_since(const Choice& choice, const OpenCall& call, std::int64_t since);
// The undecided winner of `owner_call` is `config`: every trace of it in the choice says so.
void decide_winner(Choice& choice, std::int64_t owner_call, const std::string& config);
// What `call`'s window, from its call_begin to now, says of a launch of `config`.
WindowFacts window_facts(const State& state, const Choice& choice, const OpenCall& call, const CallView& view,
                         const std::string& config);
// Drops what no window still to be judged can see (anything that changed before the oldest such
// call began), so that choices that differ only in the past compare equal.
void forget_the_past(Choice& choice, std::int64_t oldest_open_call);

// --- attempts: R2, R3, R4, publication, R8 marking (model_attempt.cpp) ---
void on_tune_begin(StepContext& step);
void on_bench(StepContext& step);
void on_tune_end(StepContext& step);
// In the choice being advanced: `call` becomes the owner of a new attempt with this id (0: not
// benched yet). R2, R3.
void begin_attempt(StepContext& step, const OpenCall& call, std::int64_t id);
// In the choice being advanced: the attempt that `call` owns ends, with `winner` published from
// `published_seq`, or failed (no winner).
void end_attempt(StepContext& step, const OpenCall& call, const std::optional<std::string>& winner,
                 std::int64_t published_seq);
// In the choice being advanced: R4 on an attempt that ended (with `winner`, or failed).
void judge_benches(StepContext& step, std::int64_t attempt_id, const KeyId& key,
                   const std::optional<std::string>& winner);
Attempt* attempt_owned_by(Choice& choice, std::int64_t owner_call);
// White-box: the attempt that `thread` owns on the key in `choice`, the latest first; null if none.
Attempt* attempt_of_thread(Choice& choice, const ThreadName& thread);

// --- leases: lease_lost, and the R2 and R3 it excuses (model_lease.cpp) ---
void on_lease_lost(StepContext& step);
// A tune_end of `call`'s attempt that lost its lease: R12 when it publishes.
void on_tune_end_after_lease_lost(StepContext& step, OpenCall& call);
// White-box: an attempt that `owner`, a thread of a process, begins may hold a lease, and lose it.
bool may_hold_a_lease(const State& state, const ThreadName& owner);
// White-box: an attempt that `newcomer` (a call of a thread of a process) begins after a success of
// its key that its process did not know in memory may have claimed its lease before that success:
// its R3 is judged when it ends (Attempt::late_repeat). Known in memory: its process's own
// attempt's success, and its process's loads before the call began (model_lease.cpp).
bool may_have_claimed_before_the_success(const State& state, const Choice& choice, const OpenCall& newcomer);
// White-box: an attempt of `newcomer`'s process beginning over `in_flight`, of another process,
// is R2 only if both end otherwise than by losing their lease (Attempt::overlapped_by).
bool may_yet_lose_its_lease(const State& state, const Attempt& in_flight, const ThreadName& newcomer);
// In the choice being advanced: `ended` ended with a tune_end, still holding its lease, so each
// attempt that began over it broke R2 (judged when it ends too, if still in flight), each attempt
// it began over and that ended so broke R2, and it broke R3 if it began late, after a success. (An
// exit, like a lease_lost, excuses all three: model_lease.cpp.)
void judge_deferred(StepContext& step, Attempt& ended);
// The same, for `ended` that `how` ("ended at seq 9 without losing its lease"; a lease_lost under
// "live_owners": true excuses nothing). One duplicate per tune_begin, however many of its
// overlaps and its late repeat are reported (count_duplicate).
void judge_deferred_because(StepContext& step, Attempt& ended, const std::string& how);
// The tune_begin at `begin_seq` is a duplicate tuning: counted once, at its first report.
void count_duplicate(Choice& choice, std::int64_t begin_seq);
// End of trace: the same for the attempts still in flight.
void judge_deferred_at_end(Choice& choice);
// Whether each attempt in flight awaits its R2 or R3 judgement (an overlap across processes, or a
// late repeat): one of them may have lost its lease unseen. With a winner published, that is the
// only way an attempt is in flight, and an invalidate then withdraws the winner (model.cpp,
// invalidate_effect): if the attempts turn out stale, the store held that winner, and lost it.
bool attempts_in_doubt(const Choice& choice);
// The attempt `later` lost its lease, or its process exited: its overlaps of the attempts still in
// flight are excused (its owner may have been paused between taking the lease and its tune_begin).
void excuse_overlaps_by(Choice& choice, std::int64_t later);

// --- launches: R5, R6, R8, R9 (model_launch.cpp) ---
void on_launch(StepContext& step);
// Black-box: `owner_call` launched `config`: the pending launches that waited on its winner are
// judged now, in the choice being advanced.
void settle_pending(StepContext& step, std::int64_t owner_call, const std::string& config);
// End of trace: every pending launch of `choice` is judged as if its undecided winners were not it.
void settle_all_pending(State& state, Choice& choice);

// --- the results store: load (R12, R13), store_failed (R14) and exit (model_store.cpp) ---
void on_load(StepContext& step);
void on_store_failed(StepContext& step);
void on_exit(StepContext& step);
// R13, in the choice being advanced: a launch of a config that a load of the same call rejected,
// with no publication of it since that load.
void judge_rejected_launch(StepContext& step, const OpenCall& call);

// --- the wait graph: R11 (model_wait_cycle.cpp) ---
// White-box: the id of the attempt in flight on `key` that a wait_begin of `waiter` now waits on
// (0: none).
std::int64_t attempt_to_wait_on(const State& state, const ThreadName& waiter, const KeyId& key);
// White-box: the open waits on `key` that began with no attempt in flight there now wait on the
// attempt `id` that `owner` begins (model_wait_cycle.cpp).
void adopt_waits(State& state, const KeyId& key, std::int64_t id, const ThreadName& owner);
// One edge of a white-box cycle of waits: the attempt waited on, and its owner.
struct CycleStep {
  AttemptOnKey attempt{};
  ThreadName owner{};
};
struct WaitCycle {
  std::string text{};              // edge by edge, as a report shows it
  std::vector<CycleStep> steps{};  // white-box; the first is the edge that the wait would add
};
// The cycle of waits that `thread` would close by waiting now on `key`, as wait_cycle, with its
// edges' attempts (white-box; a black-box cycle shows none).
std::optional<WaitCycle> cycle_of_wait(const State& state, const ThreadName& thread, const KeyId& key);
// The cycle of waits that `thread` would close by waiting now on the attempt in flight on `key`,
// shown edge by edge; nullopt when it would close none. Black-box: the cycle of possible waits
// that the trace shows (model_wait_cycle.cpp).
std::optional<std::string> wait_cycle(const State& state, const ThreadName& thread, const KeyId& key);
// The cycle that `call` would close by waiting now, for a call that never waited (wait_cycle);
// nullopt for one that waited. A call that waited decided at its wait_begin, where R11 judged it:
// a cycle the graph holds when it later launches or raises (a new attempt on its key, whose owner
// waits on this thread's outer attempt) is none that it closed.
std::optional<std::string> cycle_closed_by(const State& state, const OpenCall& call);
void remember_cycles(State& state, const Event& event);
// A launch that is no valid answer by R5/R6, by a call that would have closed `cycle`. White-box:
// judged as R9 judges a re-entrant call, as R11, and true. Black-box: true when it is the
// fallback under re-entry policy fallback (the cycle's answer); false leaves it to R5/R6.
bool judge_cycle_closing_launch(StepContext& step, const OpenCall& call, const std::string& cycle);
// A call that raised without launching while a wait would have closed a cycle: under re-entry
// policy fallback it had to launch the fallback (R11).
void judge_cycle_closing_error(StepContext& step, const OpenCall& call);

// --- R11 across processes (model_lease_cycles.cpp) ---
// R11 for `call`'s wait_begin (the event), which closes `cycle`: reported now, or deferred while
// attempts waited on from another process on the cycle may yet turn out to have lost their lease.
void judge_wait_closing_cycle(StepContext& step, const OpenCall& call, const WaitCycle& cycle);
// The attempt `id` on `key` ended (the event): holding its lease (a tune_end), or not (a
// lease_lost, an exit). Settles the deferred cycles through it.
enum class LeaseAtEnd : std::uint8_t { Kept, Lost };
void settle_cycles_through(StepContext& step, const KeyId& key, std::int64_t id, LeaseAtEnd lease);
// The end of the trace: each cycle still deferred is R11 (an attempt on it never lost its lease).
void judge_deferred_cycles_at_end(State& state, std::vector<Violation>& found);

}  // namespace safetune::model::detail
