// Command-line parsing for `safetune` (CLI11). The flag names are a fixed contract
// (docs: "The command line"); extra flags are documented in --help.
#pragma once

#include <string>
#include <variant>

#include "stress/cli/options.h"

namespace safetune::stress {

enum class Command { Stress, Check, Subjects };

struct ParsedCommand {
  Command command = Command::Subjects;
  StressOptions stress;  // meaningful for Command::Stress
  CheckOptions check;    // meaningful for Command::Check
};

// Parses argv. On --help it prints the help and returns exit code 0; on a usage error (unknown
// command or flag, bad value) it prints the message, naming the flag and the value, to stderr
// and returns exit code 2. Otherwise it returns the validated command. `program` is the name
// the help and the messages give the command (a binary built on run_cli has its own).
std::variant<ParsedCommand, int> parse_command_line(int argc, const char* const* argv,
                                                    const std::string& program = "safetune");

}  // namespace safetune::stress
