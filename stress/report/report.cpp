#include "stress/report/report.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace safetune::stress {
namespace {

// Every line of `text` prefixed with `indent`, each ending in a newline.
std::string indented(const std::string& text, std::string_view indent) {
  std::istringstream lines(text);
  std::ostringstream out;
  for (std::string line; std::getline(lines, line);) out << indent << line << '\n';
  return out.str();
}

// The excerpt of one violation, from the lines fetched for every listed violation.
std::string excerpt_of(const model::Violation& violation, const std::vector<ExcerptLine>& lines) {
  const std::set<std::int64_t> involved(violation.seqs.begin(), violation.seqs.end());
  std::set<std::int64_t> shown;  // ordinals
  for (const ExcerptLine& line : lines)
    if (involved.contains(line.seq))
      for (std::int64_t o = line.ordinal - kExcerptContext; o <= line.ordinal + kExcerptContext; ++o) shown.insert(o);
  std::ostringstream out;
  std::optional<std::int64_t> previous;
  for (const ExcerptLine& line : lines) {
    if (!shown.contains(line.ordinal)) continue;
    if (previous && line.ordinal != *previous + 1) out << "     ...\n";
    out << (involved.contains(line.seq) ? "  >> " : "     ");
    if (!line.file.empty()) out << line.file << ' ';
    if (line.line > 0) out << "line " << line.line << ": ";
    out << line.text << '\n';
    previous = line.ordinal;
  }
  return out.str();
}

std::vector<std::int64_t> involved_seqs(const std::vector<model::Violation>& violations) {
  std::set<std::int64_t> seqs;
  for (const model::Violation& violation : violations) seqs.insert(violation.seqs.begin(), violation.seqs.end());
  return {seqs.begin(), seqs.end()};
}

}  // namespace

std::string truncation_note(const model::CheckResult& result) {
  if (!result.truncated()) return "";
  std::string by_rule;
  for (std::size_t i = 0; i < model::kRuleCount; ++i) {
    if (result.violation_totals[i] == 0) continue;
    by_rule += (by_rule.empty() ? "" : ", ") + std::string(model::rule_id(model::kRules[i])) + ": " +
               std::to_string(result.violation_totals[i]);
  }
  return std::to_string(result.violations_total()) + " violations in all (" + by_rule + "); listed: the first " +
         std::to_string(model::kMaxListedPerRule) + " of each rule";
}

void write_violation_report(std::ostream& out, ExcerptSource& excerpts, const model::CheckResult& result,
                            const std::optional<std::string>& replay) {
  const std::vector<ExcerptLine> lines = excerpts.around(involved_seqs(result.violations));
  for (const model::Violation& violation : result.violations) {
    out << "VIOLATION " << model::rule_id(violation.rule) << " (" << model::rule_name(violation.rule)
        << "): " << violation.message << '\n';
    out << "  trace excerpt:\n" << excerpt_of(violation, lines);
    if (!violation.state_before.empty()) out << "  state before:\n" << indented(violation.state_before, "    ");
  }
  if (const std::string note = truncation_note(result); !note.empty()) out << "TRUNCATED: " << note << '\n';
  if (replay && !result.ok()) out << "replay: " << *replay << '\n';
}

}  // namespace safetune::stress
