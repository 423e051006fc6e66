// safetune-example-cudnn-cache: the whole `safetune` command, plus the cudnn-cache subject.
//   safetune-example-cudnn-cache subjects
//   safetune-example-cudnn-cache stress --subject cudnn-cache
#include "cudnn_cache_subject.h"
#include "stress/cli/run_cli.h"

int main(int argc, char** argv) {
  return safetune::stress::run_cli(argc, argv, {example::cudnn_cache_subject()});
}
