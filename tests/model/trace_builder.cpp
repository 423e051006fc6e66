#include "trace_builder.h"

namespace safetune::model::testing {

TraceBuilder::TraceBuilder(bool white_box) {
  trace_.header.present = true;
  trace_.header.white_box = white_box;
}

TraceBuilder& TraceBuilder::configs(std::vector<std::string> space) {
  trace_.header.configs["add"] = std::move(space);
  return *this;
}

TraceBuilder& TraceBuilder::fallback_policy(std::string fallback) {
  trace_.header.policy.wait = WaitPolicy::Fallback;
  trace_.header.policy.fallback = std::move(fallback);
  return *this;
}

Event& TraceBuilder::add(int thread, EventKind kind, const std::string& key) {
  Event& e = trace_.events.emplace_back();
  e.seq = last_seq();
  e.thread = Name::integer(thread);
  e.kind = kind;
  e.kernel = "add";
  e.key = key;
  return e;
}

TraceBuilder& TraceBuilder::call_begin(int thread, const std::string& key) {
  add(thread, EventKind::CallBegin, key);
  return *this;
}
TraceBuilder& TraceBuilder::call_end(int thread, const std::string& config, const std::string& key) {
  add(thread, EventKind::CallEnd, key).config = config;
  return *this;
}
TraceBuilder& TraceBuilder::call_error(int thread, const std::string& key) {
  add(thread, EventKind::CallEnd, key).error = "failed";
  return *this;
}
TraceBuilder& TraceBuilder::tune_begin(int thread, const std::string& key) {
  add(thread, EventKind::TuneBegin, key);
  return *this;
}
TraceBuilder& TraceBuilder::tune_end(int thread, const std::string& config, const std::string& key) {
  add(thread, EventKind::TuneEnd, key).config = config;
  return *this;
}
TraceBuilder& TraceBuilder::tune_error(int thread, const std::string& key) {
  add(thread, EventKind::TuneEnd, key).error = "all configs failed";
  return *this;
}
TraceBuilder& TraceBuilder::bench(int thread, const std::string& config, double time_ns,
                                  const std::string& key) {
  Event& e = add(thread, EventKind::Bench, key);
  e.config = config;
  e.time_ns = time_ns;
  return *this;
}
TraceBuilder& TraceBuilder::bench_error(int thread, const std::string& config, const std::string& key) {
  Event& e = add(thread, EventKind::Bench, key);
  e.config = config;
  e.error = "launch failed";
  return *this;
}
TraceBuilder& TraceBuilder::wait_begin(int thread, const std::string& key) {
  add(thread, EventKind::WaitBegin, key);
  return *this;
}
TraceBuilder& TraceBuilder::wait_end(int thread, const std::string& key) {
  add(thread, EventKind::WaitEnd, key);
  return *this;
}
TraceBuilder& TraceBuilder::launch(int thread, const std::string& config, const std::string& key) {
  add(thread, EventKind::Launch, key).config = config;
  return *this;
}
TraceBuilder& TraceBuilder::invalidate(const std::string& key) { return invalidate_end(0, key); }
TraceBuilder& TraceBuilder::invalidate_begin(int thread, const std::string& key) {
  add(thread, EventKind::InvalidateBegin, key);
  return *this;
}
TraceBuilder& TraceBuilder::invalidate_end(int thread, const std::string& key) {
  add(thread, EventKind::Invalidate, key);
  return *this;
}

}  // namespace safetune::model::testing
