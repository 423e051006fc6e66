// The state-machine model of the reference autotuner: one pure step function over the trace
// alphabet (event.h), judged by rules R1-R14 (docs/rules.md).
//
// Contract (the model is the oracle for the trace checker, the property tests, Relacy and Spin):
//
//  * step() is a pure function. It owns the State it is given (taken by value, so callers move it
//    in and out), reads nothing else, and returns the next state plus every violation the event
//    makes; advance() is the same work in place, for the checker's loop.
//  * step() never fails: after a violation it still returns a sensible next state, so that checking
//    goes on. The recovery choices are documented where they are made (e.g. when R2 is broken and
//    several winners are published, the most recent one is the published winner; an event that
//    breaks R1 is otherwise ignored).
//  * finish() judges what can only be judged at the end of the trace: R7 hangs, and launches
//    whose judgement waits on a choice that the trace never settled. After a check that stopped
//    as incomplete (State::incomplete) it judges neither: the rest of the trace was not read.
//  * Precondition: events come from a trace that the reader accepted (seq strictly increasing,
//    fields present as the schema demands). The model reports rule violations, not input errors.
//  * A violation is never reported unless the trace really breaks that rule. Where the trace does
//    not carry enough to decide (e.g. no config list in the header), the model does not report.
//
// Per (kernel, key) lifecycle, as the brief draws it:
//
//   phase    | attempt begins          | attempt succeeds    | attempt fails | invalidate
//   ---------+-------------------------+---------------------+---------------+-----------------
//   Cold     | -> Tuning               | -                   | -             | no change
//   Tuning   | R2 (second in flight)   | -> Tuned{winner}    | -> Cold       | no effect
//   Tuned    | R3 (unless invalidated) | -                   | -             | -> Cold
//
// A key's state is a set of choices (KeyChoices::choices). A white-box trace shows every step, so a
// key has exactly one. A black-box trace hides when an attempt began, published or failed and when
// an invalidate took effect; each such step may lie anywhere in its window (docs/rules.md), so the
// key keeps every state that some choice of points reaches (model_choices.cpp), as Porcupine's
// and WGL's linearizability checkers do, and a violation stands only when every choice breaks a
// rule. Choice keeps the cells that break R2/R3 representable (several attempts in flight, or an
// attempt in flight over a published winner), so phase() is derived rather than stored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "checker.h"
#include "event.h"
#include "violation.h"

