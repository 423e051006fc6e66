#include "stress/cli/run_cli.h"

#include <iostream>
#include <stdexcept>
#include <string>
#include <variant>

#include "stress/cli/cli.h"
#include "stress/cli/commands.h"

namespace safetune::stress {
namespace {

constexpr int kUsageError = 2;

// argv[0] without its directory: the name the replay line starts with ("safetune" for the
// built-in binary wherever it is run from).
std::string program_name(int argc, char** argv) {
  if (argc < 1 || argv[0] == nullptr || argv[0][0] == '\0') return "safetune";
  const std::string path = argv[0];
  return path.substr(path.find_last_of('/') + 1);
}

int run_command(const ParsedCommand& command) {
  switch (command.command) {
    case Command::Stress: return run_stress(command.stress);
    case Command::Check: return run_check(command.check);
    case Command::Subjects: return list_subjects(std::cout);
  }
  return kUsageError;
}

}  // namespace

int run_cli(int argc, char** argv, std::vector<SubjectInfo> extra_subjects) {
  const std::string program = program_name(argc, argv);
  try {
    add_subjects(std::move(extra_subjects));
  } catch (const std::invalid_argument& refused) {
    std::cerr << program << ": " << refused.what() << '\n';
    return kUsageError;
  }
  auto parsed = parse_command_line(argc, argv, program);
  if (const int* exit_code = std::get_if<int>(&parsed)) return *exit_code;
  ParsedCommand& command = std::get<ParsedCommand>(parsed);
  command.stress.program = program;
  return run_command(command);
}

}  // namespace safetune::stress
