// Chrome Trace Event export, for Perfetto (ui.perfetto.dev) and chrome://tracing.
//
// Layout: one process, one row (tid) per trace thread, named after it. Calls and attempts are
// complete slices ("ph":"X"), benches and waits sit inside them; launches and invalidates are
// instant events. Timestamps come from t_ns where every event has one, otherwise from seq
// (1 us per seq), so that any trace can be drawn. Events named in `marked_seqs` (a violation's
// events) are marked: their args carry "violation": "<rule>: <message>" and they are drawn as
// instant events in the category "violation".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "event.h"
#include "violation.h"

namespace safetune::model {

void write_chrome_trace(std::ostream& out, const Trace& trace,
                        const std::vector<Violation>& violations);

}  // namespace safetune::model
