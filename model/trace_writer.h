// Writing traces: JSON Lines, version 1 (docs/trace-format.md).
#pragma once

#include <iosfwd>

#include "event.h"

namespace safetune::model {

// Writes the header line (always) and one line per event, in the order given.
void write_header(std::ostream& out, const Header& header);
void write_event(std::ostream& out, const Event& event);
void write_trace(std::ostream& out, const Trace& trace);

}  // namespace safetune::model
