#include "chrome.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace safetune::model {
namespace {

using Json = nlohmann::json;

constexpr int kPid = 1;
constexpr double kTailUs = 1.0;  // hangs are drawn this far past the last event, so they show

// Microsecond timestamps, one per event. From t_ns when every event has one, otherwise 1 us per
// seq. Invariant: non-decreasing along each thread, so that a thread's slices can always nest
// (a thread's own clock readings may be a little out of seq order).
std::vector<double> timestamps(const Trace& trace) {
  const auto& events = trace.events;
  const bool all_timed = !events.empty() && std::all_of(events.begin(), events.end(),
                                                        [](const Event& e) { return e.t_ns.has_value(); });
  std::vector<double> ts(events.size());
  if (events.empty()) return ts;
  std::int64_t origin = events.front().seq;
  if (all_timed) {
    origin = std::min_element(events.begin(), events.end(), [](const Event& a, const Event& b) {
               return *a.t_ns < *b.t_ns;
             })->t_ns.value();
  }
  std::map<Name, double> last_on_thread;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::int64_t at = all_timed ? *events[i].t_ns : events[i].seq;
    // at >= origin, so the unsigned difference is exact even where the signed one would overflow.
    const double offset = static_cast<double>(static_cast<std::uint64_t>(at) - static_cast<std::uint64_t>(origin));
    const double raw = all_timed ? offset / 1000.0 : offset;
    auto [it, first] = last_on_thread.try_emplace(events[i].thread, raw);
    ts[i] = first ? raw : std::max(raw, it->second);
    it->second = ts[i];
  }
  return ts;
}

std::string key_label(const Event& event) { return event.kernel + " [" + event.key + "]"; }

// Builds the traceEvents list. One Row per trace thread holds that thread's open slices as a
// stack; a slice is emitted when it closes, and closing one first closes every slice above it at
// the same instant, so slices on a row always nest (never partially overlap), whatever the trace.
class ChromeBuilder {
 public:
  ChromeBuilder(const Trace& trace, const std::vector<Violation>& violations)
      : trace_(trace), ts_(timestamps(trace)) {
    for (const Violation& violation : violations)
      for (std::int64_t seq : violation.seqs) add_mark(seq, violation);
  }

  Json build() {
    out_.push_back(metadata("process_name", 0, "safetune trace"));
    for (std::size_t i = 0; i < trace_.events.size(); ++i) add_event(i);
    close_everything_at_end();
    add_violation_instants();
    return Json{{"displayTimeUnit", "ns"}, {"traceEvents", std::move(out_)}};
  }

 private:
  enum class FrameKind { Call, Attempt, Wait };
  struct Frame {
    FrameKind kind;
    std::string name;
    const char* category;
    double ts;
    Json args;
  };
  struct Row {
    int tid = 0;
    std::vector<Frame> open;
    double last_ts = 0;
  };

  void add_mark(std::int64_t seq, const Violation& violation) {
    std::string& text = marks_[seq];
    if (!text.empty()) text += "; ";
    text += std::string(rule_id(violation.rule)) + ": " + violation.message;
  }

  void mark(Json& args, std::int64_t seq) const {
    if (auto it = marks_.find(seq); it != marks_.end()) args["violation"] = it->second;
  }

  Json metadata(const char* name, int tid, const std::string& label) const {
    return {{"ph", "M"}, {"name", name}, {"pid", kPid}, {"tid", tid}, {"ts", 0}, {"args", {{"name", label}}}};
  }

  Row& row_of(const Name& thread) {
    auto [it, added] = rows_.try_emplace(thread);
    if (added) {
      it->second.tid = static_cast<int>(rows_.size());
      out_.push_back(metadata("thread_name", it->second.tid, "thread " + thread.show()));
    }
    return it->second;
  }

  static Json event_args(const Event& event) {
    Json args{{"seq", event.seq}, {"kernel", event.kernel}, {"key", event.key}};
    if (event.config) args["config"] = *event.config;
    if (event.error) args["error"] = *event.error;
    if (event.time_ns) args["time_ns"] = *event.time_ns;
    if (event.stream) args["stream"] = event.stream->show();
    return args;
  }

  void add_event(std::size_t index) {
    const Event& event = trace_.events[index];
    Row& row = row_of(event.thread);
    const double ts = ts_[index];
    switch (event.kind) {
      case EventKind::CallBegin: open(row, FrameKind::Call, "call " + key_label(event), "call", ts, event); break;
      case EventKind::TuneBegin: open(row, FrameKind::Attempt, "attempt " + key_label(event), "attempt", ts, event); break;
      case EventKind::WaitBegin: open(row, FrameKind::Wait, "wait " + key_label(event), "wait", ts, event); break;
      case EventKind::CallEnd: close(row, FrameKind::Call, ts, event); break;
      case EventKind::TuneEnd: close(row, FrameKind::Attempt, ts, event); break;
      case EventKind::WaitEnd: close(row, FrameKind::Wait, ts, event); break;
      case EventKind::Bench: add_bench(row, ts, event); break;
      case EventKind::Launch: add_launch(row, ts, event); break;
      case EventKind::Invalidate: instant(row, "invalidate " + key_label(event), "invalidate", ts, event); break;
    }
    row.last_ts = ts;
  }

  void open(Row& row, FrameKind kind, std::string name, const char* category, double ts, const Event& event) {
    Json args = event_args(event);
    args["begin_seq"] = event.seq;
    mark(args, event.seq);
    row.open.push_back(Frame{kind, std::move(name), category, ts, std::move(args)});
  }

