// What safetune-cuda-bench's launch benchmarks compare: the empty kernel launched bare, and the
// same kernel as the autotuner launches it. Both sides call one enqueue function, Enqueue (by
// default enqueue_empty), and check what it returns and the launch's error alike, so they differ
// only in what the autotuner adds.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cuda_check.h"
#include "cuda_kernel.h"
#include "device_kernels.h"

namespace safetune::cuda {

// The bare launch: the enqueue and its return code, then the launch's error, as CudaKernelOf's
// launches read them (check_enqueued), from the caller's own frame.
template <auto Enqueue = enqueue_empty>
inline void bare_launch(int block, cudaStream_t stream) {
  const cudaError_t code = Enqueue(block, stream);
  if (code != cudaSuccess) [[unlikely]] check_cuda(code, "empty");
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) [[unlikely]] throw LaunchError("launch of empty failed: " + cuda_error_text(error));
}

// An empty kernel with one parameter, BLOCK, enqueued by Enqueue(block, stream): the launch cost
// alone.
template <auto Enqueue = enqueue_empty>
class EmptyKernelOf : public CudaKernelOf<EmptyKernelOf<Enqueue>, int> {
 public:
  explicit EmptyKernelOf(CudaDevice& device) : EmptyKernelOf::CudaKernelOf(device, "empty", BenchTiming{1, 3}) {}

 private:
  friend CudaKernelOf<EmptyKernelOf, int>;
  int params(const Config& config) const { return config_param(this->name(), config, "BLOCK"); }
  cudaError_t enqueue(cudaStream_t stream, int block, void*) { return Enqueue(block, stream); }
};

using EmptyKernel = EmptyKernelOf<>;

}  // namespace safetune::cuda
