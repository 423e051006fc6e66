// safetune: stress autotuners, check traces, list subjects. See `safetune --help`.
#include <iostream>
#include <variant>

#include "cli.h"
#include "commands.h"

int main(int argc, char** argv) {
  using namespace safetune::stress;
  const auto parsed = parse_command_line(argc, argv);
  if (const int* exit_code = std::get_if<int>(&parsed)) return *exit_code;
  const ParsedCommand& command = std::get<ParsedCommand>(parsed);
  switch (command.command) {
    case Command::Stress: return run_stress(command.stress);
    case Command::Check: return run_check(command.check);
    case Command::Subjects: return list_subjects(std::cout);
  }
  return 2;
}
