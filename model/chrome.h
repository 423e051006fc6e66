// Chrome Trace Event export, for Perfetto (ui.perfetto.dev) and chrome://tracing.
//
// Layout: one process, one row (tid) per trace thread, named after it. Calls and attempts are
// complete slices ("ph":"X"), benches and waits sit inside them; launches and invalidates are
// instant events. Timestamps come from t_ns where every event has one, otherwise from seq
// (1 us per seq), so that any trace can be drawn. Events named by a violation are marked: their
// args carry "violation": "<rule>: <message>" and they are drawn again as instant events in the
// category "violation".
//
// ChromeWriter streams: events go in one at a time and slices go out as they close, so a trace
// of any length can be drawn. Only the time base must be known before the first event; a first
// pass over the trace finds it (TimeBaseFinder).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "event.h"
#include "violation.h"

namespace safetune::model {

struct TimeBase {
  bool from_t_ns = false;   // every event has a t_ns
  std::int64_t origin = 0;  // the smallest t_ns, or the first seq
};

class TimeBaseFinder {
 public:
  void note(const Event& event);
  TimeBase base() const { return {.from_t_ns = events_ > 0 && all_timed_, .origin = all_timed_ ? min_t_ns_ : first_seq_}; }

 private:
  std::int64_t events_ = 0, min_t_ns_ = 0, first_seq_ = 0;
  bool all_timed_ = true;
};

class ChromeWriter {
 public:
  ChromeWriter(std::ostream& out, const Header& header, const std::vector<Violation>& violations, TimeBase base);
  ~ChromeWriter();
  void add(const Event& event);
  void finish();  // draws what never ended and closes the document; once

 private:
  class Builder;
  std::unique_ptr<Builder> builder_;
};

// Both passes over an in-memory trace.
void write_chrome_trace(std::ostream& out, const Trace& trace, const std::vector<Violation>& violations);

}  // namespace safetune::model
