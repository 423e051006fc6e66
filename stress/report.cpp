#include "report.h"

#include <algorithm>
#include <ostream>
#include <set>
#include <sstream>

#include "model/trace_reader.h"
#include "model/trace_writer.h"

namespace safetune::stress {
namespace {

// Positions (indexes into trace.events) to show: each involved event and its neighbours.
std::set<std::size_t> excerpt_positions(const model::Trace& trace,
                                        const std::set<std::int64_t>& involved) {
  std::set<std::size_t> positions;
  const auto context = static_cast<std::size_t>(kExcerptContext);
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    if (!involved.contains(trace.events[i].seq)) continue;
    const std::size_t first = i >= context ? i - context : 0;
    const std::size_t last = std::min(trace.events.size() - 1, i + context);
    for (std::size_t j = first; j <= last; ++j) positions.insert(j);
  }
  return positions;
}

std::string event_line(const model::Event& event) {
  std::ostringstream line;
  model::write_event(line, event);
  std::string text = line.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Every line of `text` prefixed with `indent`, each ending in a newline.
std::string indented(const std::string& text, std::string_view indent) {
  std::istringstream lines(text);
  std::ostringstream out;
  for (std::string line; std::getline(lines, line);) out << indent << line << '\n';
  return out.str();
}

}  // namespace

std::string trace_excerpt(const model::Trace& trace, const model::Violation& violation) {
  const std::set<std::int64_t> involved(violation.seqs.begin(), violation.seqs.end());
  std::ostringstream out;
  std::size_t previous = 0;
  bool first = true;
  for (std::size_t position : excerpt_positions(trace, involved)) {
    if (!first && position != previous + 1) out << "     ...\n";
    const model::Event& event = trace.events[position];
    out << (involved.contains(event.seq) ? "  >> " : "     ");
    if (event.line > 0) out << "line " << event.line << ": ";
    out << event_line(event) << '\n';
    previous = position;
    first = false;
  }
  return out.str();
}

void write_violation_report(std::ostream& out, const model::Trace& trace,
                            const std::vector<model::Violation>& violations,
                            const std::optional<std::string>& replay) {
  for (const model::Violation& violation : violations) {
    out << "VIOLATION " << model::rule_id(violation.rule) << " (" << model::rule_name(violation.rule)
        << "): " << violation.message << '\n';
    out << "  trace excerpt:\n" << trace_excerpt(trace, violation);
    if (!violation.state_before.empty()) {
      out << "  state before:\n" << indented(violation.state_before, "    ");
    }
  }
  if (replay && !violations.empty()) out << "replay: " << *replay << '\n';
}

}  // namespace safetune::stress
