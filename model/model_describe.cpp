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

std::string describe_attempt(const Attempt& attempt) {
  const std::string benched = bounded_list(attempt.benches.size(), " ", [&](std::size_t i) {
    return printable(attempt.benches[i].config);
  });
  return "Tuning{owner " + thread_text(attempt.owner) + ", attempt " + std::to_string(attempt.id) +
         ", benched [" + benched + "]}";
}

std::string describe_call(const OpenCall& call) {
  std::string text = call.key.show() + " from seq " + std::to_string(call.begin_seq);
  if (call.reentrant) text += " (re-entrant)";
  if (call.wait_open_seq) text += " (waiting)";
  return text;
}

}  // namespace

std::string seq_text(std::int64_t seq) { return "seq " + std::to_string(seq); }

std::string thread_text(const ThreadName& thread) { return "thread " + thread.show(); }

std::string describe_key(const State& state, const KeyId& key) {
  auto it = state.keys.find(key);
  if (it == state.keys.end()) return key.show() + ": Cold";
  const KeyState& ks = it->second;
  std::string text = key.show() + ":";
  const std::string attempts = bounded_list(ks.in_flight.size(), " ", [&](std::size_t i) {
    return describe_attempt(ks.in_flight[i]);
  });
  if (!attempts.empty()) text += " " + attempts;
  if (ks.winner) text += " Tuned{" + printable(*ks.winner) + "}";
  if (ks.in_flight.empty() && !ks.winner) text += " Cold";
  return text;
}

std::string describe_thread(const State& state, const ThreadName& thread) {
  std::string text = thread_text(thread) + ": open calls [";
  if (auto it = state.threads.find(thread); it != state.threads.end()) {
    const std::vector<std::int64_t>& stack = it->second;
    text += bounded_list(stack.size(), ", ", [&](std::size_t i) {
      return describe_call(state.calls.at(stack[i]));
    });
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

}  // namespace detail
}  // namespace safetune::model
