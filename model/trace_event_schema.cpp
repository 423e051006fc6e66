// An event line: seq, process, thread, event, kernel, key, and the outcome fields its kind carries.
// Unknown fields are ignored; a known one twice is an error.
#include "trace_schema.h"

namespace safetune::model::schema {

using namespace json;

namespace {

enum Slot : std::size_t { kSeq, kThread, kEvent, kKernel, kKey, kConfig, kError, kTimeNs, kTNs, kStream, kProcess, kFormatField, kSlots };
constexpr std::array<std::string_view, kSlots> kNames{"seq",   "thread",  "event", "kernel", "key",     "config",
                                                      "error", "time_ns", "t_ns",  "stream", "process", "format"};

bool is_white_box_only(EventKind kind) {
  return kind == EventKind::TuneBegin || kind == EventKind::TuneEnd || kind == EventKind::WaitBegin ||
         kind == EventKind::WaitEnd || kind == EventKind::LeaseLost;
}

const Value& require(const Fields<kSlots>& fields, Slot slot) {
  if (!fields[slot]) fail(field(kNames[slot]) + " is missing");
  return *fields[slot];
}

EventKind read_kind(Value value, const Header& header) {
  const auto kind = parse_event_name(as_string(value, "event"));
  if (!kind) fail_field("event", shown(value) + " is not a known event name");
  if (is_white_box_only(*kind) && !header.white_box)
    fail_field("event", shown(value) + " is only allowed in a white-box trace (the header does not say \"white_box\": true)");
  return *kind;
}

template <typename Read>
auto read_optional(const Fields<kSlots>& fields, Slot slot, Read read) -> std::optional<decltype(read(Value{}, ""))> {
  if (!fields[slot]) return std::nullopt;
  return read(*fields[slot], kNames[slot]);
}

std::string read_string(Value value, std::string_view path) { return std::string(as_string(value, path)); }

std::string kind_name(EventKind kind) {
  const std::string_view name = event_name(kind);
  return (std::string_view("aeiou").find(name.front()) == std::string_view::npos ? "a " : "an ") + std::string(name);
}

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
    case EventKind::LaunchFailed:
      demand(event.config, "config", event.kind);
      demand(event.error, "error", event.kind);
      forbid(event.time_ns, "time_ns", event.kind);
      return;
    case EventKind::StoreFailed:
      demand(event.error, "error", event.kind);
      forbid(event.config, "config", event.kind);
      forbid(event.time_ns, "time_ns", event.kind);
      return;
    case EventKind::Load:  // a winner, or a rejected entry: its reason, and its winner when known
      if (!event.config && !event.error) fail(kind_name(event.kind) + " carries \"config\" or \"error\", and this one has neither");
      forbid(event.time_ns, "time_ns", event.kind);
      return;
    default:
      forbid(event.config, "config", event.kind);
      forbid(event.error, "error", event.kind);
      forbid(event.time_ns, "time_ns", event.kind);
      return;
  }
}

}  // namespace

Event read_event(Object object, const Header& header) {
  const auto fields = collect(object, kNames, "", [](std::string_view) {});
  if (fields[kFormatField]) fail(field("format") + ": a header is only allowed on line 1");
  Event event;
  event.seq = as_int64(require(fields, kSeq), "seq");
  event.thread = as_name(require(fields, kThread), "thread");
  event.kind = read_kind(require(fields, kEvent), header);
  // An exit ends a process, not a call: it names no kernel or key (any given are ignored).
  if (event.kind != EventKind::Exit) {
    event.kernel = as_string(require(fields, kKernel), "kernel");
    event.key = as_string(require(fields, kKey), "key");
  }
  event.config = read_optional(fields, kConfig, as_config);
  event.error = read_optional(fields, kError, read_string);
  event.time_ns = read_optional(fields, kTimeNs, as_time_ns);
  event.t_ns = read_optional(fields, kTNs, as_int64);
  event.stream = read_optional(fields, kStream, as_name);
  event.process = read_optional(fields, kProcess, as_name);
  check_outcome_fields(event);
  return event;
}

}  // namespace safetune::model::schema
