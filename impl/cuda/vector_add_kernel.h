// VectorAddKernel: c = a + b in fp32, tuned over BLOCK (threads per block) and ITEMS (elements
// per thread). The check is exact: a float sum rounds the same on the device and the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda_kernel.h"
#include "device_buffer.h"

namespace safetune::cuda {

struct VectorAddArgs {
  const float* a;
  const float* b;
  float* c;
  int n;
};

// Device inputs drawn fresh from `seed`, their host copies, and an output to check.
class VectorAddProblem {
 public:
  VectorAddProblem(int n, std::uint64_t seed);
  VectorAddArgs args() { return {a_.data(), b_.data(), c_.data(), n_}; }
  // Fills c with NaN on `stream`, so an element no launch wrote cannot pass the check.
  void poison(cudaStream_t stream);
  // Copies c back on `stream` (synchronizing that stream only) and counts wrong elements.
  std::size_t mismatches(cudaStream_t stream);

 private:
  int n_;
  std::vector<float> expected_;
  std::vector<float> host_c_;
  DeviceBuffer<float> a_, b_, c_;
};

struct VectorAddParams {
  int block;
  int items;
};

class VectorAddKernel final : public CudaKernelOf<VectorAddKernel, VectorAddParams> {
 public:
  // The built-in problem (used when inv.args is null) has n elements of fresh random data.
  explicit VectorAddKernel(CudaDevice& device, int n = 1 << 22, BenchTiming timing = {});
  // BLOCK in {64, ..., 1024} x ITEMS in {1, 2, 4, 8}.
  static ConfigSpace config_space();
  VectorAddProblem& problem() { return problem_; }

 private:
  friend CudaKernelOf;
  VectorAddParams params(const Config& config) const;
  cudaError_t enqueue(cudaStream_t stream, const VectorAddParams& params, void* args);

  VectorAddProblem problem_;
};

}  // namespace safetune::cuda
