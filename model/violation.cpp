#include "violation.h"

#include <array>

namespace safetune::model {

namespace {

struct RuleText {
  std::string_view id;
  std::string_view name;
};

// Indexed by rule_index(); the order must follow kRules.
constexpr std::array<RuleText, kRuleCount> kTexts{{
    {"R1", "nesting"},
    {"R2", "exclusive tuning"},
    {"R3", "single tuning"},
    {"R4", "attempt integrity"},
    {"R5", "agreement"},
    {"R6", "no early use"},
    {"R7", "termination"},
    {"R8", "error propagation"},
    {"R9", "re-entry"},
    {"R10", "isolation"},
    {"R11", "no wait cycle"},
    {"R12", "store agreement"},
    {"R13", "valid entries only"},
    {"R14", "no spurious failure"},
}};

const RuleText& text_of(Rule rule) { return kTexts.at(rule_index(rule)); }

}  // namespace

std::string_view rule_id(Rule rule) { return text_of(rule).id; }
std::string_view rule_name(Rule rule) { return text_of(rule).name; }

}  // namespace safetune::model
