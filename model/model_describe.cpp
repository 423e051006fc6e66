// How the model shows its state in violation reports (state_before) and how it phrases them.
//
// Every line is bounded whatever the trace: values go through printable(), and lists (a
// thread's open calls, an attempt's benched configs) show their two ends and a count of the
// rest, so that a report on a trace nested 10^5 deep stays short.
#include <string>

#include "model_internal.h"

namespace safetune::model {

std::string KeyId::show() const { return printable(kernel) + "[" + printable(key) + "]"; }

namespace detail {

namespace {

// Lists shown in full up to this many items; longer ones show their first and last few.
constexpr std::size_t kShownItems = 8;
constexpr std::size_t kShownHead = 3;

// Joins item(i) for i in [0, count), or the first kShownHead and the last items around a
// "... (N more)" when there are more than kShownItems.
template <typename Item>
std::string bounded_list(std::size_t count, const char* separator, Item item) {
  std::string text;
  auto add = [&](std::size_t i) { text += (text.empty() ? "" : separator) + item(i); };
  if (count <= kShownItems) {
    for (std::size_t i = 0; i < count; ++i) add(i);
    return text;
  }
  const std::size_t tail = kShownItems - kShownHead;
  for (std::size_t i = 0; i < kShownHead; ++i) add(i);
  text += separator + std::string("... (") + std::to_string(count - kShownItems) + " more)";
  for (std::size_t i = count - tail; i < count; ++i) add(i);
  return text;
}

std::string describe_attempt(const State& state, const Attempt& attempt) {
  std::string benched;
  if (auto it = state.benches.find(attempt.id); attempt.id != 0 && it != state.benches.end()) {
    const auto& benches = it->second.benches;
    benched = bounded_list(benches.size(), " ", [&](std::size_t i) { return printable(benches[i].config); });
  }
  const std::string id = attempt.id != 0 ? std::to_string(attempt.id) : "begun before its first bench";
  return "Tuning{owner " + thread_text(attempt.owner) + ", attempt " + id + ", benched [" + benched + "]}";
}

std::string describe_call(const OpenCall& call, const CallView* view) {
  std::string text = call.key.show() + " from seq " + std::to_string(call.begin_seq);
  if (view && view->reentrant) text += " (re-entrant)";
  if (call.wait_open_seq) text += " (waiting)";
  return text;
}

std::string describe_key(const State& state, const KeyId& key, const Choice* choice) {
  if (choice == nullptr) return key.show() + ": Cold";
  std::string text = key.show() + ":";
  const std::string attempts = bounded_list(choice->in_flight.size(), " ", [&](std::size_t i) {
    return describe_attempt(state, choice->in_flight[i]);
  });
  if (!attempts.empty()) text += " " + attempts;
  if (choice->winner) text += " Tuned{" + answer_text(*choice->winner) + "}";
  if (choice->in_flight.empty() && !choice->winner) text += " Cold";
  return text;
}

std::string describe_thread(const State& state, const ThreadName& thread, const Choice* choice) {
  std::string text = thread_text(thread) + ": open calls [";
  if (auto it = state.threads.find(thread); it != state.threads.end()) {
    const std::vector<std::int64_t>& stack = it->second;
    text += bounded_list(stack.size(), ", ", [&](std::size_t i) {
      const OpenCall& call = state.calls.at(stack[i]);
      const CallView* view = nullptr;
      if (choice)
        if (auto found = choice->views.find(call.begin_seq); found != choice->views.end()) view = &found->second;
      return describe_call(call, view);
    });
  }
  return text + "]";
}

}  // namespace

std::string seq_text(std::int64_t seq) { return "seq " + std::to_string(seq); }

std::string thread_text(const ThreadName& thread) { return "thread " + thread.show(); }

std::string answer_text(const std::string& answer) {
  if (const auto owner = undecided_owner(answer)) return "(the winner of the attempt of the call at seq " + std::to_string(*owner) + ")";
  return printable(answer);
}

std::string describe(const State& state, const KeyId& key, const ThreadName& thread, const Choice* choice) {
  if (choice == nullptr)
    if (auto it = state.keys.find(key); it != state.keys.end()) choice = &it->second.choices.front();
  return describe_key(state, key, choice) + "\n" + describe_thread(state, thread, choice);
}

void report_with_state(std::vector<Violation>& found, Rule rule, std::vector<std::int64_t> seqs,
                       const std::string& message, std::string state_before) {
  // The message is the sentence alone: every report prints the rule id and name beside it.
  found.push_back(Violation{rule, std::move(seqs), message, std::move(state_before)});
}

void report(StepContext& step, Rule rule, std::vector<std::int64_t> seqs, const std::string& message) {
  report_with_state(step.found, rule, std::move(seqs), message,
                    describe(step.state, key_of(step.event), thread_of(step.event), step.choice));
}

void report_in_choice(StepContext& step, Rule rule, std::vector<std::int64_t> seqs, const std::string& message) {
  Choice& choice = *step.choice;
  report_with_state(choice.found, rule, std::move(seqs), message,
                    describe(step.state, key_of(step.event), thread_of(step.event), &choice));
  ++choice.violation_count;
}

}  // namespace detail
}  // namespace safetune::model
