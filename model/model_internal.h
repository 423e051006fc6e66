// Implementation details of the model (model.h), shared by model*.cpp. Not a public API.
//
// Every handler works on one Step: the state being advanced in place (step() owns it), the event,
// and the violations found so far. Handlers check first and mutate after, so that the state_before
// of each violation really is the state just before the breaking event.
//
// Cost: every handler touches a bounded number of map entries (the event's thread, its innermost
// call, its key) plus, for a failed attempt, the calls open on its key. Nothing scans every
// thread, every call or every config, so checking stays n log n in every dimension of a trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.h"
#include "printable.h"

namespace safetune::model::detail {

struct Step {
  State& state;
  const Event& event;
  std::vector<Violation>& found;
};

// --- reporting (model_describe.cpp) ---
std::string seq_text(std::int64_t seq);            // "seq 7"
std::string thread_text(const ThreadName& thread);  // "thread 3"
std::string describe_key(const State& state, const KeyId& key);
std::string describe_thread(const State& state, const ThreadName& thread);
// The key's state and the thread's open calls: two lines, each of bounded length.
std::string describe(const State& state, const KeyId& key, const ThreadName& thread);
// Appends a violation; reports print the rule id and name beside the message.
void report(Step& step, Rule rule, std::vector<std::int64_t> seqs, const std::string& message);
void report_with_state(std::vector<Violation>& found, Rule rule, std::vector<std::int64_t> seqs,
                       const std::string& message, std::string state_before);

// --- calls and keys (model.cpp) ---
KeyId key_of(const Event& event);
// The default answers (valid when no winner is published): the fallback under wait policy
// fallback, the only config when the header lists exactly one for the kernel.
bool is_default_answer(const State& state, const std::string& kernel, const std::string& config);
std::vector<std::string> default_answers(const State& state, const std::string& kernel);
// The innermost open call of `thread`, or null when it has none.
OpenCall* innermost_call(State& state, const ThreadName& thread);
// The innermost open call of the event's thread when it names the event's kernel and key;
// otherwise reports R1 and returns nullptr (the caller then ignores the event).
OpenCall* require_call(Step& step);
// The header's config space of `kernel` as a set, or null when the header lists none.
const std::set<std::string>* listed_configs(const State& state, const std::string& kernel);

// --- the key's history of valid answers (model_history.cpp) ---
// The winner becomes the key's published winner at the current event; `published_seq` is the
// moment it counts as published from (R8's "later winner"; earlier than the event in black-box).
void publish_winner(KeyState& key, const std::string& winner, std::int64_t now, std::int64_t published_seq);
// An invalidate that takes effect: the key has no published winner from `now` on.
void withdraw_winner(KeyState& key, std::int64_t now);
// What `call`'s window, from its call_begin to now, says of a launch of `config`.
WindowFacts window_facts(const State& state, const KeyState& key, const OpenCall& call,
                         const std::string& config);

// --- attempts: R2, R3, R4, publication, R8 marking (model_attempt.cpp) ---
void on_tune_begin(Step& step);
void on_bench(Step& step);
void on_tune_end(Step& step);
// Black-box: the owner's launch ends its attempt with success; its call end without a launch
// ends it with failure.
void black_box_attempt_succeeds(Step& step, OpenCall& owner_call, const std::string& winner);
void black_box_attempt_fails(Step& step, OpenCall& owner_call);
// Drops the attempt that `call` owns without judging it (R1 recovery: the call ended under it).
void abandon_attempt(State& state, const OpenCall& call);

// --- launches: R5, R6, R8, R9 (model_launch.cpp) ---
void on_launch(Step& step);
// An attempt on `key` ended: settle the pending launches that waited for it. `published_seq` is
// set when it succeeded (the moment its winner became valid).
void settle_pending(Step& step, const KeyId& key, std::int64_t attempt_id,
                    const std::optional<std::string>& winner,
                    std::optional<std::int64_t> published_seq);
// End of trace: judge every pending launch as if its attempts never published.
void settle_all_pending(State& state, std::vector<Violation>& found);

}  // namespace safetune::model::detail
