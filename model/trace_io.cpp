#include "trace_io.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "config_text.h"

namespace safetune::model {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kFormat = "safetune-trace";
constexpr std::int64_t kVersion = 1;
constexpr std::size_t kMaxShown = 80;  // fuzzed values can be huge: messages show a prefix

// Thrown only inside this file, while one line is being read; read_trace() adds the line number
// and returns it as an InputError. Nothing outside sees it.
struct LineError {
  std::string message;
};

[[noreturn]] void fail(std::string message) { throw LineError{std::move(message)}; }

// ---------------------------------------------------------------------------------------------
// Showing values in messages.

// Cuts at a UTF-8 character boundary, so that messages stay valid UTF-8 (tools dump them as JSON).
std::string shortened(std::string text) {
  if (text.size() <= kMaxShown) return text;
  std::size_t cut = kMaxShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string shown(const Json& value) { return shortened(value.dump(-1, ' ', false, Json::error_handler_t::replace)); }

std::string field(std::string_view path) { return "field \"" + std::string(path) + "\""; }

[[noreturn]] void fail_field(std::string_view path, const std::string& what) {
  fail(field(path) + ": " + what);
}

// ---------------------------------------------------------------------------------------------
// Typed access to JSON values. Every accessor checks the type before get<>(), so no nlohmann
// type_error can escape; each failure names the field path and the offending value.

const Json* find(const Json& object, std::string_view name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

const Json& require(const Json& object, std::string_view name) {
  const Json* value = find(object, name);
  if (value == nullptr) fail(field(name) + " is missing");
  return *value;
}

std::int64_t as_int64(const Json& value, std::string_view path) {
  if (value.is_number_unsigned()) {
    const auto raw = value.get<std::uint64_t>();
    if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail_field(path, shown(value) + " is too large (the largest allowed is 9223372036854775807)");
    return static_cast<std::int64_t>(raw);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  fail_field(path, shown(value) + " is not an integer");
}

const std::string& as_string(const Json& value, std::string_view path) {
  if (!value.is_string()) fail_field(path, shown(value) + " is not a string");
  return value.get_ref<const std::string&>();
}

const Json& as_object(const Json& value, std::string_view path) {
  if (!value.is_object()) fail_field(path, shown(value) + " is not an object");
  return value;
}

Name as_name(const Json& value, std::string_view path) {
  if (value.is_string()) return Name::string(value.get<std::string>());
  if (value.is_number_integer()) return Name::integer(as_int64(value, path));
  fail_field(path, shown(value) + " is not an integer or a string");
}

std::string as_config(const Json& value, std::string_view path) {
  const std::string& text = as_string(value, path);
  if (auto problem = config_text_problem(text)) fail_field(path, shown(value) + " is not a canonical config: " + *problem);
  return text;
}

double as_time_ns(const Json& value, std::string_view path) {
  if (!value.is_number()) fail_field(path, shown(value) + " is not a number");
  const double time = value.get<double>();
  if (!std::isfinite(time)) fail_field(path, shown(value) + " is not a finite number");
  if (time < 0) fail_field(path, shown(value) + " is negative");
  return time;
}

// ---------------------------------------------------------------------------------------------
// Lines.

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

// nlohmann's message reads "[json.exception.parse_error.101] parse error at line 1, column 4:
// ..."; the line is always 1 here (one physical line is parsed at a time), so keep the rest. It
// may quote raw input bytes: those outside printable ASCII become '?', to keep messages valid UTF-8.
std::string describe_json_error(const Json::exception& error) {
  std::string_view text = error.what();
  for (std::string_view prefix : {std::string_view("] "), std::string_view("parse error at line 1, ")}) {
    if (auto at = text.find(prefix); at != std::string_view::npos) text.remove_prefix(at + prefix.size());
  }
  std::string message(text);
  for (char& c : message) c = (c < 0x20 || c > 0x7e) ? '?' : c;
  return "invalid JSON: " + shortened(std::move(message));
}

// Parse errors, and numbers too large for any C++ type (1e400), are both invalid JSON here.
Json parse_object(const std::string& line) {
  Json value;
  try {
    value = Json::parse(line);
  } catch (const Json::exception& error) {
    fail(describe_json_error(error));
  }
  if (!value.is_object()) fail("expected a JSON object, found " + shown(value));
  return value;
}

// ---------------------------------------------------------------------------------------------
// The header.

WaitPolicy read_wait(const Json& value) {
  const std::string& text = as_string(value, "policy.wait");
  if (text == "block") return WaitPolicy::Block;
  if (text == "fallback") return WaitPolicy::Fallback;
  fail_field("policy.wait", shown(value) + " is not \"block\" or \"fallback\"");
}

ReentryPolicy read_reentry(const Json& value) {
  const std::string& text = as_string(value, "policy.reentry");
  if (text == "error") return ReentryPolicy::Error;
  if (text == "fallback") return ReentryPolicy::Fallback;
  fail_field("policy.reentry", shown(value) + " is not \"error\" or \"fallback\"");
}

void read_fallback(const Json& value, Policy& policy) {
  if (value.is_string()) {
    policy.fallback = as_config(value, "policy.fallback");
    return;
  }
  if (!value.is_object())
    fail_field("policy.fallback", shown(value) + " is not a config string or an object mapping kernels to configs");
  for (const auto& [kernel, config] : value.items())
    policy.fallback_by_kernel[kernel] = as_config(config, "policy.fallback." + kernel);
}

void require_fallback_if_used(const Policy& policy) {
  const bool uses_fallback = policy.wait == WaitPolicy::Fallback || policy.reentry == ReentryPolicy::Fallback;
  if (!uses_fallback || policy.fallback || !policy.fallback_by_kernel.empty()) return;
  const char* which = policy.wait == WaitPolicy::Fallback ? "policy.wait" : "policy.reentry";
  fail(field("policy.fallback") + " is missing, but " + which + " is \"fallback\", which needs a fallback config");
}

Policy read_policy(const Json& header) {
  Policy policy;
  const Json* object = find(header, "policy");
  if (object == nullptr) return policy;
  as_object(*object, "policy");
  if (const Json* wait = find(*object, "wait")) policy.wait = read_wait(*wait);
  if (const Json* reentry = find(*object, "reentry")) policy.reentry = read_reentry(*reentry);
  if (const Json* fallback = find(*object, "fallback")) read_fallback(*fallback, policy);
  require_fallback_if_used(policy);
  return policy;
}

std::vector<std::string> read_config_space(const Json& value, const std::string& path) {
  if (!value.is_array()) fail_field(path, shown(value) + " is not an array of config strings");
  if (value.empty()) fail(field(path) + " is empty (a kernel needs at least one config)");
  std::vector<std::string> space;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    std::string config = as_config(value[i], item_path);
    auto seen = std::find(space.begin(), space.end(), config);
    if (seen != space.end())
      fail_field(item_path, shown(value[i]) + " repeats " + path + "[" + std::to_string(seen - space.begin()) + "]");
    space.push_back(std::move(config));
  }
  return space;
}

std::map<std::string, std::vector<std::string>> read_configs(const Json& header) {
  std::map<std::string, std::vector<std::string>> configs;
  const Json* object = find(header, "configs");
  if (object == nullptr) return configs;
  as_object(*object, "configs");
  for (const auto& [kernel, space] : object->items()) configs[kernel] = read_config_space(space, "configs." + kernel);
  return configs;
}

Header read_header(const Json& object) {
  const Json& format = require(object, "format");
  if (!format.is_string() || format.get_ref<const std::string&>() != kFormat)
    fail_field("format", shown(format) + " is not \"safetune-trace\"");
  const Json& version = require(object, "version");
  if (!version.is_number_integer() || version != Json(kVersion))
    fail_field("version", shown(version) + " is not supported (this reader reads version 1)");
  Header header;
  header.present = true;
  header.policy = read_policy(object);
  header.configs = read_configs(object);
  if (const Json* white_box = find(object, "white_box")) {
    if (!white_box->is_boolean()) fail_field("white_box", shown(*white_box) + " is not true or false");
    header.white_box = white_box->get<bool>();
  }
  return header;
}

// ---------------------------------------------------------------------------------------------
// Events.

bool is_white_box_only(EventKind kind) {
  return kind == EventKind::TuneBegin || kind == EventKind::TuneEnd || kind == EventKind::WaitBegin ||
         kind == EventKind::WaitEnd;
}

EventKind read_kind(const Json& object, const Header& header) {
  const Json& value = require(object, "event");
  const auto kind = parse_event_name(as_string(value, "event"));
  if (!kind) fail_field("event", shown(value) + " is not a known event name");
  if (is_white_box_only(*kind) && !header.white_box)
    fail_field("event", shown(value) + " is only allowed in a white-box trace (the header does not say \"white_box\": true)");
  return *kind;
}

template <typename Value, typename Read>
std::optional<Value> read_optional(const Json& object, std::string_view name, Read read) {
  const Json* value = find(object, name);
  if (value == nullptr) return std::nullopt;
  return read(*value, name);
}

std::string kind_name(EventKind kind) { return "a " + std::string(event_name(kind)); }

template <typename T>
void forbid(const std::optional<T>& value, std::string_view name, EventKind kind) {
  if (value) fail(field(name) + " is not allowed on " + kind_name(kind));
}

template <typename T>
void demand(const std::optional<T>& value, std::string_view name, EventKind kind) {
  if (!value) fail(field(name) + " is missing: " + kind_name(kind) + " carries one");
}

template <typename A, typename B>
void exactly_one(const std::optional<A>& a, std::string_view a_name, const std::optional<B>& b,
                 std::string_view b_name, EventKind kind) {
  if (a.has_value() == b.has_value())
    fail(kind_name(kind) + " carries exactly one of \"" + std::string(a_name) + "\" and \"" + std::string(b_name) +
         "\", and this one has " + (a ? "both" : "neither"));
}

// Which of config / error / time_ns each kind carries (docs/trace-format.md, "Events").
void check_outcome_fields(const Event& event) {
  switch (event.kind) {
    case EventKind::Bench:
      demand(event.config, "config", event.kind);
      exactly_one(event.time_ns, "time_ns", event.error, "error", event.kind);
      return;
    case EventKind::CallEnd:
    case EventKind::TuneEnd:
      exactly_one(event.config, "config", event.error, "error", event.kind);
      forbid(event.time_ns, "time_ns", event.kind);
      return;
    case EventKind::Launch:
      demand(event.config, "config", event.kind);
      forbid(event.error, "error", event.kind);
      forbid(event.time_ns, "time_ns", event.kind);
      return;
    default:
      forbid(event.config, "config", event.kind);
      forbid(event.error, "error", event.kind);
      forbid(event.time_ns, "time_ns", event.kind);
      return;
  }
}

Event read_event(const Json& object, const Header& header) {
  if (find(object, "format") != nullptr) fail(field("format") + ": a header is only allowed on line 1");
  Event event;
  event.seq = as_int64(require(object, "seq"), "seq");
  event.thread = as_name(require(object, "thread"), "thread");
  event.kind = read_kind(object, header);
  event.kernel = as_string(require(object, "kernel"), "kernel");
  event.key = as_string(require(object, "key"), "key");
  event.config = read_optional<std::string>(object, "config", as_config);
  event.error = read_optional<std::string>(object, "error", as_string);
  event.time_ns = read_optional<double>(object, "time_ns", as_time_ns);
  event.t_ns = read_optional<std::int64_t>(object, "t_ns", as_int64);
  event.stream = read_optional<Name>(object, "stream", as_name);
  check_outcome_fields(event);
  return event;
}

// ---------------------------------------------------------------------------------------------
// The whole file.

class TraceReader {
 public:
  // Reads one physical line; throws LineError when it is wrong.
  void read_line(const std::string& text, int line) {
    if (is_blank(text)) return;
    const Json object = parse_object(text);
    if (line == 1 && find(object, "format") != nullptr) {
      trace_.header = read_header(object);
      return;
    }
    Event event = read_event(object, trace_.header);
    check_seq_order(event);
    event.line = line;
    trace_.events.push_back(std::move(event));
  }

  Trace take() { return std::move(trace_); }

 private:
  void check_seq_order(const Event& event) const {
    if (trace_.events.empty() || event.seq > trace_.events.back().seq) return;
    const Event& previous = trace_.events.back();
    fail_field("seq", std::to_string(event.seq) + " is not greater than the previous seq " +
                          std::to_string(previous.seq) + " (line " + std::to_string(previous.line) + ")");
  }

  Trace trace_;
};

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

std::string InputError::show() const {
  if (line == 0) return message;
  return "line " + std::to_string(line) + ": " + message;
}

ReadResult read_trace(std::istream& in) {
  TraceReader reader;
  std::string text;
  int line = 0;
  try {
    while (std::getline(in, text)) {
      if (line == std::numeric_limits<int>::max()) return InputError{line, "the trace has too many lines"};
      reader.read_line(text, ++line);
    }
  } catch (const LineError& error) {
    return InputError{line, error.message};
  } catch (const Json::exception& error) {
    // Not expected (every access is type-checked), but a reader must never crash on input.
    return InputError{line, std::string("unexpected JSON error: ") + error.what()};
  }
  if (in.bad()) return InputError{0, "reading the trace failed after line " + std::to_string(line)};
  return reader.take();
}

ReadResult read_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return InputError{0, "cannot open trace file \"" + path + "\""};
  return read_trace(in);
}

void write_header(std::ostream& out, const Header& header) {
  nlohmann::ordered_json line;
  line["format"] = kFormat;
  line["version"] = kVersion;
  line["policy"]["wait"] = header.policy.wait == WaitPolicy::Block ? "block" : "fallback";
  line["policy"]["reentry"] = header.policy.reentry == ReentryPolicy::Error ? "error" : "fallback";
  if (header.policy.fallback || !header.policy.fallback_by_kernel.empty())
    line["policy"]["fallback"] = fallback_json(header.policy);
  line["configs"] = nlohmann::ordered_json::object();
  for (const auto& [kernel, space] : header.configs) line["configs"][kernel] = space;
  line["white_box"] = header.white_box;
  out << dump(line) << '\n';
}

void write_event(std::ostream& out, const Event& event) {
  nlohmann::ordered_json line;
  line["seq"] = event.seq;
  line["thread"] = name_json(event.thread);
  line["event"] = event_name(event.kind);
  line["kernel"] = event.kernel;
  line["key"] = event.key;
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
