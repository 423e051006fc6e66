// A key's history of valid answers (KeyHistory in model.h), and what it says of a launch window.
//
// A call may have read its key's state at any moment from its call_begin (seq b) to its launch,
// so a launched config is right when it was a valid answer at some moment of that window. Rather
// than collect, in every open call, every answer that became valid (a cost of open calls times
// publications), the key remembers when each answer last stopped being valid: X was valid at
// some moment of [b, now] exactly when it is valid now or stopped being valid after b.
//
// An answer is a config or, in a black-box choice, the undecided winner of an attempt whose
// publication the choice placed before its owner's launch; the launch decides it (decide_winner).
#include <algorithm>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

bool step_white_box(const State& state) { return state.header.white_box; }

bool valid_after(const std::map<std::string, std::int64_t>& until, const std::string& answer, std::int64_t begin) {
  auto it = until.find(answer);
  return it != until.end() && it->second > begin;
}

// Whether the key had no published winner at some moment of [begin, now].
bool cold_in_window(const Choice& choice, std::int64_t begin) {
  return !choice.winner || choice.history.cold_until > begin;
}

// The winners that `process` held in memory at some moment of [since, now]. held_until is ordered
// by process first, so its entries of the process are one range of it.
std::set<std::string> held_since(const Choice& choice, const Name& process, std::int64_t since) {
  std::set<std::string> held;
  if (auto it = choice.held.find(process); it != choice.held.end()) held.insert(it->second);
  const auto& until = choice.history.held_until;
  for (auto it = until.lower_bound({process, std::string()}); it != until.end() && it->first.first == process; ++it)
    if (it->second > since) held.insert(it->first.second);
  return held;
}

// The answers the call's process held in memory at some moment of its window: none for a trace
// of one process.
std::set<std::string> held_in_window(const Choice& choice, const OpenCall& call) {
  if (!call.thread.process) return {};
  return held_since(choice, *call.thread.process, call.begin_seq);
}

// The answers valid at some moment of the window, decided or not.
std::set<std::string> answers_in_window(const State& state, const Choice& choice, const OpenCall& call) {
  std::set<std::string> answers;
  if (choice.winner) answers.insert(*choice.winner);
  for (const auto& [answer, until] : choice.history.winner_until)
    if (until > call.begin_seq) answers.insert(answer);
  answers.merge(held_in_window(choice, call));
  if (cold_in_window(choice, call.begin_seq))
    for (const std::string& config : default_answers(state, call.key.kernel)) answers.insert(config);
  return answers;
}

// For a message, computed only when a launch looks wrong.
std::string shown_answers(const std::set<std::string>& answers) {
  if (answers.empty()) return "none";
  std::string text;
  std::size_t shown = 0;
  for (const std::string& answer : answers) {
    if (++shown > 8) return text + " | ... (" + std::to_string(answers.size() - 8) + " more)";
    text += (text.empty() ? "" : " | ") + answer_text(answer);
  }
  return text;
}

// Renames `from` to `to` in a map of seqs, keeping the later seq where both are there.
void rename_key(std::map<std::string, std::int64_t>& seqs, const std::string& from, const std::string& to) {
  auto node = seqs.extract(from);
  if (node.empty()) return;
  std::int64_t& seq = seqs[to];
  seq = std::max(seq, node.mapped());
}

}  // namespace

void publish_winner(Choice& choice, const std::string& winner, std::int64_t now, std::int64_t published_seq) {
  KeyHistory& history = choice.history;
  if (choice.winner && *choice.winner != winner) history.winner_until[*choice.winner] = now;
  if (!choice.winner) history.cold_until = now;
  choice.winner = winner;
  choice.entry_rejected = false;
  choice.entry_withdrawn = false;
  choice.abandoned_since_rejection = false;
  std::int64_t& published = history.published_at[winner];
  published = std::max(published, published_seq);
}

bool held_by_process_since(const Choice& choice, const OpenCall& call, std::int64_t since) {
  return call.thread.process && !held_since(choice, *call.thread.process, since).empty();
}

bool held_during_wait(const Choice& choice, const OpenCall& call) {
  return call.wait_open_seq && held_by_process_since(choice, call, *call.wait_open_seq);
}

