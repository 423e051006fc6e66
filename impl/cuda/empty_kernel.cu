#include "device_kernels.h"

namespace safetune::cuda {
namespace {

__global__ void empty_kernel() {}

}  // namespace

cudaError_t enqueue_empty(int block, cudaStream_t stream) {
  empty_kernel<<<1, static_cast<unsigned>(block), 0, stream>>>();
  return cudaSuccess;
}

}  // namespace safetune::cuda
