// Runs the built `safetune` binary (its path comes from the SAFETUNE_BINARY compile definition)
// and captures its exit code, stdout and stderr, for tests of the command line.
#pragma once

#include <string>

namespace safetune::stress::testing {

struct CommandResult {
  int exit_code = -1;  // -1: the process did not exit normally
  std::string out;
  std::string err;
};

// `arguments` is appended to the binary's path as shell words (callers quote what needs it).
// `shell_prefix` runs before it in the same shell, e.g. "ulimit -v 200000;".
CommandResult run_safetune(const std::string& arguments, const std::string& shell_prefix = "");

// Whether this build runs under a sanitizer, whose runtime reserves more address space than any
// `ulimit -v` that makes an ordinary run fail allocation leaves it: such tests skip there.
bool built_with_sanitizer();

// A fresh file path under the test process's temporary directory (removed when it exits).
std::string temp_path(const std::string& name);
// Writes `text` to a fresh temporary file and returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);

}  // namespace safetune::stress::testing
