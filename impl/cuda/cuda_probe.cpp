#include "cuda_probe.h"

#include <cuda_runtime_api.h>

#include "cuda_check.h"

namespace safetune::cuda {

CudaProbe probe_cuda() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return {0, "cudaGetDeviceCount: " + cuda_error_text(error)};
  if (count == 0) return {0, "cudaGetDeviceCount: no CUDA device"};
  return {count, ""};
}

}  // namespace safetune::cuda
