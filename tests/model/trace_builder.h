// A small fluent builder of in-memory traces for direct tests of the model: seqs are numbered
// 1, 2, ... in the order events are added; every event is on kernel "add".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/event.h"

namespace safetune::model::testing {

class TraceBuilder {
 public:
  explicit TraceBuilder(bool white_box);
  TraceBuilder& configs(std::vector<std::string> space);
  TraceBuilder& fallback_policy(std::string fallback);

  TraceBuilder& call_begin(int thread, const std::string& key = "k");
  TraceBuilder& call_end(int thread, const std::string& config, const std::string& key = "k");
  TraceBuilder& call_error(int thread, const std::string& key = "k");
  TraceBuilder& tune_begin(int thread, const std::string& key = "k");
  TraceBuilder& tune_end(int thread, const std::string& config, const std::string& key = "k");
  TraceBuilder& tune_error(int thread, const std::string& key = "k");
  TraceBuilder& bench(int thread, const std::string& config, double time_ns, const std::string& key = "k");
  TraceBuilder& bench_error(int thread, const std::string& config, const std::string& key = "k");
  TraceBuilder& wait_begin(int thread, const std::string& key = "k");
  TraceBuilder& wait_end(int thread, const std::string& key = "k");
  TraceBuilder& launch(int thread, const std::string& config, const std::string& key = "k");
  TraceBuilder& invalidate(const std::string& key = "k");  // on thread 0
  TraceBuilder& invalidate_begin(int thread, const std::string& key = "k");
  TraceBuilder& invalidate_end(int thread, const std::string& key = "k");  // its `invalidate`

  const Trace& trace() const { return trace_; }
  std::int64_t last_seq() const { return static_cast<std::int64_t>(trace_.events.size()); }

 private:
  Event& add(int thread, EventKind kind, const std::string& key);
  Trace trace_;
};

}  // namespace safetune::model::testing
