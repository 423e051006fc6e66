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

std::string key_label(const Event& event) { return event.kernel + " [" + event.key + "]"; }

}  // namespace

// Writes the traceEvents list as it goes. One Row per trace thread holds that thread's open
// slices as a stack; a slice is written when it closes, and closing one first closes every slice
// above it at the same instant, so slices on a row always nest (never partially overlap),
// whatever the trace. Invariant: timestamps are non-decreasing along each row, so that a thread's
// slices can always nest (a thread's own clock readings may be a little out of seq order).
class ChromeWriter::Builder {
 public:
  Builder(std::ostream& out, const Header& header, const std::vector<Violation>& violations, TimeBase base)
      : out_(out), white_box_(header.white_box), base_(base) {
    for (const Violation& violation : violations)
      for (std::int64_t seq : violation.seqs) add_mark(seq, violation);
    // One trace event per line, so that the file diffs and greps well; still one JSON object.
    out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    emit(metadata("process_name", 0, "safetune trace"));
  }

  void add(const Event& event) {
    const double ts = timestamp(event);
    max_ts_ = std::max(max_ts_, ts);
    add_event(event, ts);
    add_violation_instant(event, ts);
  }

  void finish() {
    close_everything_at_end();
    out_ << "\n]}\n";
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
    bool seen = false;  // an event of this row was drawn (last_ts is its time)
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

  Row& row_of(const ThreadName& thread) {
    auto [it, added] = rows_.try_emplace(thread);
    if (added) {
      it->second.tid = static_cast<int>(rows_.size());
      emit(metadata("thread_name", it->second.tid, "thread " + thread.show()));
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

  // Microseconds since the time base, never before the row's previous event.
  double timestamp(const Event& event) {
    const std::int64_t at = base_.from_t_ns ? event.t_ns.value_or(base_.origin) : event.seq;
    // at >= origin, so the unsigned difference is exact even where the signed one would overflow.
    const double offset = static_cast<double>(static_cast<std::uint64_t>(at) - static_cast<std::uint64_t>(base_.origin));
    const double raw = base_.from_t_ns ? offset / 1000.0 : offset;
    const Row& row = row_of(thread_of(event));
    return row.seen ? std::max(raw, row.last_ts) : raw;
  }

  void emit(const Json& event) {
    out_ << (first_ ? "\n" : ",\n") << event.dump(-1, ' ', false, Json::error_handler_t::replace);
    first_ = false;
  }

  void add_event(const Event& event, double ts) {
    Row& row = row_of(thread_of(event));
    switch (event.kind) {
      case EventKind::CallBegin: open(row, FrameKind::Call, "call " + key_label(event), "call", ts, event); break;
      case EventKind::TuneBegin: open(row, FrameKind::Attempt, "attempt " + key_label(event), "attempt", ts, event); break;
      case EventKind::WaitBegin: open(row, FrameKind::Wait, "wait " + key_label(event), "wait", ts, event); break;
      case EventKind::CallEnd: close(row, FrameKind::Call, ts, event); break;
      case EventKind::TuneEnd:
      case EventKind::LeaseLost: close(row, FrameKind::Attempt, ts, event); break;
      case EventKind::WaitEnd: close(row, FrameKind::Wait, ts, event); break;
      case EventKind::Bench: add_bench(row, ts, event); break;
      case EventKind::Launch:
      case EventKind::LaunchFailed: add_launch(row, ts, event); break;
      case EventKind::Invalidate: instant(row, "invalidate " + key_label(event), "invalidate", ts, event); break;
      case EventKind::InvalidateBegin:
        instant(row, "invalidate called " + key_label(event), "invalidate", ts, event);
        break;
      case EventKind::Load:
        instant(row, (event.error ? "load rejected " : "load ") + key_label(event), "load", ts, event);
        break;
      case EventKind::StoreFailed: instant(row, "store failed " + key_label(event), "store", ts, event); break;
      case EventKind::Exit: end_process(event.process, ts, event); break;
    }
    row.last_ts = ts;
    row.seen = true;
  }

  void open(Row& row, FrameKind kind, std::string name, const char* category, double ts, const Event& event) {
    Json args = event_args(event);
    args["begin_seq"] = event.seq;
    mark(args, event.seq);
    row.open.push_back(Frame{kind, std::move(name), category, ts, std::move(args)});
  }

  void emit_slice(const Row& row, std::string name, const char* category, double begin, double end, Json args) {
    emit({{"ph", "X"}, {"name", std::move(name)}, {"cat", category}, {"ts", begin}, {"dur", end - begin},
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
    if (event.kind == EventKind::LeaseLost) frame.args["result"] = "lease lost";
    mark(frame.args, event.seq);
    emit_slice(row, std::move(frame), ts);
  }

  // In a black-box trace an attempt has no end event: the call ending is its (failed) end.
  void close_above(Row& row, std::size_t depth, double ts, const std::string& why) {
    while (row.open.size() > depth + 1) {
      Frame frame = std::move(row.open.back());
      row.open.pop_back();
      if (!white_box_ && frame.kind == FrameKind::Attempt) {
        frame.args["result"] = "failed: the call ended without a launch";
      } else {
        frame.args["unclosed"] = why;
        frame.name += " (unclosed)";
      }
      emit_slice(row, std::move(frame), ts);
    }
  }

  // An exit ends every open frame of its process's threads: drawn to the exit, marked as such.
  void end_process(const std::optional<Name>& process, double ts, const Event& event) {
    for (auto& [thread, row] : rows_) {
      if (thread.process != process) continue;
      while (!row.open.empty()) {
        Frame frame = std::move(row.open.back());
        row.open.pop_back();
        frame.args["ended_by"] = "the process's exit at seq " + std::to_string(event.seq);
        frame.name += " (process exited)";
        emit_slice(row, std::move(frame), std::max(ts, row.last_ts));
      }
    }
    instant(row_of(thread_of(event)), "exit", "exit", ts, event);
  }

  bool top_is(const Row& row, FrameKind kind) const { return !row.open.empty() && row.open.back().kind == kind; }

  // A bench is drawn from the thread's previous event to its own: that is when it ran. In a
  // black-box trace the first bench of a run opens the attempt (docs/trace-format.md).
  void add_bench(Row& row, double ts, const Event& event) {
    const double start = std::max(row.last_ts, row.open.empty() ? row.last_ts : row.open.back().ts);
    if (!white_box_ && !top_is(row, FrameKind::Attempt)) {
      open(row, FrameKind::Attempt, "attempt " + key_label(event), "attempt", start, event);
    }
    Json args = event_args(event);
    mark(args, event.seq);
    const std::string outcome = event.error ? " (failed)" : "";
    emit_slice(row, "bench " + event.config.value_or("?") + outcome, "bench", start, ts, std::move(args));
  }

  // A failed launch ends a black-box attempt as a launch does (docs/trace-format.md).
  void add_launch(Row& row, double ts, const Event& event) {
    if (!white_box_ && top_is(row, FrameKind::Attempt)) close(row, FrameKind::Attempt, ts, event);
    const std::string what = event.kind == EventKind::LaunchFailed ? "launch failed " : "launch ";
    instant(row, what + event.config.value_or("?"), "launch", ts, event);
  }

  void instant(const Row& row, std::string name, const char* category, double ts, const Event& event) {
    Json args = event_args(event);
    mark(args, event.seq);
    emit({{"ph", "i"}, {"s", "t"}, {"name", std::move(name)}, {"cat", category}, {"ts", ts},
                    {"pid", kPid}, {"tid", row.tid}, {"args", std::move(args)}});
  }

  // Calls with no call_end are hangs (R7): they run to the end of the trace, marked.
  void close_everything_at_end() {
    const double end = rows_.empty() ? 0 : max_ts_ + kTailUs;
    for (auto& [thread, row] : rows_) {
      while (!row.open.empty()) {
        Frame frame = std::move(row.open.back());
        row.open.pop_back();
        frame.args["unclosed"] = "no end by the end of the trace";
        emit({{"ph", "i"}, {"s", "t"}, {"name", "never ended: " + frame.name}, {"cat", "hang"},
                        {"ts", end}, {"pid", kPid}, {"tid", row.tid}, {"args", frame.args}});
        frame.name += " (never ended)";
        emit_slice(row, std::move(frame), end);
      }
    }
  }

  void add_violation_instant(const Event& event, double ts) {
    auto it = marks_.find(event.seq);
    if (it == marks_.end()) return;
    Json args = event_args(event);
    args["violation"] = it->second;
    emit({{"ph", "i"}, {"s", "t"}, {"name", "violation " + it->second.substr(0, it->second.find(':'))},
          {"cat", "violation"}, {"ts", ts}, {"pid", kPid}, {"tid", rows_.at(thread_of(event)).tid},
          {"args", std::move(args)}});
  }

  std::ostream& out_;
  const bool white_box_;
  const TimeBase base_;
  std::map<std::int64_t, std::string> marks_;  // seq -> "R2: message; R5: message"
  std::map<ThreadName, Row> rows_;
  double max_ts_ = 0;
  bool first_ = true;
};

void TimeBaseFinder::note(const Event& event) {
  if (events_++ == 0) {
    first_seq_ = event.seq;
    min_t_ns_ = event.t_ns.value_or(0);
  }
  if (!event.t_ns) all_timed_ = false;
  else min_t_ns_ = std::min(min_t_ns_, *event.t_ns);
}

ChromeWriter::ChromeWriter(std::ostream& out, const Header& header, const std::vector<Violation>& violations,
                           TimeBase base)
    : builder_(std::make_unique<Builder>(out, header, violations, base)) {}

ChromeWriter::~ChromeWriter() = default;

void ChromeWriter::add(const Event& event) { builder_->add(event); }

void ChromeWriter::finish() { builder_->finish(); }

void write_chrome_trace(std::ostream& out, const Trace& trace, const std::vector<Violation>& violations) {
  TimeBaseFinder finder;
  for (const Event& event : trace.events) finder.note(event);
  ChromeWriter writer(out, trace.header, violations, finder.base());
  for (const Event& event : trace.events) writer.add(event);
  writer.finish();
}

}  // namespace safetune::model
