// What the model reports when a trace breaks a rule (R1-R14, docs/rules.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace safetune::model {

// A rule's value is its number. R12 and R13 are the results store's rules (loads).
enum class Rule : std::uint8_t { R1 = 1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14 };
// Every rule the model enforces, in order: loops over the rules and per-rule arrays use it.
inline constexpr std::array<Rule, 14> kRules{Rule::R1, Rule::R2,  Rule::R3,  Rule::R4,  Rule::R5,
                                             Rule::R6, Rule::R7,  Rule::R8,  Rule::R9,  Rule::R10,
                                             Rule::R11, Rule::R12, Rule::R13, Rule::R14};
inline constexpr std::size_t kRuleCount = kRules.size();
// The rule's place in kRules (0-based).
inline constexpr std::size_t rule_index(Rule rule) {
  std::size_t i = 0;
  while (i < kRuleCount && kRules[i] != rule) ++i;
  return i;
}

std::string_view rule_id(Rule rule);    // "R1" ... "R14"
std::string_view rule_name(Rule rule);  // "nesting", "exclusive tuning", ...

struct Violation {
  Rule rule;
  std::vector<std::int64_t> seqs;  // the events involved, the breaking event last
  std::string message;             // one readable sentence, naming threads, kernel, key, configs
                                   // and seqs (reports print the rule id and name beside it)
  std::string state_before;        // the relevant model state just before the breaking event
  bool operator==(const Violation&) const = default;
};

}  // namespace safetune::model
