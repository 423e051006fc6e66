// Every reference trace in tests/traces/ against the verdict its header expects (Porcupine-style:
// one test per file). The header's extra fields, which the trace format ignores:
//   "expect":      the exact set of rule ids the checker must report ([] for a good trace);
//   "expect_seqs": optional, rule id -> the seqs of that rule's first violation;
//   "clauses":     the rule clauses (tests/traces/clauses.json) that the trace exercises: a bad
//                  trace breaks them, a good one shows their passing side.
// A file without a header must be a good trace; a header without "expect" fails the test. The
// corpus's shape is checked too: every clause of every rule has a bad trace and a good one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "model/checker.h"
#include "model/trace_reader.h"
#include "model/trace_writer.h"

namespace safetune::model {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> corpus_files() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(SAFETUNE_TRACE_DIR))
    if (entry.path().extension() == ".jsonl") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Expectation {
  std::set<std::string> rules;
  std::map<std::string, std::vector<std::int64_t>> first_seqs;
  std::vector<std::string> clauses;
  bool has_header = false;
};

// Reads the expectation from the header line with nlohmann_json (the trace reader ignores it).
Expectation expectation_of(const std::string& path) {
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  Expectation expected;
  if (first.empty()) return expected;
  const auto header = nlohmann::json::parse(first);
  if (!header.contains("format")) return expected;
  if (!header.contains("expect")) throw std::runtime_error(path + ": header has no \"expect\"");
  expected.has_header = true;
  for (const auto& rule : header.at("expect")) expected.rules.insert(rule.get<std::string>());
  if (header.contains("expect_seqs"))
    expected.first_seqs = header.at("expect_seqs").get<std::map<std::string, std::vector<std::int64_t>>>();
  if (header.contains("clauses")) expected.clauses = header.at("clauses").get<std::vector<std::string>>();
  return expected;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, ReportsExactlyTheExpectedRules) {
  const std::string path = std::string(SAFETUNE_TRACE_DIR) + "/" + GetParam();
  const Expectation expected = expectation_of(path);
  ReadResult read = read_trace_file(path);
  ASSERT_TRUE(std::holds_alternative<Trace>(read)) << std::get<InputError>(read).show();
  const CheckResult result = check(std::get<Trace>(read));

  std::set<std::string> found;
  std::map<std::string, std::vector<std::int64_t>> first_seqs;
  for (const auto& violation : result.violations) {
    const std::string id(rule_id(violation.rule));
    found.insert(id);
    first_seqs.emplace(id, violation.seqs);
  }
  std::string report;
  for (const auto& violation : result.violations) report += "\n  " + violation.message;
  EXPECT_EQ(found, expected.rules) << report;
  for (const auto& [rule, seqs] : expected.first_seqs) EXPECT_EQ(first_seqs[rule], seqs) << rule;
}

INSTANTIATE_TEST_SUITE_P(Traces, Corpus, ::testing::ValuesIn(corpus_files()),
                         [](const auto& info) {
                           std::string name = info.param.substr(0, info.param.find('.'));
                           std::replace_if(name.begin(), name.end(),
                                           [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

// The clauses of every rule, each with what it demands (tests/traces/clauses.json).
std::map<std::string, std::string> rule_clauses() {
  std::ifstream in(std::string(SAFETUNE_TRACE_DIR) + "/clauses.json");
  return nlohmann::json::parse(in).get<std::map<std::string, std::string>>();
}

// "R14.an_error_has_a_reason" -> "R14".
std::string rule_of_clause(const std::string& clause) { return clause.substr(0, clause.find('.')); }

TEST(CorpusShape, EveryRuleHasClausesAndEveryClauseABadAndAGoodTrace) {
  const std::map<std::string, std::string> clauses = rule_clauses();
  for (const Rule rule : kRules) {
    const std::string id(rule_id(rule));
    EXPECT_TRUE(std::any_of(clauses.begin(), clauses.end(), [&](const auto& c) { return rule_of_clause(c.first) == id; }))
        << id << " has no clause in clauses.json";
  }
  std::map<std::string, int> bad, good;
  for (const std::string& file : corpus_files()) {
    const Expectation expected = expectation_of(std::string(SAFETUNE_TRACE_DIR) + "/" + file);
    if (!expected.has_header) continue;  // the header-less traces test the defaults, not a clause
    EXPECT_FALSE(expected.clauses.empty()) << file << " names no clause";
    for (const std::string& clause : expected.clauses) {
      EXPECT_TRUE(clauses.contains(clause)) << file << " names " << clause << ", which clauses.json lacks";
      // A bad trace breaks its clauses: each one's rule is among those it expects.
      if (!expected.rules.empty()) {
        EXPECT_TRUE(expected.rules.contains(rule_of_clause(clause)))
            << file << " names " << clause << " but does not expect its rule";
      }
      ++(expected.rules.empty() ? good : bad)[clause];
    }
  }
  for (const auto& [clause, demand] : clauses) {
    EXPECT_GT(bad[clause], 0) << "no bad trace breaks " << clause << " (" << demand << ")";
    EXPECT_GT(good[clause], 0) << "no good trace shows the passing side of " << clause << " (" << demand << ")";
  }
}

TEST(CorpusShape, HasABadTraceForEveryRuleInBothForms) {
  const std::vector<std::string> files = corpus_files();
  const std::set<std::string> names(files.begin(), files.end());
  for (const Rule each : kRules) {
    const std::string id(rule_id(each));
    const std::string tag = "_bad_r" + id.substr(1) + "_";
    const bool white = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return n.starts_with("wb") && n.find(tag) != std::string::npos;
    });
    const bool black = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return n.starts_with("bb") && n.find(tag) != std::string::npos;
    });
    EXPECT_TRUE(white) << "no white-box bad trace for " << id;
    if (each != Rule::R10 && each != Rule::R11) {  // white-box only: a black-box trace shows no waits
      EXPECT_TRUE(black) << "no black-box bad trace for " << id;
    }
  }
}

}  // namespace
}  // namespace safetune::model
