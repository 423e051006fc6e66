// What tests need to record the reference autotuner's white-box trace and judge it by the model:
// the trace's header, one recorded call, and the verdict as test-failure text.
#pragma once

#include <exception>
#include <optional>
#include <string>

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

// One harness call: call_begin, the autotuner's call, call_end with its outcome.
// The config the call launched, or none when it raised.
inline std::optional<Config> recorded_call(Autotuner& tuner, TraceRecorder& recorder, const std::string& kernel,
                                           const std::string& key, Stream& stream) {
  recorder.call_begin(kernel, key, stream.id());
  try {
    const Config& launched = tuner.call({key, stream});
    recorder.call_end(kernel, key, CallOutcome::returned(launched.str()), stream.id());
    return launched;
  } catch (const std::exception& error) {
    recorder.call_end(kernel, key, CallOutcome::raised(error.what()), stream.id());
    return std::nullopt;
  }
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
