#include "device_kernels.h"

namespace safetune::cuda {
namespace {

// Grid-stride partial sums per thread, a tree reduction per block in shared memory, then one
// atomic add per block. Integer sums are exact in any order, so the result is checkable exactly.
__global__ void reduce_sum(const int* in, long long* out, int n, int items) {
  extern __shared__ long long partial[];
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x * items + threadIdx.x;
  long long sum = 0;
  for (int i = 0; i < items; ++i) {
    const long long index = base + static_cast<long long>(i) * blockDim.x;
    if (index < n) sum += in[index];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(partial[0]));
  }
}

}  // namespace

cudaError_t enqueue_reduction(const int* in, long long* out, int n, int block, int items, cudaStream_t stream) {
  const cudaError_t zeroed = cudaMemsetAsync(out, 0, sizeof(long long), stream);
  if (zeroed != cudaSuccess) return zeroed;
  const long long per_block = static_cast<long long>(block) * items;
  const auto grid = static_cast<unsigned>((n + per_block - 1) / per_block);
  const std::size_t shared = static_cast<std::size_t>(block) * sizeof(long long);
  reduce_sum<<<grid, static_cast<unsigned>(block), shared, stream>>>(in, out, n, items);
  return cudaSuccess;
}

}  // namespace safetune::cuda
