// `safetune stress --json ARGUMENTS` through the built binary, for the tests of its store flags:
// expects the exit code, and returns the summary object.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/stress/run_binary.h"

namespace safetune::stress::testing {

inline nlohmann::json run_stress_json(const std::string& arguments, int expected_exit) {
  const CommandResult result = run_safetune("stress --json " + arguments);
  EXPECT_EQ(result.exit_code, expected_exit) << arguments << "\n" << result.out << result.err;
  return nlohmann::json::parse(result.out);
}

}  // namespace safetune::stress::testing
