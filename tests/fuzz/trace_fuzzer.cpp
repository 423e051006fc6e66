// libFuzzer target for the trace reader, the checker and the Chrome export.
//
// Contract under test, for ANY input bytes:
//   - read_trace returns a Trace or an InputError; it never crashes, hangs, leaks or throws.
//   - An InputError names a line in [0, physical lines + 1] and carries a non-empty message.
//   - On a Trace, check() runs to completion, and each violation it reports names a rule, a
//     message and only seqs of events that the trace holds (it never invents events).
//   - write_chrome_trace() runs to completion, and the round trip
//     read(write(trace)) gives back an equal trace (every field but `line`, and the header's
//     `present`, since write_trace always writes a header).
// A broken promise aborts via __builtin_trap, which libFuzzer reports as a crash with the input.
// Sanitizers (address, undefined) turn memory errors and UB into crashes too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "model/checker.h"
#include "model/chrome.h"
#include "model/trace_reader.h"
#include "model/trace_writer.h"

namespace {

using namespace safetune::model;

// An ostream that discards what is written, without buffering all of it in memory.
class NullBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

void require(bool holds) {
  if (!holds) __builtin_trap();
}

int physical_lines(const std::string& text) {
  const auto newlines = std::count(text.begin(), text.end(), '\n');
  const bool unterminated = !text.empty() && text.back() != '\n';
  return static_cast<int>(newlines) + (unterminated ? 1 : 0);
}

// Every field but `line`, which the reader sets from the file.
bool same_event(const Event& a, const Event& b) {
  return a.seq == b.seq && a.thread == b.thread && a.kind == b.kind && a.kernel == b.kernel && a.key == b.key &&
         a.config == b.config && a.error == b.error && a.time_ns == b.time_ns && a.t_ns == b.t_ns &&
         a.stream == b.stream;
}

// Every field but `present`: a trace read without a header is written with one.
bool same_header(const Header& a, const Header& b) {
  return a.white_box == b.white_box && a.configs == b.configs && a.policy.wait == b.policy.wait &&
         a.policy.reentry == b.policy.reentry && a.policy.fallback == b.policy.fallback &&
         a.policy.fallback_by_kernel == b.policy.fallback_by_kernel;
}

bool same_trace(const Trace& a, const Trace& b) {
  return same_header(a.header, b.header) &&
         std::equal(a.events.begin(), a.events.end(), b.events.begin(), b.events.end(), same_event);
}

void check_input_error(const InputError& error, const std::string& text) {
  require(error.line >= 0 && error.line <= physical_lines(text) + 1);
  require(!error.message.empty());
}

void check_round_trip(const Trace& trace) {
  std::ostringstream written;
  write_trace(written, trace);
  std::istringstream in(written.str());
  const ReadResult reread = read_trace(in);
  const Trace* again = std::get_if<Trace>(&reread);
  require(again != nullptr);  // what the writer writes, the reader must accept
  require(same_trace(trace, *again));
}

bool holds_seq(const Trace& trace, std::int64_t seq) {
  // The reader guarantees strictly increasing seqs, so a binary search suffices.
  const auto it = std::lower_bound(trace.events.begin(), trace.events.end(), seq,
                                   [](const Event& event, std::int64_t wanted) { return event.seq < wanted; });
  return it != trace.events.end() && it->seq == seq;
}

void check_violations(const Trace& trace, const std::vector<Violation>& violations) {
  for (const Violation& violation : violations) {
    require(rule_index(violation.rule) < kRuleCount);
    require(!violation.message.empty() && !violation.seqs.empty());
    for (std::int64_t seq : violation.seqs) require(holds_seq(trace, seq));
  }
}

void check_trace(const Trace& trace) {
  const CheckResult result = check(trace);
  check_violations(trace, result.violations);
  NullBuffer discard;
  std::ostream null_stream(&discard);
  write_chrome_trace(null_stream, trace, result.violations);
  check_round_trip(trace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  const ReadResult result = read_trace(in);
  if (const auto* error = std::get_if<InputError>(&result)) {
    check_input_error(*error, text);
  } else {
    check_trace(std::get<Trace>(result));
  }
  return 0;
}
