// What tests need to record the reference autotuner's white-box trace and judge it by the model:
// the trace's header, one recorded call, and the verdict as test-failure text.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "impl/autotuner.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"

namespace safetune::testing {

// A white-box header that lists `kernel`'s configs, so R4 checks every attempt against them.
inline model::Header header_for(const Kernel& kernel, const ConfigSpace& space) {
  model::Header header;
  header.present = true;
  header.white_box = true;
  header.configs[kernel.name()] = space.strings();
  return header;
}

// One harness call: call_begin, `call` (the autotuner's call, made some way), call_end with its
// outcome. The config the call launched, or none when it raised.
template <class Call>
std::optional<Config> recorded(TraceRecorder& recorder, const std::string& kernel, std::string_view key, Stream& stream,
                               const Call& call) {
  recorder.call_begin(kernel, key, stream.id());
  try {
    const Config& launched = call();
    recorder.call_end(kernel, key, CallOutcome::returned(launched.str()), stream.id());
    return launched;
  } catch (const std::exception& error) {
    recorder.call_end(kernel, key, CallOutcome::raised(error.what()), stream.id());
    return std::nullopt;
  }
}

inline std::optional<Config> recorded_call(Autotuner& tuner, TraceRecorder& recorder, const std::string& kernel,
                                           const std::string& key, Stream& stream) {
  return recorded(recorder, kernel, key, stream, [&]() -> const Config& { return tuner.call({key, stream}); });
}

// The same call through a key's handle.
inline std::optional<Config> recorded_call(const KeyHandle& handle, TraceRecorder& recorder, const std::string& kernel,
                                           Stream& stream) {
  return recorded(recorder, kernel, handle.key(), stream, [&]() -> const Config& { return handle.call(stream); });
}

// The model's verdict: one "R<n>: message" line per violation.
inline std::string violation_text(const model::CheckResult& result) {
  std::string text;
  for (const auto& violation : result.violations) {
    text += std::string(model::rule_id(violation.rule)) + ": " + violation.message + "\n";
  }
  return text;
}

}  // namespace safetune::testing
