// The choices of a key in a black-box trace: linearizability, per key, as a frontier of states.
//
// A black-box trace hides four kinds of step, each somewhere in a window (docs/rules.md):
//   - an attempt begins: from its owner's call_begin to its first bench;
//   - a successful attempt publishes its winner: from its last bench to its owner's launch;
//   - a failed attempt ends: from its last bench to its owner's call_end;
//   - an invalidate takes effect: from its invalidate_begin to its invalidate.
// The trace is valid when some choice of one point in each window satisfies the rules. Only the
// events of the same key can tell choices apart, so a point needs placing only in the gap just
// before an event of its key, and only where that event needs it: each event is applied to each
// choice as it stands, and where that breaks a rule or leaves a launch pending (or the event is
// an invalidate, a call that may be re-entrant, or an owner's launch while an invalidate is in
// progress), also to every way of placing points just before it (placements() below). The
// choices the event rules out die; equal states merge. What a later event settles (which bench
// was the last, which config the owner launches) is carried as a condition of the choice: a bench
// after a placed end kills the choice; the owner's launch decides the winner that the choice
// published undecided (undecided_answer()).
//
// The latest point of every window is always a choice (the event that closes a window places its
// point when no earlier one was), so the frontier never empties: the choice of latest points is
// the model's reading of the events as they are recorded.
//
// A violation of one choice stands only when every choice breaks a rule. Once a choice that no
// later event can rule out has none, the choices with violations are dropped; otherwise the key
// keeps them, and the report takes the one with the fewest. A choice with a violation places no
// more points, so "the fewest" is the fewest among the choices it kept: the verdict is exact, the
// rule it names is that of one choice that breaks a rule. A key left with one choice hands its
// violations over at once; at the end of the trace, each key's best choice does.
#include <algorithm>
#include <charconv>
#include <limits>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

// A choice may hold this many violations while its key is undecided; more make the check
// incomplete rather than unbounded.
constexpr std::size_t kMaxViolationsPerChoice = 1000;

struct Placement {
  enum Kind { Begin, Succeed, Fail, Invalidate } kind = Begin;
  std::int64_t subject = 0;  // Begin, Succeed, Fail: the owner call; Invalidate: its invalidate_begin
};

// Whether `event` is a bench, launch or call_end of the call that began at `call_seq`.
bool is_own_event(const State& state, const Event& event, std::int64_t call_seq) {
  if (event.kind != EventKind::Bench && event.kind != EventKind::Launch && event.kind != EventKind::LaunchFailed &&
      event.kind != EventKind::CallEnd)
    return false;
  auto it = state.threads.find(thread_of(event));
  return it != state.threads.end() && it->second.back() == call_seq;
}

// The steps of the key's other work that may lie just before the event: the effect of an
// invalidate in progress, and the end of the attempt in flight.
void ends_and_invalidates(const StepContext& step, const Choice& choice, std::vector<Placement>& out) {
  for (const std::int64_t begun : choice.pending_invalidates) out.push_back({.kind = Placement::Invalidate, .subject = begun});
  // With several attempts in flight R2 is already broken in this choice (and reported): placing
  // their ends would only multiply choices, 3^n of them, to explain away what cannot be.
  if (choice.in_flight.size() > 1) return;
  for (const Attempt& attempt : choice.in_flight) {
    if (attempt.id == 0 || step.state.calls.at(attempt.owner_call).launches > 0) continue;
    if (is_own_event(step.state, step.event, attempt.owner_call)) continue;
    out.push_back({.kind = Placement::Succeed, .subject = attempt.owner_call});
    out.push_back({.kind = Placement::Fail, .subject = attempt.owner_call});
  }
}

