// Is a CUDA device usable here? Asked once by tests (to skip) and by `safetune stress` (to pick
// its default device). Never throws: no driver, no device, or a runtime error is an answer.
#pragma once

#include <string>

namespace safetune::cuda {

struct CudaProbe {
  int devices = 0;     // > 0: usable
  std::string reason;  // when devices == 0: why, e.g. "cudaGetDeviceCount: cudaErrorInsufficientDriver: ..."
};

CudaProbe probe_cuda();
// The same answer, asked in a forked child, so that this process does not initialize CUDA: a
// process that will fork workers which use the GPU (`safetune stress --processes`) must not, as
// CUDA does not survive a fork. A child that cannot be forked is an answer too (devices 0).
CudaProbe probe_cuda_in_child();

}  // namespace safetune::cuda
