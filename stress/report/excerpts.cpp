#include "stress/report/excerpts.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "model/printable.h"
#include "model/trace_writer.h"

namespace safetune::stress {

namespace {

std::string event_text(const model::Event& event) {
  std::ostringstream line;
  model::write_event(line, event);
  std::string text = line.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return model::printable(text, kExcerptLineBytes);
}

}  // namespace

std::vector<ExcerptLine> TraceExcerpts::around(const std::vector<std::int64_t>& seqs) {
  const auto& events = trace_.events;
  std::set<std::size_t> positions;
  const auto context = static_cast<std::size_t>(kExcerptContext);
  for (const std::int64_t seq : seqs) {
    auto it = std::lower_bound(events.begin(), events.end(), seq,
                               [](const model::Event& event, std::int64_t s) { return event.seq < s; });
    if (it == events.end() || it->seq != seq) continue;
    const auto i = static_cast<std::size_t>(it - events.begin());
    for (std::size_t j = i >= context ? i - context : 0; j <= std::min(events.size() - 1, i + context); ++j)
      positions.insert(j);
  }
  std::vector<ExcerptLine> lines;
  for (const std::size_t i : positions)
    lines.push_back({static_cast<std::int64_t>(i), events[i].seq, events[i].line, event_text(events[i])});
  return lines;
}

}  // namespace safetune::stress