// An early begin matters only to a re-entrant call (R9): a call_begin on the key from a thread
// whose enclosing call on the key has not benched yet. On a key that is not cold, what would make
// it cold comes first (alternatives() chains placements): a failed owner releases its waiters, and
// one of them may begin the next attempt and re-enter it, before the owner's call_end is recorded.
void early_begins(const StepContext& step, const Choice& choice, std::vector<Placement>& out) {
  const Event& e = step.event;
  auto it = step.state.threads.find(thread_of(e));
  if (it == step.state.threads.end()) return;
  std::vector<Placement> begins;
  for (const std::int64_t seq : it->second) {
    if (seq == e.seq) continue;  // the call this event begins (on_call_begin pushed it)
    const OpenCall& call = step.state.calls.at(seq);
    if (call.key.kernel != e.kernel || call.key.key != e.key || call.first_bench || call.launches > 0) continue;
    begins.push_back({.kind = Placement::Begin, .subject = seq});
  }
  if (begins.empty()) return;
  if (!choice.in_flight.empty() || choice.succeeded_since_invalidate) return ends_and_invalidates(step, choice, out);
  out.insert(out.end(), begins.begin(), begins.end());
}

// The points that may matter just before the event. Before a call_begin only an early begin does
// (R9), with what must precede it; before a call_end that returns, nothing does; before the others,
// the end of the attempt in flight and the effect of an invalidate in progress (a call_end that
// raises may have waited on an attempt that failed just before it: R14).
std::vector<Placement> placements(const StepContext& step, const Choice& choice) {
  std::vector<Placement> out;
  const EventKind kind = step.event.kind;
  if (kind == EventKind::CallBegin) early_begins(step, choice, out);
  else if (kind != EventKind::CallEnd || step.event.error) ends_and_invalidates(step, choice, out);
  return out;
}

std::int64_t last_bench_seq(const State& state, std::int64_t attempt_id) {
  return state.benches.at(attempt_id).benches.back().seq;
}

// The process of the invalidate that began at `begun` (still in progress: it is being placed).
std::optional<Name> invalidating_process(const KeyChoices& key, std::int64_t begun) {
  for (const auto& [thread, seq] : key.invalidates_begun)
    if (seq == begun) return thread.process;
  return std::nullopt;
}

void place(StepContext& step, const Placement& placement) {
  Choice& choice = *step.choice;
  if (placement.kind == Placement::Invalidate) {
    choice.pending_invalidates.erase(placement.subject);
    return invalidate_effect(step, invalidating_process(key_choices(step), placement.subject));
  }
  const OpenCall& call = step.state.calls.at(placement.subject);
  if (placement.kind == Placement::Begin) return begin_attempt(step, call, 0);
  const std::int64_t id = attempt_owned_by(choice, call.begin_seq)->id;
  const bool success = placement.kind == Placement::Succeed;
  const std::optional<std::string> winner =
      success ? std::optional<std::string>(undecided_answer(call.begin_seq)) : std::nullopt;
  end_attempt(step, call, winner, last_bench_seq(step.state, id));
  choice.chosen_ends.push_back({.owner_call = call.begin_seq, .attempt_id = id, .success = success});
}

// Adds `choice` unless an equal state is there; of two equal ones the one with fewer violations stays.
void add_unique(std::vector<Choice>& choices, Choice choice) {
  for (Choice& existing : choices) {
    if (!existing.same_state(choice)) continue;
    if (choice.violation_count < existing.violation_count) existing = std::move(choice);
    return;
  }
  choices.push_back(std::move(choice));
}

void mark_incomplete(State& state, const std::string& why) {
  if (!state.incomplete) state.incomplete = why;
}

// Every state that placing one or more points just before the event reaches from `from`
// (not `from` itself), each placement using up a window, equal states merged.
std::vector<Choice> alternatives(StepContext& step, const Choice& from) {
  std::vector<Choice> reached{from};
  for (std::size_t i = 0; i < reached.size(); ++i) {
    const std::vector<Placement> options = placements(step, reached[i]);
    for (const Placement& placement : options) {
      Choice next = reached[i];  // a copy: push_back may move the vector
      StepContext placing{.state = step.state, .event = step.event, .found = step.found, .choice = &next};
      place(placing, placement);
      add_unique(reached, std::move(next));
      if (reached.size() > kMaxChoicesPerKey) break;
    }
  }
  reached.erase(reached.begin());
  return reached;
}

