// The trace checker: runs the model over a trace, one event at a time, and reports the rules it
// breaks.
//
// Checker streams: it keeps the model's state (what the trace leaves open: calls, attempts, keys,
// threads) and the report, never the trace. It never throws on a well-formed trace; input errors
// are the reader's job (trace_reader.h). It reports at least the first violation of each rule
// that the trace contains, and never a violation that the trace does not contain.
//
// The report is bounded: it lists at most `max_listed_per_rule` violations of each rule, in the
// order found, and counts every one, so that a trace that breaks a rule on most of its events
// says how often it did (violation_totals) and that the list was cut (truncated).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
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
  std::int64_t loads = 0;                // load events that returned a winner (store hits)
  std::int64_t rejected_loads = 0;       // load events that rejected an entry (damaged, foreign)
  std::int64_t abandoned_attempts = 0;   // attempts in flight when their process exited
  std::int64_t lost_leases = 0;          // lease_lost events: attempts over, fenced off the store
  bool operator==(const TraceStats&) const = default;
};

inline constexpr std::size_t kMaxListedPerRule = 100;

struct CheckResult {
  std::vector<Violation> violations;  // the listed ones: at most max_listed_per_rule per rule
  std::array<std::int64_t, kRuleCount> violation_totals{};  // every violation, by rule_index()
  std::int64_t events = 0;
  TraceStats stats;
  // Set when the checker could not judge the whole trace (a key needed more choices of hidden
  // points than it keeps): the verdict is incomplete, neither a pass nor a violation.
  std::optional<std::string> incomplete;

  std::int64_t violations_total() const;
  bool truncated() const { return violations_total() > static_cast<std::int64_t>(violations.size()); }
  bool ok() const { return violations_total() == 0 && !incomplete; }
};

struct State;

class Checker {
 public:
  explicit Checker(const Header& header, std::size_t max_listed_per_rule = kMaxListedPerRule);
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  void add(const Event& event);  // events in seq order, as the reader gives them
  CheckResult finish();          // judges the end of the trace (R7, deferred launches); once

 private:
  void collect(std::vector<Violation>& found);
  bool repeats_on_same_event(const Violation& violation);

  std::unique_ptr<State> state_;
  std::size_t max_listed_;
  CheckResult result_;
  std::vector<Violation> found_;  // the current event's, reused
  std::array<std::optional<std::int64_t>, kRuleCount> last_breaking_seq_{};  // of each rule's last violation
};

CheckResult check(const Trace& trace);

}  // namespace safetune::model
