// A trace of one Relacy execution, recorded in execution order, and its verdict by the model.
//
// Relacy runs every test thread as a fiber of one OS thread and switches fibers only at its own
// operations (rl::mutex, rl::atomic, rl::var, ...). record() performs none, so each event is
// appended atomically with respect to the schedule, and the order of the vector is the order in
// which the events happened in that execution: the seq order the model needs. TraceRecorder is not
// used because it names threads through thread_local storage, which all fibers share.
// A thread is named by the integer that `current_thread` returns (its Relacy index: this file does
// not include Relacy, whose headers belong to one translation unit); its stream has that number.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/observer.h"
#include "model/checker.h"
#include "model/event.h"

namespace safetune::formal {

class FiberTrace : public Observer {
 public:
  using ThreadIndex = unsigned (*)();
  FiberTrace(model::Header header, ThreadIndex current_thread)
      : header_(std::move(header)), current_thread_(current_thread) {}

  void record(const ObservedEvent& event) noexcept override;
  void call_begin(std::string_view kernel, std::string_view key, int thread);
  void call_end(std::string_view kernel, std::string_view key, int thread,
                const std::string* config, const std::string* error);
  // One call of `kernel` on `key` by `thread`: call_begin, then `call()` (returns the launched
  // Config, or throws), then call_end with the config or the exception's message. Returns the
  // launched config, or nothing when the call raised.
  template <class Call>
  std::optional<std::string> recorded_call(std::string_view kernel, std::string_view key,
                                           int thread, Call&& call);

  // The model's verdict on the trace so far; empty when it breaks no rule, otherwise every
  // violation and the whole trace, ready to print.
  std::string violations() const;

 private:
  void append(model::Event event);

  model::Header header_;
  ThreadIndex current_thread_;
  std::vector<model::Event> events_;
};

template <class Call>
std::optional<std::string> FiberTrace::recorded_call(std::string_view kernel, std::string_view key,
                                                     int thread, Call&& call) {
  call_begin(kernel, key, thread);
  std::optional<std::string> config;
  std::optional<std::string> error;
  try {
    config = call().str();
  } catch (const std::exception& e) {  // no Relacy operation in a handler (fibers share it)
    error = e.what();
  }
  call_end(kernel, key, thread, config ? &*config : nullptr, error ? &*error : nullptr);
  return config;
}

// The header of a white-box trace of kernel `kernel` with `configs`, under `policy`.
model::Header white_box_header(const std::string& kernel, std::vector<std::string> configs,
                               model::Policy policy);

}  // namespace safetune::formal
