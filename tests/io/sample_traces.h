// Traces built in code, for the writer, robustness and Chrome tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "model/event.h"

namespace safetune::model::testing {

inline Event make_event(std::int64_t seq, Name thread, EventKind kind, std::string key = "k") {
  Event event;
  event.seq = seq;
  event.thread = std::move(thread);
  event.kind = kind;
  event.kernel = "add";
  event.key = std::move(key);
  return event;
}

inline Event with_config(Event event, std::string config) {
  event.config = std::move(config);
  return event;
}

inline Event with_error(Event event, std::string error) {
  event.error = std::move(error);
  return event;
}

inline Event with_time(Event event, double time_ns) {
  event.time_ns = time_ns;
  return event;
}

// Thread 1 tunes key k (one failed bench), thread "1" waits for it; thread 2 hangs in a call.
inline Trace white_box_sample() {
  const Name t1 = Name::integer(1), s1 = Name::string("1"), t2 = Name::integer(2);
  Trace trace;
  trace.header.present = true;
  trace.header.white_box = true;
  trace.header.configs["add"] = {"BLOCK=128", "BLOCK=64"};
  trace.header.policy.fallback = "BLOCK=64";
  trace.events = {
      make_event(1, t1, EventKind::CallBegin),
      make_event(2, s1, EventKind::CallBegin),
      make_event(3, t1, EventKind::TuneBegin),
      make_event(4, s1, EventKind::WaitBegin),
      with_time(with_config(make_event(5, t1, EventKind::Bench), "BLOCK=128"), 1500.25),
      with_error(with_config(make_event(6, t1, EventKind::Bench), "BLOCK=64"), "launch failed"),
      with_config(make_event(7, t1, EventKind::TuneEnd), "BLOCK=128"),
      make_event(8, s1, EventKind::WaitEnd),
      make_event(9, t2, EventKind::CallBegin, "other"),
      with_config(make_event(10, t1, EventKind::Launch), "BLOCK=128"),
      with_config(make_event(11, t1, EventKind::CallEnd), "BLOCK=128"),
      with_config(make_event(12, s1, EventKind::Launch), "BLOCK=128"),
      with_config(make_event(13, s1, EventKind::CallEnd), "BLOCK=128"),
      make_event(14, s1, EventKind::Invalidate),
  };
  trace.events[4].stream = Name::string("s7");
  trace.events[4].t_ns = 123456789;
  return trace;
}

// A black-box trace: thread 1 benches twice and launches; thread 2 benches once and fails.
inline Trace black_box_sample() {
  const Name t1 = Name::integer(1), t2 = Name::integer(2);
  Trace trace;
  trace.events = {
      make_event(1, t1, EventKind::CallBegin),
      with_time(with_config(make_event(2, t1, EventKind::Bench), "A=1"), 10),
      with_time(with_config(make_event(3, t1, EventKind::Bench), "A=2"), 5),
      with_config(make_event(4, t1, EventKind::Launch), "A=2"),
      with_config(make_event(5, t1, EventKind::CallEnd), "A=2"),
      make_event(6, t2, EventKind::CallBegin, "j"),
      with_error(with_config(make_event(7, t2, EventKind::Bench, "j"), "A=1"), "oom"),
      with_error(make_event(8, t2, EventKind::CallEnd, "j"), "every config failed"),
  };
  return trace;
}

}  // namespace safetune::model::testing
