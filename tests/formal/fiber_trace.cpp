// A trace of one Relacy execution (fiber_trace.h).
#include "tests/formal/fiber_trace.h"

#include <sstream>

#include "model/violation.h"

namespace safetune::formal {

void FiberTrace::append(model::Event event) {
  event.seq = static_cast<std::int64_t>(events_.size()) + 1;
  events_.push_back(std::move(event));
}

void FiberTrace::record(const ObservedEvent& event) noexcept {
  model::Event out;
  out.thread = model::Name::integer(current_thread_());
  out.kind = event.kind;
  out.kernel = std::string(event.kernel);
  out.key = std::string(event.key);
  if (event.config != nullptr) out.config = *event.config;
  if (event.error != nullptr) out.error = *event.error;
  out.time_ns = event.time_ns;
  if (event.stream >= 0) out.stream = model::Name::integer(event.stream);
  append(std::move(out));
}

void FiberTrace::call_begin(std::string_view kernel, std::string_view key, int thread) {
  model::Event out;
  out.thread = model::Name::integer(thread);
  out.kind = model::EventKind::CallBegin;
  out.kernel = std::string(kernel);
  out.key = std::string(key);
  out.stream = model::Name::integer(thread);
  append(std::move(out));
}

void FiberTrace::call_end(std::string_view kernel, std::string_view key, int thread,
                          const std::string* config, const std::string* error) {
  model::Event out;
  out.thread = model::Name::integer(thread);
  out.kind = model::EventKind::CallEnd;
  out.kernel = std::string(kernel);
  out.key = std::string(key);
  if (config != nullptr) out.config = *config;
  if (error != nullptr) out.error = *error;
  out.stream = model::Name::integer(thread);
  append(std::move(out));
}

namespace {

std::string show(const model::Event& event) {
  std::ostringstream out;
  out << event.seq << " thread " << event.thread.show() << " "
      << model::event_name(event.kind) << " " << event.kernel << "[" << event.key << "]";
  if (event.config) out << " config=" << *event.config;
  if (event.time_ns) out << " time_ns=" << *event.time_ns;
  if (event.error) out << " error=\"" << *event.error << "\"";
  return out.str();
}

}  // namespace

std::string FiberTrace::violations() const {
  const model::CheckResult result = model::check(model::Trace{header_, events_});
  if (result.ok()) return {};
  std::ostringstream out;
  for (const model::Violation& violation : result.violations) {
    out << model::rule_id(violation.rule) << " " << model::rule_name(violation.rule) << ": "
        << violation.message << "\n";
  }
  out << "trace of this execution:\n";
  for (const model::Event& event : events_) out << "  " << show(event) << "\n";
  return out.str();
}

model::Header white_box_header(const std::string& kernel, std::vector<std::string> configs,
                               model::Policy policy) {
  model::Header header;
  header.present = true;
  header.white_box = true;
  header.policy = std::move(policy);
  header.configs[kernel] = std::move(configs);
  return header;
}

}  // namespace safetune::formal