namespace safetune::model {

struct KeyId {
  std::string kernel;
  std::string key;
  std::string show() const;  // "kernel[key]", each part printable (printable.h)
  auto operator<=>(const KeyId&) const = default;
};

struct BenchRecord {
  std::int64_t seq = 0;
  std::string config{};
  std::optional<double> time_ns{};  // absent: the bench failed
  bool operator==(const BenchRecord&) const = default;
};

// What an attempt benched: the same in every choice, so kept once (State::benches), by the
// attempt's id: the seq of its tune_begin (white-box) or of its first bench (black-box).
struct AttemptBenches {
  std::vector<BenchRecord> benches{};
  std::set<std::string> benched{};  // the configs of `benches`: R4's repeat check in O(log n)
  std::size_t listed_benched = 0;   // how many of `benched` the header lists for the kernel
  bool operator==(const AttemptBenches&) const = default;
};

// An attempt of another process that began while this one was in flight (white-box): R2, unless
// either turns out to have lost its lease (model_lease.cpp): this one, expired before the other
// took over; or the later one, its owner paused between taking the lease and its tune_begin.
// Judged when this one ends, and then, if the later one is still in flight, when it ends.
struct Overlap {
  std::int64_t begin_seq = 0;        // the later attempt's tune_begin
  std::int64_t earlier_id = 0;       // the attempt in flight that it began over
  std::int64_t earlier_end_seq = 0;  // that attempt's tune_end, once it ended holding its lease
  std::string message{};             // R2's message, as it would have been given at that tune_begin
  std::string state_before{};        // and the state just before it
  bool operator==(const Overlap&) const = default;
};

// An attempt of a process that began after a success of its key in another process (white-box):
// R3, unless it turns out to have lost its lease, its owner paused between taking the lease and its
// tune_begin (model_lease.cpp). Judged when it ends.
struct LateRepeat {
  std::int64_t success_seq = 0;  // the success it repeats
  std::string message{};         // R3's message, as it would have been given at its tune_begin
  std::string state_before{};    // and the state just before it
  bool operator==(const LateRepeat&) const = default;
};

// One tuning attempt in flight, in one choice. White-box: from tune_begin to tune_end (or its
// lease_lost). Black-box: from the point chosen for its begin to the point chosen for its end.
struct Attempt {
  std::int64_t id = 0;  // as AttemptBenches; 0 while a black-box attempt has not benched yet
  ThreadName owner{};
  std::int64_t owner_call = 0;  // the begin seq of the owning call
  std::vector<Overlap> overlapped_by{};  // later attempts that began over this one
  std::vector<Overlap> overlapping{};    // earlier ones it began over, ended holding their lease
  std::optional<LateRepeat> late_repeat{};
  bool operator==(const Attempt&) const = default;
};

// An attempt named by its key and id: the attempts in flight are per key (R11 across processes).
struct AttemptOnKey {
  KeyId key{};
  std::int64_t id = 0;
  auto operator<=>(const AttemptOnKey&) const = default;
};

// A wait_begin that closed a cycle of waits through attempts waited on from another process
// (white-box): R11, unless one of those attempts turns out to have lost its lease
// (model_lease_cycles.cpp): its owner was paused past it, so the wait really waited for whoever
// took the key over. Judged once each of them has ended holding its lease, or at the end of the
// trace.
struct DeferredCycle {
  std::vector<std::int64_t> seqs{};       // the waiting call's call_begin and its wait_begin
  std::string message{};                  // R11's message, as it would have been given then
  std::string state_before{};             // and the state just before that wait_begin
  std::vector<AttemptOnKey> undecided{};  // those attempts, still in flight
  bool operator==(const DeferredCycle&) const = default;
};

enum class Ownership : std::uint8_t { None, InFlight, Succeeded, Failed };

// An open call: what the trace shows of it, the same in every choice.
struct OpenCall {
  ThreadName thread{};
  KeyId key{};
  std::int64_t begin_seq = 0;
  std::optional<std::int64_t> first_bench{};  // black-box: its attempt's id, once it benched
  int launches = 0;
  std::optional<std::string> launched{};  // config of the first launch (or launch_failed)
  std::int64_t launch_seq = 0;
  bool launch_failed = false;  // that first launch was a launch_failed: the call may raise (R14)
  bool store_failed = false;   // a step of it in the results store failed: the call may raise (R14)
  std::optional<std::int64_t> wait_open_seq{};  // white-box: the open wait_begin
  std::int64_t last_wait_begin_seq = -1;        // white-box: the begin of the last closed wait
  std::int64_t waits_on_attempt = 0;  // white-box: the attempt in flight at the open wait_begin,
                                      // or the first begun after it (its id; 0: none yet), the
                                      // edge of the wait graph (R11)
  std::map<std::string, std::int64_t> rejected{};  // R13: configs a load of this call rejected,
                                                   // with that load's seq
  std::int64_t last_seq = 0;  // its thread's latest event while this call is its innermost one
                              // (a nested call's call_end included): a load read the store after it
  std::int64_t lease_lost_attempt = 0;  // white-box: its attempt that lost its lease (id), until
                                        // it begins another: a tune_end of it must not publish (R12)
  std::int64_t lease_lost_seq = 0;      // ... and that lease_lost's seq
  std::optional<std::string> cycle_seen{};  // white-box: a cycle its wait would have closed at an
                                            // event of another thread since its own latest one,
                                            // which that event dissolved (R11, remember_cycles)
  bool operator==(const OpenCall&) const = default;
};

// What an open call is in one choice of its key. Its launch window runs from its call_begin to
// its launch; what was valid in it is read from the choice's KeyHistory, not kept per call.
struct CallView {
  bool reentrant = false;    // began while its thread owned the key's attempt in flight (R9)
  bool began_tuned = false;  // a winner was published at its call_begin (R10, with the key's
                             // last_invalidate_seq: no invalidate since)
  Ownership owned = Ownership::None;  // the latest attempt this call owns, and how it ended
  std::int64_t owned_attempt_id = 0;
  std::optional<std::string> owned_winner{};
  // R8 (policy block): set when this call waited on an attempt that failed. Its launch must
  // then be a winner published after that failure.
  std::optional<std::int64_t> waited_on_failure_seq{};
  // R14: set when this call waited on an attempt that failed (white-box, any policy) or, under
  // policy block, was open on the key from another thread when one failed (black-box): it may
  // end with an error.
  bool saw_failure = false;
  bool operator==(const CallView&) const = default;
};

// What judging one launch needs to know of its window, taken when it launched.
struct WindowFacts {
  std::int64_t begin_seq = 0;
  bool config_valid = false;  // the launched config was a valid answer at some moment of it
  bool winner_seen = false;   // a winner was published at some moment of it
  std::optional<std::int64_t> waited_on_failure_seq{};  // R8, as in CallView
  bool later_winner = false;  // R8: the config was published after that failure
  std::set<std::int64_t> unsettled{};  // black-box: owner calls whose undecided winner, published
                                       // in the window, would make the launch right if it is it
  std::string valid_answers{};  // the valid answers of the window, shown (for the message)
  bool operator==(const WindowFacts&) const = default;
};

// A black-box launch that is right only if an attempt whose end was placed before it turns out to
// have published the launched config; judged when that owner launches (or at the end).
struct PendingLaunch {
  ThreadName thread{};
  KeyId key{};
  WindowFacts window{};
  std::string config{};
  std::int64_t seq = 0;
  std::string state_before{};
  bool operator==(const PendingLaunch&) const = default;
};

// When each answer of a key was valid, so that a launch is judged against its whole window in
// O(log configs), however much happened in the window. A window [b, now] saw config X as a valid
// answer iff X is valid now, or X stopped being valid after b. Seqs are of the events that made
// the change (a black-box choice made just before an event carries that event's seq). Values too
// old for any open call to see are dropped (model_history.cpp), so that choices that differ only
// in the past compare equal.
struct KeyHistory {
  std::map<std::string, std::int64_t> winner_until{};  // answer -> when it last stopped being the
                                                       // published winner (replaced or withdrawn)
  std::map<std::string, std::int64_t> published_at{};  // answer -> its latest publication (R8)
  std::int64_t cold_until = -1;   // when the key last stopped having no published winner; while
                                  // it has none, the default answers are valid (-1: never yet)
  std::int64_t withdrawn_at = -1; // when a published winner was last withdrawn (winner_seen)
  std::int64_t last_invalidate_seq = -1;  // any invalidate, with effect or not (R10)
  // Across processes: (process, answer) -> when that process last stopped holding the answer in
  // memory (Choice::held), so that its calls' windows see it as winner_until shows the rest.
  std::map<std::pair<Name, std::string>, std::int64_t> held_until{};
  bool operator==(const KeyHistory&) const = default;
};

// A black-box attempt whose end was placed at a chosen point, before its owner's launch (success)
// or call_end (failure) showed which: that event settles the choice, or rules it out.
struct ChosenEnd {
  std::int64_t owner_call = 0;
  std::int64_t attempt_id = 0;
  bool success = false;
  bool operator==(const ChosenEnd&) const = default;
};

// One state of a key that some choice of hidden points reaches, and the violations that choice
// made. Answers may be a config or, in black-box traces, the undecided winner of an attempt whose
// publication was placed before its owner's launch (model_choices.cpp: undecided_answer()).
struct Choice {
  std::vector<Attempt> in_flight{};     // more than one only when R2 is broken
  std::optional<std::string> winner{};  // the published winner (the most recent one)
  bool succeeded_since_invalidate = false;  // R3
  std::int64_t last_success_seq = 0;
  KeyHistory history{};
  std::map<std::int64_t, CallView> views{};  // the key's open calls, by begin seq
  std::vector<ChosenEnd> chosen_ends{};      // black-box
  std::set<std::int64_t> pending_invalidates{};  // black-box: invalidate_begin seqs whose effect
                                                  // is not placed yet
  std::vector<PendingLaunch> pending{};      // black-box
  // R12: the config that loads of the key returned since the last invalidate (they must agree,
  // and so must the winner of an attempt that ends after them), and the first such load's seq.
  std::optional<std::string> loaded{};
  std::int64_t loaded_seq = 0;  // for messages only: same_state() leaves it out
  // A load rejected the key's entry (damaged, foreign) and nothing was published since: the store
  // holds no winner, so a new attempt is no R3 duplicate and a call that begins now may wait
  // (R10). A winner still published in memory stays a valid answer to launch.
  bool entry_rejected = false;
  // An invalidate withdrew the key's entry from the store, and nothing was published since: a load
  // then needs a publisher, as after a rejection (R12).
  bool entry_withdrawn = false;
  std::int64_t entry_lost_seq = 0;  // the rejection or withdrawal, for messages only (as loaded_seq)
  // Since that rejection or withdrawal, an attempt was abandoned (its process exited): it may have
  // published before it died, so a load may find its winner with no attempt in flight (R12).
  bool abandoned_since_rejection = false;
  // Across processes (events with a `process`): the winner each process holds in memory, from its
  // own attempt's success or its load, until its own invalidate takes effect or it exits. Another
  // process's invalidate withdraws the store's entry, not this: the hot path of a tuned key
  // touches no store, so the process goes on launching its winner, a valid answer for its calls
  // (docs/rules.md, "Across processes"). Within one process it is the published winner.
  std::map<Name, std::string> held{};
  // Across processes, since succeeded_since_invalidate became true: the processes whose own attempt
  // succeeded, and each process's first load with a winner (its seq). R3: an attempt that begins
  // after a success its process did not know in memory may have claimed its lease before that
  // success (model_lease.cpp, may_have_claimed_before_the_success).
  std::set<Name> tuned_in{};
  std::map<Name, std::int64_t> loaded_in{};
  // Not part of the state proper (same_state() leaves them out): what this choice broke so far,
  // how many duplicate tunings it counted, and what R3's message adds (an invalidate that fell
  // while an attempt was in flight, and so did not withdraw that attempt's later winner).
  std::vector<Violation> found{};
  std::int64_t violation_count = 0;
  std::int64_t duplicate_tunings = 0;
  // The tune_begins (their seqs) counted as a duplicate tuning already: one each, however many
  // of R2 and R3 it breaks and however many attempts in flight it began over (count_duplicate).
  std::set<std::int64_t> duplicates_counted{};
  std::string r3_note{};

