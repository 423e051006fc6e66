// Excerpts from a trace file after a streaming check: the check notes a checkpoint (seq, event
// ordinal, line, byte offset) every kCheckpointEvery events, and the report seeks to the
// checkpoint before each event it shows and reads on from there. Memory: one checkpoint per
// kCheckpointEvery events; time: at most 2 * kCheckpointEvery lines read per shown event.
#pragma once

#include <cstdint>
#include <vector>

#include "stress/report/excerpts.h"
#include "model/event.h"
#include "stress/report/trace_input.h"

namespace safetune::stress {

inline constexpr std::int64_t kCheckpointEvery = 1024;

struct Checkpoint {
  std::int64_t seq = 0;
  std::int64_t ordinal = 0;  // the event's position in the trace, from 0
  std::int64_t line = 0;
  std::uint64_t offset = 0;
};

class CheckpointLog {
 public:
  // Called for every event of the first pass, in order, with the byte offset of its line.
  void note(const model::Event& event, std::uint64_t offset) {
    if (events_++ % kCheckpointEvery == 0) checkpoints_.push_back({.seq = event.seq, .ordinal = events_ - 1, .line = event.line, .offset = offset});
  }
  const std::vector<Checkpoint>& checkpoints() const { return checkpoints_; }

 private:
  std::vector<Checkpoint> checkpoints_;
  std::int64_t events_ = 0;
};

class FileExcerpts final : public ExcerptSource {
 public:
  FileExcerpts(const TraceInput& input, const CheckpointLog& log) : input_(input), log_(log) {}
  std::vector<ExcerptLine> around(const std::vector<std::int64_t>& seqs) override;

 private:
  const TraceInput& input_;
  const CheckpointLog& log_;
};

}  // namespace safetune::stress
