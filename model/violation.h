// What the model reports when a trace breaks a rule (R1-R11, docs/rules.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace safetune::model {

enum class Rule : std::uint8_t { R1 = 1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11 };
inline constexpr std::size_t kRuleCount = 11;
inline constexpr std::size_t rule_index(Rule rule) { return static_cast<std::size_t>(rule) - 1; }  // 0-based

std::string_view rule_id(Rule rule);    // "R1" ... "R11"
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
