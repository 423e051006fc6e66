// Writing traces: JSON Lines, version 1 (docs/trace-format.md), with nlohmann_json (writing is
// never on a hot path: the recorder keeps events in memory and the run writes them at its end).
#include "trace_writer.h"

#include <charconv>
#include <ostream>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

namespace safetune::model {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kFormat = "safetune-trace";
constexpr std::int64_t kVersion = 1;

Json name_json(const Name& name) {
  if (name.is_string) return name.text;
  std::int64_t value = 0;
  const char* end = name.text.data() + name.text.size();
  const auto [stop, error] = std::from_chars(name.text.data(), end, value);
  if (error != std::errc() || stop != end || name.text.empty())
    throw std::invalid_argument("integer name \"" + name.text + "\" is not a decimal integer");
  return value;
}

std::string dump(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

nlohmann::ordered_json fallback_json(const Policy& policy) {
  if (policy.fallback && !policy.fallback_by_kernel.empty())
    throw std::invalid_argument("a policy with both one fallback and per-kernel fallbacks cannot be written");
  if (policy.fallback) return *policy.fallback;
  return policy.fallback_by_kernel;
}

}  // namespace

void write_header(std::ostream& out, const Header& header) {
  nlohmann::ordered_json line;
  line["format"] = kFormat;
  line["version"] = kVersion;
  line["policy"]["wait"] = policy_name(header.policy.wait);
  line["policy"]["reentry"] = policy_name(header.policy.reentry);
  if (header.policy.fallback || !header.policy.fallback_by_kernel.empty())
    line["policy"]["fallback"] = fallback_json(header.policy);
  line["configs"] = nlohmann::ordered_json::object();
  for (const auto& [kernel, space] : header.configs) line["configs"][kernel] = space;
  line["white_box"] = header.white_box;
  if (header.global_seq) line["seq_scope"] = "global";
  if (header.fresh_store) line["fresh_store"] = true;
  if (header.live_owners) line["live_owners"] = true;
  out << dump(line) << '\n';
}

void write_event(std::ostream& out, const Event& event) {
  nlohmann::ordered_json line;
  line["seq"] = event.seq;
  if (event.process) line["process"] = name_json(*event.process);
  line["thread"] = name_json(event.thread);
  line["event"] = event_name(event.kind);
  if (event.kind != EventKind::Exit) {
    line["kernel"] = event.kernel;
    line["key"] = event.key;
  }
  if (event.config) line["config"] = *event.config;
  if (event.error) line["error"] = *event.error;
  if (event.time_ns) line["time_ns"] = *event.time_ns;
  if (event.stream) line["stream"] = name_json(*event.stream);
  if (event.t_ns) line["t_ns"] = *event.t_ns;
  out << dump(line) << '\n';
}

void write_trace(std::ostream& out, const Trace& trace) {
  write_header(out, trace.header);
  for (const Event& event : trace.events) write_event(out, event);
}

}  // namespace safetune::model
