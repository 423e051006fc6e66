// Implementation details of the model (model.h), shared by model*.cpp. Not a public API.
//
// Every handler works on one Step: the state being advanced in place (step() owns it), the event,
// and the violations found so far. Handlers check first and mutate after, so that the state_before
// of each violation really is the state just before the breaking event.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model.h"

namespace safetune::model::detail {

struct Step {
  State& state;
  const Event& event;
  std::vector<Violation>& found;
};

// --- reporting (model_describe.cpp) ---
std::string show_configs(const std::set<std::string>& configs);
std::string describe_key(const State& state, const KeyId& key);
std::string describe_thread(const State& state, const ThreadName& thread);
// The key's state and the thread's open calls: one or two lines.
std::string describe(const State& state, const KeyId& key, const ThreadName& thread);
// Appends a violation; the message is prefixed with the rule id and name.
void report(Step& step, Rule rule, std::vector<std::int64_t> seqs, const std::string& message);
void report_with_state(std::vector<Violation>& found, Rule rule, std::vector<std::int64_t> seqs,
                       const std::string& message, std::string state_before);
std::string thread_text(const ThreadName& thread);  // "thread 3"

// --- shared state helpers (model.cpp) ---
KeyId key_of(const Event& event);
// Valid answers when no winner is published: the fallback under wait policy fallback, the only
// config when the header lists exactly one for the kernel.
std::set<std::string> default_answers(const Header& header, const std::string& kernel);
std::set<std::string> valid_answers(const State& state, const KeyId& key);
// The innermost open call of the event's thread when it names the event's kernel and key;
// otherwise reports R1 and returns nullptr (the caller then ignores the event).
OpenCall* require_call(Step& step);
// Every open call on `key`, on any thread.
template <typename Visit>
void for_each_open_call(State& state, const KeyId& key, Visit visit) {
  for (auto& [thread, calls] : state.threads)
    for (auto& call : calls)
      if (call.key == key) visit(thread, call);
}

// --- attempts: R2, R3, R4, publication, R8 marking (model_attempt.cpp) ---
void on_tune_begin(Step& step);
void on_bench(Step& step);
void on_tune_end(Step& step);
// Black-box: the owner's launch ends its attempt with success; its call end without a launch
// ends it with failure.
void black_box_attempt_succeeds(Step& step, OpenCall& owner_call, const std::string& winner);
void black_box_attempt_fails(Step& step, OpenCall& owner_call);
// Drops the attempt that `call` owns without judging it (R1 recovery: the call ended under it).
void abandon_attempt(State& state, const ThreadName& thread, const OpenCall& call);

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
