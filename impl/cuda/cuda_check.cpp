#include "cuda_check.h"

#include <cuda_runtime_api.h>

namespace safetune::cuda {

std::string cuda_error_text(int code) {
  const auto error = static_cast<cudaError_t>(code);
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

void check_cuda(int code, const std::string& what) {
  if (code != cudaSuccess) throw CudaError(what + " failed: " + cuda_error_text(code));
}

void check_launch(const std::string& what) {
  // cudaGetLastError also clears a non-sticky launch error, so the next launch starts clean.
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) throw LaunchError("launch of " + what + " failed: " + cuda_error_text(error));
}

}  // namespace safetune::cuda