// Applies the event to `choice`; false when the choice dies. `clean` says whether it broke
// nothing more and left nothing to judge later: a launch that is right only if an undecided
// winner turns out to be its config (a pending launch) is not clean, since placing a point
// before it (an invalidate's effect) may make it right outright, and by the time the owner's
// launch decides the winner that point can no longer be placed.
bool apply_to(StepContext& step, Choice& choice, const std::function<void(StepContext&)>& apply, bool& clean) {
  const std::int64_t before = choice.violation_count;
  const std::size_t pending_before = choice.pending.size();
  step.choice = &choice;
  step.dead = false;
  apply(step);
  step.choice = nullptr;
  clean = choice.violation_count == before && choice.pending.size() <= pending_before;
  return !step.dead;
}

// Whether the event is an owner's launch that closes its attempt's publication window in this
// choice (the attempt is still in flight: nothing published it earlier). on_launch has counted
// the launch already, and only a call's first launch gets here.
bool closes_publication(const StepContext& step, const Choice& choice) {
  if (step.event.kind != EventKind::Launch && step.event.kind != EventKind::LaunchFailed) return false;
  return std::any_of(choice.in_flight.begin(), choice.in_flight.end(), [&](const Attempt& attempt) {
    return attempt.id != 0 && is_own_event(step.state, step.event, attempt.owner_call);
  });
}

// Whether points must be tried before this event even where it breaks nothing as it stands: an
// invalidate takes effect or not depending on whether an attempt ended before it; a call that
// re-enters its thread's call on the key is re-entrant only if that call's attempt began before;
// and an invalidate in progress at an owner's launch may have taken effect before the attempt
// published, with no effect then, so that the key stays tuned after the invalidate returns. That
// last order is the one placement that adds answers rather than taking them away, and the event
// that tells it apart (a later call that still launches the winner) comes after both windows
// have closed, too late to place it.
bool always_branches(const StepContext& step, const Choice& choice) {
  const EventKind kind = step.event.kind;
  if (kind == EventKind::Invalidate || kind == EventKind::CallBegin) return true;
  return !choice.pending_invalidates.empty() && closes_publication(step, choice);
}

// The history of a key matters only to the windows still to be judged: those of its open calls
// that have neither launched nor benched (an owner's launch is its attempt's success, not a read).
// The begin of the oldest of them, or the largest seq when there is none.
std::int64_t oldest_unjudged_call(const State& state, const KeyChoices& key) {
  for (const std::int64_t seq : key.open_calls) {
    const OpenCall& call = state.calls.at(seq);
    if (call.launches == 0 && !call.first_bench) return seq;
  }
  return std::numeric_limits<std::int64_t>::max();
}

// A choice that rests on nothing a later event can refute: no end placed before its owner's
// launch or call_end, no attempt begun before its first bench. Such a choice never dies.
bool is_settled(const Choice& choice) {
  return choice.chosen_ends.empty() &&
         std::none_of(choice.in_flight.begin(), choice.in_flight.end(), [](const Attempt& a) { return a.id == 0; });
}

// Drops the choices with violations when a settled choice has none: no later event can make them
// better than it. (A clean choice that is not settled may still die, so it proves nothing yet.)
void keep_the_best(State& state, KeyChoices& key, const Event& event) {
  const bool settled_and_clean = std::any_of(key.choices.begin(), key.choices.end(), [](const Choice& c) {
    return c.violation_count == 0 && is_settled(c);
  });
  if (settled_and_clean) std::erase_if(key.choices, [](const Choice& c) { return c.violation_count > 0; });
  const std::int64_t horizon = oldest_unjudged_call(state, key);
  for (Choice& choice : key.choices) forget_the_past(choice, horizon);
  std::vector<Choice> merged;
  for (Choice& choice : key.choices) add_unique(merged, std::move(choice));
  key.choices = std::move(merged);
  for (const Choice& choice : key.choices)
    if (choice.found.size() > kMaxViolationsPerChoice)
      return mark_incomplete(state, "key " + key_of(event).show() + " held more than " +
                                        std::to_string(kMaxViolationsPerChoice) +
                                        " violations while its choices were undecided, at " + seq_text(event.seq));
}

