// The device code's entry points: one plain launch function per real kernel.
//
// These are the only functions compiled by nvcc (vector_add.cu, reduction.cu, matmul.cu, empty_kernel.cu); the
// rest of impl/cuda is ordinary C++ against the CUDA runtime, so sanitizers instrument it.
// Each function only enqueues on `stream` and returns the code of any runtime call it made
// itself (cudaSuccess otherwise); the launch's own error is read by the caller (check_launch,
// or CudaKernelOf's check_enqueued).
#pragma once

#include <cuda_runtime_api.h>

namespace safetune::cuda {

// c[i] = a[i] + b[i] for i < n; `block` threads per block, each thread `items` elements.
cudaError_t enqueue_vector_add(const float* a, const float* b, float* c, int n, int block, int items,
                               cudaStream_t stream);

// *out = sum of in[0..n); zeroes *out first. `block` must be a power of two (tree reduction in
// shared memory); each thread first sums `items` elements.
cudaError_t enqueue_reduction(const int* in, long long* out, int n, int block, int items, cudaStream_t stream);

// C (m x n) = A (m x k) * B (k x n), row-major fp32. Tiles of tile x tile outputs per block; each
// thread computes `per_thread` outputs of one column, so a block has tile*tile/per_thread threads
// and 2*tile*tile floats of dynamic shared memory. Only the pairs that matmul_has_variant names
// exist; for any other pair nothing is enqueued and cudaErrorInvalidConfiguration is returned.
bool matmul_has_variant(int tile, int per_thread);

// One block of `block` threads that does nothing: the launch cost alone (benchmarks).
cudaError_t enqueue_empty(int block, cudaStream_t stream);
cudaError_t enqueue_matmul(const float* a, const float* b, float* c, int m, int n, int k, int tile,
                           int per_thread, cudaStream_t stream);

}  // namespace safetune::cuda
