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

}  // namespace safetune::cuda