void hold_winner(Choice& choice, const std::optional<Name>& process, const std::string& winner, std::int64_t now,
                 HeldBy by) {
  if (!process) return;
  auto [it, added] = choice.held.try_emplace(*process, winner);
  if (added || it->second == winner) return;
  // An attempt of the process replaces what it held. A load adds to it: the load may be a call's
  // beside the process's owner, which launches what it read and leaves the process's own winner
  // in memory as it was (the reference's look_up_beside_owner), so both stay valid answers there.
  choice.history.held_until[{*process, it->second}] = by == HeldBy::Load ? kStillHeld : now;
  it->second = winner;
}

void drop_held_winner(Choice& choice, const std::optional<Name>& process, std::int64_t now) {
  if (!process) return;
  auto node = choice.held.extract(*process);
  if (!node.empty()) choice.history.held_until[{*process, node.mapped()}] = now;
  let_go_of_held(choice, *process, now);
}

void let_go_of_held(Choice& choice, const Name& process, std::int64_t now) {
  auto& until = choice.history.held_until;
  for (auto it = until.lower_bound({process, std::string()}); it != until.end() && it->first.first == process; ++it)
    if (it->second == kStillHeld) it->second = now;
}

void withdraw_winner(Choice& choice, std::int64_t now) {
  if (!choice.winner) return;
  choice.history.winner_until[*choice.winner] = now;
  choice.history.withdrawn_at = now;
  choice.winner.reset();
}

void decide_winner(Choice& choice, std::int64_t owner_call, const std::string& config) {
  const std::string undecided = undecided_answer(owner_call);
  if (choice.winner == undecided) choice.winner = config;
  rename_key(choice.history.winner_until, undecided, config);
  rename_key(choice.history.published_at, undecided, config);
  for (auto& [process, held] : choice.held)
    if (held == undecided) held = config;
  for (auto it = choice.history.held_until.begin(); it != choice.history.held_until.end();) {
    if (it->first.second != undecided) {
      ++it;
      continue;
    }
    auto node = choice.history.held_until.extract(it++);
    std::int64_t& until = choice.history.held_until[{node.key().first, config}];
    until = std::max(until, node.mapped());
  }
  for (auto& [seq, view] : choice.views)
    if (view.owned_winner == undecided) view.owned_winner = config;
}

WindowFacts window_facts(const State& state, const Choice& choice, const OpenCall& call, const CallView& view,
                         const std::string& config) {
  const std::int64_t begin = call.begin_seq;
  const KeyHistory& history = choice.history;
  WindowFacts facts;
  facts.begin_seq = begin;
  const std::set<std::string> held = held_in_window(choice, call);
  facts.winner_seen = choice.winner.has_value() || history.withdrawn_at > begin || !held.empty();
  facts.config_valid = choice.winner == config || valid_after(history.winner_until, config, begin) ||
                       held.contains(config) ||
                       (cold_in_window(choice, begin) && is_default_answer(state, call.key.kernel, config));
  // Black-box, a call can only have waited on a failed attempt when no winner was published at any
  // moment of its window (R8); one that saw a winner may have read it, and is judged by it.
  const bool may_have_waited = step_white_box(state) || !facts.winner_seen;
  if (may_have_waited) facts.waited_on_failure_seq = view.waited_on_failure_seq;
  if (facts.waited_on_failure_seq) facts.later_winner = valid_after(history.published_at, config, *facts.waited_on_failure_seq);
  const bool right = facts.waited_on_failure_seq ? facts.later_winner : facts.config_valid;
  if (right) return facts;
  const std::set<std::string> answers = answers_in_window(state, choice, call);
  for (const std::string& answer : answers) {
    const auto owner = undecided_owner(answer);
    if (!owner) continue;
    // R8's window asks for a winner published after the failure, the others for any in it.
    if (!facts.waited_on_failure_seq || valid_after(history.published_at, answer, *facts.waited_on_failure_seq))
      facts.unsettled.insert(*owner);
  }
  facts.valid_answers = shown_answers(answers);
  return facts;
}

void forget_the_past(Choice& choice, std::int64_t oldest_open_call) {
  KeyHistory& history = choice.history;
  auto too_old = [oldest_open_call](const auto& entry) { return entry.second <= oldest_open_call; };
  std::erase_if(history.winner_until, too_old);
  std::erase_if(history.published_at, too_old);
  std::erase_if(history.held_until, too_old);
  if (history.cold_until <= oldest_open_call) history.cold_until = -1;
  if (history.withdrawn_at <= oldest_open_call) history.withdrawn_at = -1;
  if (history.last_invalidate_seq <= oldest_open_call) history.last_invalidate_seq = -1;
}

}  // namespace safetune::model::detail
