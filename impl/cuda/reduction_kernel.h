// ReductionKernel: the sum of n int32 values, tuned over BLOCK (threads per block, a power of
// two in [32, 1024]) and ITEMS (elements each thread sums first). Integer sums are exact, so
// the check is equality with the host's sum.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda_kernel.h"
#include "device_buffer.h"

namespace safetune::cuda {

struct ReductionArgs {
  const int* in;
  long long* out;  // one value; zeroed by each launch
  int n;
};

struct ReductionParams {
  int block;
  int items;
};

class ReductionKernel final : public CudaKernelOf<ReductionKernel, ReductionParams> {
 public:
  // The built-in problem (used when inv.args is null): n fresh random values in [-1000, 1000].
  explicit ReductionKernel(CudaDevice& device, int n = 1 << 22, BenchTiming timing = {});
  // BLOCK in {64, 128, 256, 512, 1024} x ITEMS in {1, 4, 16}.
  static ConfigSpace config_space();
  // Poisons the output, launches `config` on `stream`, and returns the device's sum
  // (synchronizing that stream only).
  long long run_once(Stream& stream, const Config& config);
  long long expected_sum() const { return expected_; }

 private:
  friend CudaKernelOf;
  // Throws LaunchError unless BLOCK is a power of two in [32, 1024].
  ReductionParams params(const Config& config) const;
  cudaError_t enqueue(cudaStream_t stream, const ReductionParams& params, void* args);

  int n_;
  long long expected_ = 0;
  DeviceBuffer<int> in_;
  DeviceBuffer<long long> out_;
};

}  // namespace safetune::cuda
