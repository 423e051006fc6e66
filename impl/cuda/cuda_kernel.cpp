#include "cuda_kernel.h"

#include <limits>

#include "cuda_check.h"

namespace safetune::cuda {

CudaKernel::CudaKernel(CudaDevice& device, std::string name, BenchTiming timing)
    : device_(device), name_(std::move(name)), timing_(timing) {
  validate(timing_);
}

void CudaKernel::throw_launch_failed(const std::string& config, cudaError_t error) const {
  throw LaunchError("launch of " + name_ + " " + config + " failed: " + cuda_error_text(error));
}

int config_param(const std::string& kernel, const Config& config, const char* param) {
  const std::optional<std::int64_t> value = config.get(param);
  if (!value) throw LaunchError(kernel + ": config '" + config.str() + "' has no " + param);
  if (*value < 1 || *value > std::numeric_limits<int>::max()) {
    throw LaunchError(kernel + ": config '" + config.str() + "': " + param + " out of range");
  }
  return static_cast<int>(*value);
}

}  // namespace safetune::cuda
