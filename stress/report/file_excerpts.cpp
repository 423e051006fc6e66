#include "stress/report/file_excerpts.h"

#include <simdjson.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

#include "model/line_source.h"
#include "model/printable.h"

namespace safetune::stress {

namespace {

// A line as scanned: its head, enough to show it cut.
struct ScannedLine {
  std::int64_t ordinal = 0, seq = 0, line = 0;
  std::string head;
  std::size_t size = 0;
  ExcerptLine shown() const {
    return {.ordinal = ordinal, .seq = seq, .line = line, .text = model::printable_head(head, size, kExcerptLineBytes)};
  }
};

// Reads the events of the (already checked, so valid) trace from a checkpoint on.
class Scanner {
 public:
  Scanner(const TraceInput& input, const Checkpoint& from)
      : lines_(input.bytes_from(from.offset)), line_(from.line - 1), ordinal_(from.ordinal - 1) {}

  std::optional<ScannedLine> next() {
    for (;;) {
      const model::Line line = lines_.next();
      if (line.status != model::Line::Status::Line) return std::nullopt;
      ++line_;
      simdjson::dom::element root;
      std::int64_t seq = 0;
      if (parser_.parse(line.text.data(), line.text.size(), false).get(root) || root["seq"].get(seq)) continue;
      return ScannedLine{++ordinal_, seq, line_, std::string(line.text.substr(0, kExcerptLineBytes + 8)), line.text.size()};
    }
  }

 private:
  model::LineSource lines_;
  simdjson::dom::parser parser_;
  std::int64_t line_, ordinal_;
};

}  // namespace

// One forward pass over the seqs (sorted): for each, seek to the checkpoint two before it
// unless reading on from where the last one ended is shorter, show the kExcerptContext lines
// before it, the line itself and the kExcerptContext lines after it.
std::vector<ExcerptLine> FileExcerpts::around(const std::vector<std::int64_t>& seqs) {
  const auto& checkpoints = log_.checkpoints();
  std::vector<ExcerptLine> lines;
  std::optional<Scanner> scanner;
  std::optional<ScannedLine> lookahead;  // read, but past the seq looked for
  std::deque<ScannedLine> before;        // the last kExcerptContext lines passed, not shown
  int after = 0;                         // lines still to show after the last one found
  std::int64_t consumed_seq = -1;        // the seq of the last line passed or shown
  auto read = [&]() -> std::optional<ScannedLine> {
    if (!lookahead) return scanner->next();
    return std::exchange(lookahead, std::nullopt);
  };
  auto finish_context = [&] {
    for (; scanner && after > 0; --after)
      if (auto line = read()) lines.push_back(line->shown());
    after = 0;
  };
  for (const std::int64_t seq : seqs) {
    if (seq <= consumed_seq) continue;  // shown already, or not in the trace
    auto at = std::upper_bound(checkpoints.begin(), checkpoints.end(), seq,
                               [](std::int64_t s, const Checkpoint& c) { return s < c.seq; });
    if (at == checkpoints.begin()) continue;
    const Checkpoint& from = *std::prev(at, at - checkpoints.begin() >= 2 ? 2 : 1);
    if (!scanner || consumed_seq < from.seq) {
      finish_context();
      scanner.emplace(input_, from);
      lookahead.reset();
      before.clear();
    }
    while (auto line = read()) {
      if (line->seq > seq) {
        lookahead = std::move(line);
        break;
      }
      consumed_seq = line->seq;
      if (line->seq == seq) {
        for (const ScannedLine& earlier : before) lines.push_back(earlier.shown());
        before.clear();
        lines.push_back(line->shown());
        after = kExcerptContext;
        break;
      }
      if (after > 0) {
        --after;
        lines.push_back(line->shown());
        continue;
      }
      before.push_back(std::move(*line));
      if (before.size() > static_cast<std::size_t>(kExcerptContext)) before.pop_front();
    }
  }
  finish_context();
  return lines;
}

}  // namespace safetune::stress
