// Reading and writing traces: JSON Lines, version 1 (docs/trace-format.md).
//
// The reader validates syntax and schema completely before the model sees anything: a bad input
// is reported as an InputError naming the physical line (1-based, header included) and what was
// wrong, and no partial trace is returned.
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <variant>

#include "event.h"

namespace safetune::model {

struct InputError {
  int line = 0;         // 0 when the error is not tied to a line (e.g. unreadable file)
  std::string message;  // what was wrong, e.g. "seq 4 is not greater than the previous seq 7"
  std::string show() const;  // "line 3: ..." (or just the message when line is 0)
};

using ReadResult = std::variant<Trace, InputError>;

ReadResult read_trace(std::istream& in);
ReadResult read_trace_file(const std::string& path);

// Writes the header line (always) and one line per event, in the order given.
void write_header(std::ostream& out, const Header& header);
void write_event(std::ostream& out, const Event& event);
void write_trace(std::ostream& out, const Trace& trace);

}  // namespace safetune::model
