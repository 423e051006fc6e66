// Where a violation report's trace excerpts come from: the events a violation names, each with
// kExcerptContext events on each side, as the lines a reader can find in the trace.
//
// Two sources: the in-memory trace of a stress round (TraceExcerpts), and a trace file read
// again after a streaming check (FileExcerpts, file_excerpts.h), which seeks to a checkpoint near
// each event instead of holding the trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/event.h"

namespace safetune::stress {

// Events within this many positions of an involved event are shown as context.
inline constexpr int kExcerptContext = 2;
// An excerpt line longer than this is cut (printable.h), so a 10 MB key stays out of the report.
inline constexpr std::size_t kExcerptLineBytes = 400;

struct ExcerptLine {
  std::int64_t ordinal = 0;  // the event's position in the trace, from 0
  std::int64_t seq = 0;
  std::int64_t line = 0;     // its line in the file, or 0 when it was not read from one
  std::string text;          // the event as a trace line, printable and cut
  std::string file{};        // the file it is in, when the report reads several (printable)
};

class ExcerptSource {
 public:
  virtual ~ExcerptSource() = default;
  // The events with these seqs (sorted, distinct) and their context, in trace order, each once.
  // A seq that the trace does not hold is left out.
  virtual std::vector<ExcerptLine> around(const std::vector<std::int64_t>& seqs) = 0;
};

// The events of an in-memory trace (its events are in seq order).
class TraceExcerpts final : public ExcerptSource {
 public:
  explicit TraceExcerpts(const model::Trace& trace) : trace_(trace) {}
  std::vector<ExcerptLine> around(const std::vector<std::int64_t>& seqs) override;

 private:
  const model::Trace& trace_;
};

}  // namespace safetune::stress
