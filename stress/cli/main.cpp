// safetune: stress autotuners, check traces, list subjects. See `safetune --help`.
// The whole command is run_cli (run_cli.h), so that a user's own binary can add subjects to it.
#include "stress/cli/run_cli.h"

int main(int argc, char** argv) { return safetune::stress::run_cli(argc, argv); }