  void emit_slice(const Row& row, std::string name, const char* category, double begin, double end, Json args) {
    out_.push_back({{"ph", "X"}, {"name", std::move(name)}, {"cat", category}, {"ts", begin}, {"dur", end - begin},
                    {"pid", kPid}, {"tid", row.tid}, {"args", std::move(args)}});
  }

  void emit_slice(const Row& row, Frame frame, double end) {
    emit_slice(row, std::move(frame.name), frame.category, frame.ts, end, std::move(frame.args));
  }

  // Closes the innermost open frame of `kind`, after the frames above it (which the trace left
  // open: they are marked as such). An end with no matching begin is drawn as an instant.
  void close(Row& row, FrameKind kind, double ts, const Event& event) {
    auto match = std::find_if(row.open.rbegin(), row.open.rend(), [&](const Frame& f) { return f.kind == kind; });
    if (match == row.open.rend()) {
      instant(row, std::string(event_name(event.kind)) + " with no begin", "unmatched", ts, event);
      return;
    }
    const std::size_t depth = static_cast<std::size_t>(row.open.rend() - match) - 1;
    close_above(row, depth, ts, "left open until seq " + std::to_string(event.seq));
    Frame frame = std::move(row.open.back());
    row.open.pop_back();
    frame.args["end_seq"] = event.seq;
    if (event.config) frame.args["result"] = *event.config;
    if (event.error) frame.args["error"] = *event.error;
    mark(frame.args, event.seq);
    emit_slice(row, std::move(frame), ts);
  }

  // In a black-box trace an attempt has no end event: the call ending is its (failed) end.
  void close_above(Row& row, std::size_t depth, double ts, const std::string& why) {
    while (row.open.size() > depth + 1) {
      Frame frame = std::move(row.open.back());
      row.open.pop_back();
      if (!trace_.header.white_box && frame.kind == FrameKind::Attempt) {
        frame.args["result"] = "failed: the call ended without a launch";
      } else {
        frame.args["unclosed"] = why;
        frame.name += " (unclosed)";
      }
      emit_slice(row, std::move(frame), ts);
    }
  }

  bool top_is(const Row& row, FrameKind kind) const { return !row.open.empty() && row.open.back().kind == kind; }

  // A bench is drawn from the thread's previous event to its own: that is when it ran. In a
  // black-box trace the first bench of a run opens the attempt (docs/trace-format.md).
  void add_bench(Row& row, double ts, const Event& event) {
    const double start = std::max(row.last_ts, row.open.empty() ? row.last_ts : row.open.back().ts);
    if (!trace_.header.white_box && !top_is(row, FrameKind::Attempt)) {
      open(row, FrameKind::Attempt, "attempt " + key_label(event), "attempt", start, event);
    }
    Json args = event_args(event);
    mark(args, event.seq);
    const std::string outcome = event.error ? " (failed)" : "";
    emit_slice(row, "bench " + event.config.value_or("?") + outcome, "bench", start, ts, std::move(args));
  }

  void add_launch(Row& row, double ts, const Event& event) {
    if (!trace_.header.white_box && top_is(row, FrameKind::Attempt)) close(row, FrameKind::Attempt, ts, event);
    instant(row, "launch " + event.config.value_or("?"), "launch", ts, event);
  }

  void instant(const Row& row, std::string name, const char* category, double ts, const Event& event) {
    Json args = event_args(event);
    mark(args, event.seq);
    out_.push_back({{"ph", "i"}, {"s", "t"}, {"name", std::move(name)}, {"cat", category}, {"ts", ts},
                    {"pid", kPid}, {"tid", row.tid}, {"args", std::move(args)}});
  }

  // Calls with no call_end are hangs (R7): they run to the end of the trace, marked.
  void close_everything_at_end() {
    const double end = ts_.empty() ? 0 : *std::max_element(ts_.begin(), ts_.end()) + kTailUs;
    for (auto& [thread, row] : rows_) {
      while (!row.open.empty()) {
        Frame frame = std::move(row.open.back());
        row.open.pop_back();
        frame.args["unclosed"] = "no end by the end of the trace";
        out_.push_back({{"ph", "i"}, {"s", "t"}, {"name", "never ended: " + frame.name}, {"cat", "hang"},
                        {"ts", end}, {"pid", kPid}, {"tid", row.tid}, {"args", frame.args}});
        frame.name += " (never ended)";
        emit_slice(row, std::move(frame), end);
      }
    }
  }

  void add_violation_instants() {
    for (std::size_t i = 0; i < trace_.events.size(); ++i) {
      const Event& event = trace_.events[i];
      auto it = marks_.find(event.seq);
      if (it == marks_.end()) continue;
      Json args = event_args(event);
      args["violation"] = it->second;
      out_.push_back({{"ph", "i"}, {"s", "t"}, {"name", "violation " + it->second.substr(0, it->second.find(':'))},
                      {"cat", "violation"}, {"ts", ts_[i]}, {"pid", kPid}, {"tid", rows_.at(event.thread).tid},
                      {"args", std::move(args)}});
    }
  }

  const Trace& trace_;
  std::vector<double> ts_;
  std::map<std::int64_t, std::string> marks_;  // seq -> "R2: message; R5: message"
  std::map<Name, Row> rows_;
  Json out_ = Json::array();
};

}  // namespace

void write_chrome_trace(std::ostream& out, const Trace& trace, const std::vector<Violation>& violations) {
  const Json document = ChromeBuilder(trace, violations).build();
  // One trace event per line, so that the file diffs and greps well; still one JSON object.
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  const Json& events = document["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i)
    out << (i == 0 ? "\n" : ",\n") << events[i].dump(-1, ' ', false, Json::error_handler_t::replace);
  out << "\n]}\n";
}

}  // namespace safetune::model
