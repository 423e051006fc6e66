// Reading traces: JSON Lines, version 1 (docs/trace-format.md), one event at a time.
//
// TraceReader streams: it holds one line (at most kMaxLineBytes) and the header, never the trace,
// so `safetune check` runs in memory that follows what the trace leaves open, not its length.
// It validates each line completely (syntax, schema, seq order) before it hands the event out. An
// input error names the physical line (1-based, header included) and what was wrong; a file that
// cannot be opened or read names the OS's reason. After an error the reader stays failed.
//
// read_trace() and read_trace_file() read a whole trace into memory, for tests and small tools.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "event.h"
#include "input_error.h"
#include "line_source.h"

namespace safetune::model {

// Opens the trace file at `path` for reading: its file descriptor, or an input error with the OS's
// reason (missing, a directory, no permission).
std::variant<int, InputError> open_trace_file(const std::string& path);

class TraceReader {
 public:
  explicit TraceReader(std::unique_ptr<ByteSource> source);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // A reader of the file at `path`, or of standard input when `path` is "-"; or why the file
  // cannot be opened (missing, a directory, no permission: the OS's reason).
  static std::variant<std::unique_ptr<TraceReader>, InputError> open(const std::string& path);

  // Reads line 1 and takes it as the header when it is one. Call once, before next(); an input
  // error is returned (and error() set) when line 1 is a bad header or cannot be read.
  std::optional<InputError> read_header();
  const Header& header() const { return header_; }

  enum class Next { Event, End, Error };
  // The next event (blank lines are skipped), with its `line` set; or the end, or an error.
  Next next(Event& event);
  const InputError& error() const { return error_; }
  // The input offset of the line of the last event returned by next().
  std::uint64_t offset() const { return offset_; }

 private:
  Next take(const Line& line, Event& event);
  Next fail(std::int64_t line, std::string message);

  struct Parser;  // simdjson's, kept out of this header
  LineSource lines_;
  std::unique_ptr<Parser> parser_;
  Header header_;
  std::optional<Line> first_line_;  // line 1 when it was not the header: next() takes it first
  std::int64_t previous_seq_ = 0, previous_line_ = 0;  // the last event's (seq order); line 0: none
  std::uint64_t offset_ = 0;
  InputError error_;
  bool failed_ = false;
};

using ReadResult = std::variant<Trace, InputError>;

ReadResult read_trace(std::istream& in);
ReadResult read_trace_file(const std::string& path);

}  // namespace safetune::model
