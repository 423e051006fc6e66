// A key's history of valid answers (KeyHistory in model.h), and what it says of a launch window.
//
// A call may have read its key's state at any moment from its call_begin (seq b) to its launch,
// so a launched config is right when it was a valid answer at some moment of that window. Rather
// than collect, in every open call, every answer that became valid (a cost of open calls times
// publications), the key remembers when each answer last stopped being valid: X was valid at
// some moment of [b, now] exactly when it is valid now or stopped being valid after b.
#include <algorithm>

#include "model_internal.h"

namespace safetune::model::detail {

namespace {

bool valid_after(const std::map<std::string, std::int64_t>& until, const std::string& config,
                 std::int64_t begin) {
  auto it = until.find(config);
  return it != until.end() && it->second > begin;
}

// Whether the key had no published winner at some moment of [begin, now].
bool cold_in_window(const KeyState& key, std::int64_t begin) {
  return !key.winner || key.history.cold_until > begin;
}

// The valid answers of the window, for a message (computed only when a launch looks wrong).
std::string window_answers(const State& state, const KeyState& key, const OpenCall& call) {
  std::set<std::string> answers;
  if (key.winner) answers.insert(*key.winner);
  for (const auto& [config, until] : key.history.winner_until)
    if (until > call.begin_seq) answers.insert(config);
  if (cold_in_window(key, call.begin_seq))
    for (const std::string& config : default_answers(state, call.key.kernel)) answers.insert(config);
  if (answers.empty()) return "none";
  std::string text;
  std::size_t shown = 0;
  for (const std::string& config : answers) {
    if (++shown > 8) return text + " | ... (" + std::to_string(answers.size() - 8) + " more)";
    text += (text.empty() ? "" : " | ") + printable(config);
  }
  return text;
}

}  // namespace

void publish_winner(KeyState& key, const std::string& winner, std::int64_t now, std::int64_t published_seq) {
  KeyHistory& history = key.history;
  if (key.winner && *key.winner != winner) history.winner_until[*key.winner] = now;
  if (!key.winner) history.cold_until = now;
  key.winner = winner;
  std::int64_t& published = history.published_at[winner];
  published = std::max(published, published_seq);
}

void withdraw_winner(KeyState& key, std::int64_t now) {
  if (!key.winner) return;
  key.history.winner_until[*key.winner] = now;
  key.history.withdrawn_at = now;
  key.winner.reset();
}

WindowFacts window_facts(const State& state, const KeyState& key, const OpenCall& call,
                         const std::string& config) {
  const std::int64_t begin = call.begin_seq;
  WindowFacts facts;
  facts.begin_seq = begin;
  facts.winner_seen = key.winner.has_value() || key.history.withdrawn_at > begin;
  facts.config_valid = key.winner == config || valid_after(key.history.winner_until, config, begin) ||
                       (cold_in_window(key, begin) && is_default_answer(state, call.key.kernel, config));
  facts.waited_on_failure_seq = call.waited_on_failure_seq;
  if (call.waited_on_failure_seq)
    facts.later_winner = valid_after(key.history.published_at, config, *call.waited_on_failure_seq);
  const bool right = facts.waited_on_failure_seq ? facts.later_winner : facts.config_valid;
  if (!right) facts.valid_answers = window_answers(state, key, call);
  return facts;
}

}  // namespace safetune::model::detail
