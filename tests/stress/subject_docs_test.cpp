// docs/subjects.md's table of subjects says what the registry says: every listed subject, correct
// or broken, each with its box, its scenario and the rules that catch it (SubjectInfo::caught_by;
// none for a correct one), so that the table a user reads is the one the catch table checks, and
// a subject added to the registry without its row fails here, by name.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "stress/harness/redis_space.h"
#include "stress/subjects/subject.h"

namespace safetune::stress {
namespace {

struct DocRow {
  std::string box;       // "black" or "white"
  std::string scenario;  // "plain", "faults", "plain, wait fallback", ...
  std::set<std::string> rules;
};

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line.substr(1));
  for (std::string cell; std::getline(in, cell, '|');) {
    const auto first = cell.find_first_not_of(' ');
    const auto last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return cells;
}

// The rule ids of a "caught by" cell, outside its parentheses (which add what else may show).
std::set<std::string> rules_of(const std::string& cell) {
  std::string outside;
  int depth = 0;
  for (char c : cell) {
    if (c == '(') ++depth;
    if (depth == 0) outside += c;
    if (c == ')') --depth;
  }
  // "R" and its digits. (Not std::regex: g++ 12's ASan build warns inside libstdc++'s <regex>.)
  std::set<std::string> rules;
  for (std::size_t i = 0; i < outside.size(); ++i) {
    std::size_t end = i + 1;
    while (end < outside.size() && std::isdigit(static_cast<unsigned char>(outside[end]))) ++end;
    if (outside[i] == 'R' && end > i + 1) rules.insert(outside.substr(i, end - i));
  }
  return rules;
}

// The rows of the table whose header is "| subject | box | scenario | bug | caught by |".
std::map<std::string, DocRow> documented_subjects() {
  std::ifstream in(SAFETUNE_SUBJECTS_DOC);
  std::map<std::string, DocRow> rows;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| subject | box | scenario | bug | caught by |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("| ---", 0) == 0) continue;
    if (line.empty() || line[0] != '|') break;
    const std::vector<std::string> cells = cells_of(line);
    if (cells.size() < 5) continue;
    rows[cells[0]] = DocRow{cells[1], cells[2], rules_of(cells[4])};
  }
  return rows;
}

std::string scenario_text(const Scenario& scenario) {
  std::string text = scenario.mix;
  if (scenario.wait != "block") text += ", wait " + scenario.wait;
  if (scenario.reentry != "error") text += ", reentry " + scenario.reentry;
  if (scenario.processes > 1) text += ", " + std::to_string(scenario.processes) + " processes";
  if (scenario.store) text += scenario.redis ? ", Redis store" : ", store";
  if (scenario.store_down) text += " down";
  if (scenario.pause_owners > 0) text += ", owners paused";
  if (scenario.stall_owners > 0) text += ", owners stalled";
  if (scenario.watchdog_seconds > 0) text += ", watchdog " + std::to_string(static_cast<int>(scenario.watchdog_seconds)) + " s";
  if (scenario.restart) text += ", restart";
  if (scenario.damage_store) text += ", damaged";
  return text;
}

TEST(SubjectsDoc, ItsTableOfSubjectsMatchesTheRegistry) {
  const std::map<std::string, DocRow> documented = documented_subjects();
  ASSERT_FALSE(documented.empty()) << "no table of subjects found in " << SAFETUNE_SUBJECTS_DOC;
  std::set<std::string> registered;
  for (const SubjectInfo& info : subject_registry()) {
    if (!info.listed) continue;
    registered.insert(info.name);
    auto row = documented.find(info.name);
    if (row == documented.end()) {
      ADD_FAILURE() << info.name << " is not in docs/subjects.md's table";
      continue;
    }
    EXPECT_EQ(row->second.box, info.white_box ? "white" : "black") << info.name;
    EXPECT_EQ(row->second.scenario, scenario_text(info.scenario)) << info.name;
    EXPECT_EQ(row->second.rules, std::set<std::string>(info.caught_by.begin(), info.caught_by.end()))
        << info.name << ": the rules of its \"caught by\" cell (outside parentheses)";
  }
  // The Redis store subjects exist only in a build with the Redis store (hiredis).
  for (const auto& [name, row] : documented) {
    if (!this_build_has_redis() && row.scenario.find("Redis store") != std::string::npos) continue;
    EXPECT_TRUE(registered.contains(name)) << name << " is documented but is no listed subject";
  }
}

}  // namespace
}  // namespace safetune::stress
