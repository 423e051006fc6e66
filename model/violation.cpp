#include "violation.h"

#include <array>

namespace safetune::model {

namespace {

struct RuleText {
  std::string_view id;
  std::string_view name;
};

// Indexed by the rule's number minus one; the order must follow enum Rule.
constexpr std::array<RuleText, 11> kRules{{
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
}};

const RuleText& text_of(Rule rule) { return kRules.at(static_cast<std::size_t>(rule) - 1); }

}  // namespace

std::string_view rule_id(Rule rule) { return text_of(rule).id; }
std::string_view rule_name(Rule rule) { return text_of(rule).name; }

}  // namespace safetune::model
