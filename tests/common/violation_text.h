// The model's verdict on a trace as test-failure text: one "R<n>: message" line per violation.
#pragma once

#include <string>

#include "model/checker.h"

namespace safetune::testing {

inline std::string violation_text(const model::CheckResult& result) {
  std::string text;
  for (const auto& violation : result.violations) {
    text += std::string(model::rule_id(violation.rule)) + ": " + violation.message + "\n";
  }
  return text;
}

}  // namespace safetune::testing
