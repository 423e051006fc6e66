// The trace alphabet: one Event per transition of the state-machine model.
//
// These types are the vocabulary shared by the reference autotuner (which reports events), the
// trace reader/writer (JSON Lines v1, docs/trace-format.md) and the model (which judges them).
// They carry no behaviour beyond comparison and naming.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy.h"

namespace safetune::model {

// A thread or stream name as written in a trace: an integer or a string. Thread `1` and thread
// `"1"` are different threads, so the kind is part of the identity.
struct Name {
  std::string text;        // the integer's decimal digits, or the string itself
  bool is_string = false;  // true when the trace wrote a JSON string

  static Name integer(std::int64_t value) { return {std::to_string(value), false}; }
  static Name string(std::string value) { return {std::move(value), true}; }
  // How a report shows it: 3 or "3" (a string printable, as printable.h makes it).
  std::string show() const;
  auto operator<=>(const Name&) const = default;
};

// A thread as the model knows it: (process, thread). A trace with no `process` field is one
// process, so its threads have no process name; across processes, thread 1 of process 7 and
// thread 1 of process 8 are different threads.
struct ThreadName {
  std::optional<Name> process{};
  Name thread{};
  // How a report shows it: 3, or 3 of process 7.
  std::string show() const;
  auto operator<=>(const ThreadName&) const = default;
};

enum class EventKind : std::uint8_t {
  CallBegin,   // a call of the autotuned kernel starts
  CallEnd,     // the call returns with `config`, or raises `error`
  TuneBegin,   // this thread becomes the owner of a new attempt (white-box)
  Bench,       // this thread benchmarked `config`: `time_ns` or `error`
  TuneEnd,     // the attempt publishes `config`, or fails with `error` (white-box)
  WaitBegin,   // the call blocks on another thread's attempt (white-box)
  WaitEnd,     // ... and resumes (white-box)
  Launch,      // the call's real launch, with `config`
  Invalidate,  // the key goes back to not tuned
  InvalidateBegin,  // (optional) an invalidate of the key was called here; its invalidate marks its return
  LaunchFailed,  // the call's launch of `config` failed with `error`; the call then ends with an error
  Load,          // the call read the key's entry from the store: a valid winner `config`, or an entry
                 // rejected with `error` (a miss; `config` then names the rejected winner, if known)
  Exit,          // the process ended, or was killed, here (no kernel or key)
  LeaseLost,     // the owner's attempt lost its lease to the store: it is over, and must not publish
                 // (white-box)
  StoreFailed,   // a step of the call in the results store failed with `error` (server down, disk
                 // full): the call may end with an error, as the store-failure policy fail has it
};

// The trace spelling of each kind ("call_begin", ...).
std::string_view event_name(EventKind kind);
std::optional<EventKind> parse_event_name(std::string_view name);

struct Event {
  std::int64_t seq = 0;  // strictly increasing through a trace: the total order of events
  std::optional<Name> process;  // absent: the trace is one process
  Name thread;
  EventKind kind = EventKind::CallBegin;
  std::string kernel;
  std::string key;
  std::optional<std::string> config;  // canonical config string (see config.h)
  std::optional<std::string> error;
  std::optional<double> time_ns;
  std::optional<std::int64_t> t_ns;  // wall-clock timestamp, for timelines only
  std::optional<Name> stream;
  std::int64_t line = 0;  // physical line in the file it was read from (1-based); 0 if not read from a file
};

// The thread of an event, named by (process, thread).
inline ThreadName thread_of(const Event& event) { return ThreadName{.process = event.process, .thread = event.thread}; }

struct Policy {
  WaitPolicy wait = WaitPolicy::Block;
  ReentryPolicy reentry = ReentryPolicy::Error;
  std::optional<std::string> fallback;                    // one config for every kernel, or
  std::map<std::string, std::string> fallback_by_kernel;  // a config per kernel

  bool needs_fallback() const { return model::needs_fallback(wait, reentry); }
  // The declared fallback config of `kernel`, if any.
  std::optional<std::string> fallback_for(const std::string& kernel) const {
    if (auto it = fallback_by_kernel.find(kernel); it != fallback_by_kernel.end()) return it->second;
    return fallback;
  }
  bool operator==(const Policy&) const = default;
};

struct Header {
  bool present = false;  // false: the trace had no header line (all defaults)
  Policy policy;
  std::map<std::string, std::vector<std::string>> configs;  // kernel -> its config space, in order
  bool white_box = false;
  bool global_seq = false;  // "seq_scope":"global": the files of one run share one seq counter
  // "fresh_store": true: the results store started empty for this run and only its processes
  // wrote it, so every entry a load finds was published by them, and must be whole (R12).
  bool fresh_store = false;
  // "live_owners": true: no process of this run was stopped (SIGSTOP) while it owned an attempt,
  // so an owner kept renewing its lease: a lease it lost was never renewed, and excuses no
  // overlap (R2) or late repeat (R3) of another process's attempt.
  bool live_owners = false;
  bool operator==(const Header&) const = default;
};

struct Trace {
  Header header;
  std::vector<Event> events;
};

}  // namespace safetune::model
