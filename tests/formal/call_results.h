// What each call of one Relacy execution returned, by thread, so that a suite asserts the
// outcome its scenario promises as well as the model's verdict: a trace that passes the model
// does not say that the calls returned the winner (an autotuner that raised at every call would
// break only R14).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace safetune::formal {

// A call's result: the launched config, or nothing when the call raised.
using CallResult = std::optional<std::string>;

template <std::size_t Threads>
class CallResults {
 public:
  // Each Relacy thread adds only to its own list: no two threads touch one.
  void add(unsigned thread, CallResult result) { by_thread_.at(thread).push_back(std::move(result)); }

  // Whether every call of every thread returned one of `allowed`.
  bool every_call_in(std::initializer_list<CallResult> allowed) const {
    for (const auto& results : by_thread_)
      for (const CallResult& result : results)
        if (std::find(allowed.begin(), allowed.end(), result) == allowed.end()) return false;
    return true;
  }
  // Whether each thread's last call (its top-level one, when it nests: a nested call ends
  // before the call it is nested in) returned `config`.
  bool every_thread_ended_with(const std::string& config) const {
    return std::all_of(by_thread_.begin(), by_thread_.end(),
                       [&](const auto& results) { return !results.empty() && results.back() == config; });
  }
  // How many calls, of every thread, returned `result`.
  std::size_t count(const CallResult& result) const {
    std::size_t n = 0;
    for (const auto& results : by_thread_) n += static_cast<std::size_t>(std::count(results.begin(), results.end(), result));
    return n;
  }
  // "thread 0: BLOCK=128, raised; thread 1: BLOCK=128", for a failure's message.
  std::string show() const {
    std::string text;
    for (std::size_t thread = 0; thread < Threads; ++thread) {
      text += (thread == 0 ? "thread " : "; thread ") + std::to_string(thread) + ":";
      for (std::size_t i = 0; i < by_thread_[thread].size(); ++i)
        text += (i == 0 ? " " : ", ") + by_thread_[thread][i].value_or("raised");
    }
    return text;
  }

 private:
  std::array<std::vector<CallResult>, Threads> by_thread_{};
};

}  // namespace safetune::formal
