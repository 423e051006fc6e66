// How the model shows its state in violation reports (state_before) and how it phrases them.
#include <string>

#include "model_internal.h"

namespace safetune::model::detail {

std::string thread_text(const ThreadName& thread) { return "thread " + thread.show(); }

std::string show_configs(const std::set<std::string>& configs) {
  if (configs.empty()) return "none";
  std::string text;
  for (const auto& config : configs) text += (text.empty() ? "" : " | ") + config;
  return text;
}

namespace {

std::string describe_attempt(const Attempt& attempt) {
  std::string benched;
  for (const auto& bench : attempt.benches) benched += (benched.empty() ? "" : " ") + bench.config;
  return "Tuning{owner " + thread_text(attempt.owner) + ", attempt " + std::to_string(attempt.id) +
         ", benched [" + benched + "]}";
}

}  // namespace

std::string describe_key(const State& state, const KeyId& key) {
  auto it = state.keys.find(key);
  if (it == state.keys.end()) return key.show() + ": Cold";
  const KeyState& ks = it->second;
  std::string text = key.show() + ":";
  for (const auto& attempt : ks.in_flight) text += " " + describe_attempt(attempt);
  if (ks.winner) text += " Tuned{" + *ks.winner + "}";
  if (ks.in_flight.empty() && !ks.winner) text += " Cold";
  return text;
}

std::string describe_thread(const State& state, const ThreadName& thread) {
  std::string text = thread_text(thread) + ": open calls [";
  auto it = state.threads.find(thread);
  if (it != state.threads.end()) {
    bool first = true;
    for (const auto& call : it->second) {
      text += (first ? "" : ", ") + call.key.show() + " from seq " +
              std::to_string(call.window.begin_seq);
      if (call.reentrant) text += " (re-entrant)";
      if (call.wait_open_seq) text += " (waiting)";
      first = false;
    }
  }
  return text + "]";
}

std::string describe(const State& state, const KeyId& key, const ThreadName& thread) {
  return describe_key(state, key) + "\n" + describe_thread(state, thread);
}

void report_with_state(std::vector<Violation>& found, Rule rule, std::vector<std::int64_t> seqs,
                       const std::string& message, std::string state_before) {
  // The message is the sentence alone: every report prints the rule id and name beside it.
  found.push_back(Violation{rule, std::move(seqs), message, std::move(state_before)});
}

void report(Step& step, Rule rule, std::vector<std::int64_t> seqs, const std::string& message) {
  report_with_state(step.found, rule, std::move(seqs), message,
                    describe(step.state, key_of(step.event), step.event.thread));
}

}  // namespace safetune::model::detail
