// The trace checker: runs the model over a whole trace and reports every rule it breaks.
//
// check() never throws on a well-formed trace; input errors are the reader's job (trace_reader.h).
// It reports at least the first violation of each rule that the trace contains, and never a
// violation that the trace does not contain.
#pragma once

#include <cstdint>
#include <vector>

#include "event.h"
#include "violation.h"

namespace safetune::model {

// Counts taken from the trace, for summaries (`safetune stress --json`).
struct TraceStats {
  std::int64_t calls = 0;                // call_begin events
  std::int64_t attempts = 0;             // tuning attempts begun
  std::int64_t successful_tunings = 0;   // attempts that published a winner
  std::int64_t duplicate_tunings = 0;    // attempts begun while one was in flight on the key, or
                                         // after a success with no invalidate between (R2 + R3)
  std::int64_t benches = 0;              // bench events
  std::int64_t failed_benches = 0;       // bench events with an error
  std::int64_t errors = 0;               // call_end events with an error
  std::int64_t hung_calls = 0;           // call_begin with no call_end (R7)
  bool operator==(const TraceStats&) const = default;
};

struct CheckResult {
  std::vector<Violation> violations;  // in the order found
  TraceStats stats;
  bool ok() const { return violations.empty(); }
};

CheckResult check(const Trace& trace);

}  // namespace safetune::model
