// The whole `safetune` command as one function, so that a user's own autotuner can be driven by
// it like the built-in subjects. The built-in binary's main() is `return run_cli(argc, argv);`.
//
// A user's program links the `safetune_stress` library and their adapter (a Subject and its
// SubjectInfo, stress/subjects/subject.h; docs/checking-your-own-autotuner.md walks through one):
//
//   int main(int argc, char** argv) {
//     return safetune::stress::run_cli(argc, argv, {my_autotuner_subject()});
//   }
//
// and gets every command, flag, exit code and output of `safetune` (stress, check, subjects,
// --json, the replay line), with the extra subjects listed by `subjects` after the built-in ones
// and accepted by `stress --subject NAME`.
#pragma once

#include <vector>

#include "stress/subjects/subject.h"

namespace safetune::stress {

// Runs the command that argv names and returns the process exit code: 0 pass or valid,
// 1 violation, 2 usage or input error.
//
// `extra_subjects` join the registry before argv is parsed. A bad one is refused before any
// command runs, with the message on stderr and exit code 2: a name that a built-in subject (or
// another extra one) already has, a name that is empty or not made of letters, digits, '.', '_'
// and '-' (it is pasted into the replay line), an empty bug line, no factory, or a scenario the
// command line would not accept.
//
// The replay line of a failing stress run starts with the program's own name (argv[0] without
// its directory), so that it replays with the binary that knows the subject.
//
// Call it once per process, from main, before any other use of the subject registry.
int run_cli(int argc, char** argv, std::vector<SubjectInfo> extra_subjects = {});

}  // namespace safetune::stress