void hand_over(State& state, Choice& choice, std::vector<Violation>& found) {
  for (Violation& violation : choice.found) found.push_back(std::move(violation));
  state.stats.duplicate_tunings += choice.duplicate_tunings;
  choice.found.clear();
  choice.violation_count = 0;  // what every choice shares no longer tells them apart
  choice.duplicate_tunings = 0;
}

}  // namespace

std::string undecided_answer(std::int64_t owner_call) { return "?" + std::to_string(owner_call); }

std::optional<std::int64_t> undecided_owner(const std::string& answer) {
  if (answer.empty() || answer[0] != '?') return std::nullopt;  // a config always has '=' and no leading '?'
  std::int64_t owner = 0;
  std::from_chars(answer.data() + 1, answer.data() + answer.size(), owner);
  return owner;
}


void for_each_choice(StepContext& step, const std::function<void(StepContext&)>& apply) {
  KeyChoices& key = key_choices(step);
  const bool black_box = !step.state.header.white_box;
  // The common case, every event of a white-box trace: one choice and nothing to place.
  if (key.choices.size() == 1) {
    Choice& only = key.choices.front();
    if (!black_box || only.violation_count > 0 || placements(step, only).empty()) {
      bool clean = true;
      if (!apply_to(step, only, apply, clean))
        return mark_incomplete(step.state, "internal error: no choice of hidden points survived " + seq_text(step.event.seq));
      return hand_over(step.state, only, step.found);
    }
  }
  std::vector<Choice> next;
  for (Choice& choice : key.choices) {
    // Points are placed only where they could matter: in a choice that broke nothing yet, and
    // only when the event as it stands breaks a rule (or always_branches). Placing a point later
    // than the event that needs it never helps that event; placing it earlier, where no event
    // needed it, can only take away answers that later calls read (docs/rules.md), except an
    // invalidate's effect before a publication, which always_branches tries.
    const bool may_place = black_box && choice.violation_count == 0 && !placements(step, choice).empty();
    const bool branches = may_place && always_branches(step, choice);
    std::optional<Choice> original;
    if (may_place) original = choice;
    bool clean = true;
    if (apply_to(step, choice, apply, clean)) add_unique(next, std::move(choice));
    if (!may_place || (clean && !branches)) continue;
    for (Choice& alternative : alternatives(step, *original)) {
      bool alternative_clean = true;
      if (apply_to(step, alternative, apply, alternative_clean)) add_unique(next, std::move(alternative));
    }
    if (next.size() > kMaxChoicesPerKey)
      return mark_incomplete(step.state, "key " + key_of(step.event).show() + " needed more than " +
                                             std::to_string(kMaxChoicesPerKey) + " choices of hidden points at " +
                                             seq_text(step.event.seq));
  }
  if (next.empty()) {
    // Cannot happen: the choice of latest points always survives. Say so rather than guess.
    mark_incomplete(step.state, "internal error: no choice of hidden points survived " + seq_text(step.event.seq));
    return;
  }
  key.choices = std::move(next);
  keep_the_best(step.state, key, step.event);
  if (key.choices.size() == 1) hand_over(step.state, key.choices.front(), step.found);
}

void finish_choices(State& state, std::vector<Violation>& found, const std::function<void(State&, Choice&)>& settle) {
  for (auto& [id, key] : state.keys) {
    for (Choice& choice : key.choices) settle(state, choice);
    auto best = std::min_element(key.choices.begin(), key.choices.end(), [](const Choice& a, const Choice& b) {
      return a.violation_count < b.violation_count;
    });
    hand_over(state, *best, found);
  }
}

}  // namespace safetune::model::detail

namespace safetune::model {

bool Choice::same_state(const Choice& other) const {
  return in_flight == other.in_flight && winner == other.winner &&
         succeeded_since_invalidate == other.succeeded_since_invalidate && history == other.history &&
         views == other.views && chosen_ends == other.chosen_ends && pending_invalidates == other.pending_invalidates &&
         pending == other.pending && loaded == other.loaded && entry_rejected == other.entry_rejected &&
         entry_withdrawn == other.entry_withdrawn && abandoned_since_rejection == other.abandoned_since_rejection &&
         held == other.held && tuned_in == other.tuned_in && loaded_in == other.loaded_in;
}

}  // namespace safetune::model