  // The same state, whatever violations led to it (choices are merged on it).
  bool same_state(const Choice& other) const;
  // An invalidate, or the store's loss of the entry: a new attempt repeats none of the key's
  // successes so far (R3).
  void forget_successes() {
    succeeded_since_invalidate = false;
    tuned_in.clear();
    loaded_in.clear();
  }
  bool operator==(const Choice&) const = default;
};

// A key: its choices (exactly one in a white-box trace), and the calls open on it.
struct KeyChoices {
  std::vector<Choice> choices{Choice{}};
  std::set<std::int64_t> open_calls{};  // begin seqs of the calls open on this key (R8 waiters)
  // Black-box: the invalidates in progress, by thread: its invalidate_begin's seq.
  std::map<ThreadName, std::int64_t> invalidates_begun{};
  bool operator==(const KeyChoices&) const = default;
};

enum class Phase : std::uint8_t { Cold, Tuning, Tuned };
Phase phase(const Choice& choice);

// The most choices a key may keep; a trace that needs more is checked no further and reported
// as incomplete, never guessed.
inline constexpr std::size_t kMaxChoicesPerKey = 256;

// The model's state. Its size follows what is open: keys, open calls, attempts in flight, the
// threads with open calls, per key its choices and the configs that were recently its winner.
struct State {
  Header header{};
  std::map<std::string, std::set<std::string>> listed{};  // the header's config spaces, as sets
  std::map<KeyId, KeyChoices> keys{};
  std::map<std::int64_t, OpenCall> calls{};  // every open call, by the seq of its call_begin
  // Each thread's open calls (begin seqs), outermost first; a thread with none has no entry.
  std::map<ThreadName, std::vector<std::int64_t>> threads{};
  std::map<std::int64_t, AttemptBenches> benches{};  // attempts whose owner call is open
  TraceStats stats{};  // counts so far (hung_calls is filled by the checker at the end)
  std::vector<DeferredCycle> deferred_cycles{};  // white-box, across processes (R11)
  // Set when a key needed more than kMaxChoicesPerKey choices: the check is incomplete.
  std::optional<std::string> incomplete{};
  bool operator==(const State&) const = default;
};

struct StepResult {
  State next;
  std::vector<Violation> violations;
};

State initial_state(const Header& header);
StepResult step(State state, const Event& event);
// step() done in place on a state the caller owns, appending the event's violations to `found`:
// step(s, e) is exactly advance(s, e, found) on its own state. The checker's loop uses it, so
// that the state is not moved in and out for every event.
void advance(State& state, const Event& event, std::vector<Violation>& found);
// The end of the trace, on the state of its last event: what it judges is added to its stats.
std::vector<Violation> finish(State& state);

}  // namespace safetune::model
