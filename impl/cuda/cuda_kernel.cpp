#include "cuda_kernel.h"

#include <limits>

#include "cuda_check.h"
#include "cuda_stream.h"

namespace safetune::cuda {

CudaKernel::CudaKernel(CudaDevice& device, std::string name, BenchTiming timing)
    : device_(device), name_(std::move(name)), timing_(timing) {
  validate(timing_);
}

void CudaKernel::launch(const Invocation& inv, const Config& config) {
  checked_enqueue(cuda_handle(inv.stream), config, inv.args);
}

double CudaKernel::benchmark(const Invocation& inv, const Config& config) {
  const cudaStream_t stream = cuda_handle(inv.stream);
  return time_median_ns(device_, stream, [&] { checked_enqueue(stream, config, inv.args); }, timing_);
}

void CudaKernel::checked_enqueue(cudaStream_t stream, const Config& config, void* args) {
  enqueue(stream, config, args);
  // Not check_launch(name_ + ...): that would build a string on every launch, and this runs on
  // every call of a tuned key (the hot path). The message is built only on failure.
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) {
    throw LaunchError("launch of " + name_ + " " + config.str() + " failed: " + cuda_error_text(error));
  }
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
