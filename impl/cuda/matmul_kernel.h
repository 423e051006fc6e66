// MatmulKernel: C = A * B in fp32 (row-major, m x k times k x n), tuned over TILE (the block's
// square output tile) and PER_THREAD (outputs each thread computes). This is the kernel where
// tuning matters: the variants differ by several times in speed.
//
// The check: max |C - C_ref| / max |C_ref|, with C_ref computed in double on the host from the
// same fresh random inputs in [-1, 1). Tolerance kMatmulTolerance = 1e-5: fp32 rounding over
// k <= 4096 terms stays near 1e-7 of the output's scale; a wrong index or a missing barrier
// gives errors of order 1.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda_kernel.h"
#include "device_buffer.h"

namespace safetune::cuda {

inline constexpr double kMatmulTolerance = 1e-5;

struct MatmulArgs {
  const float* a;
  const float* b;
  float* c;
  int m, n, k;
};

struct MatmulParams {
  int tile;
  int per_thread;
};

class MatmulKernel final : public CudaKernelOf<MatmulKernel, MatmulParams> {
 public:
  // The built-in problem (used when inv.args is null): fresh random m x k and k x n inputs.
  MatmulKernel(CudaDevice& device, int m, int n, int k, BenchTiming timing = {});
  // Every compiled variant, (TILE=128, PER_THREAD=16) included: it asks for 128 KiB of shared
  // memory, so its launch is refused and its bench fails.
  static ConfigSpace config_space();
  // Poisons C, launches `config` on `stream`, and returns the max relative error against the
  // double-precision reference (synchronizing that stream only). NaN when an output is NaN.
  double max_relative_error(Stream& stream, const Config& config);

 private:
  friend CudaKernelOf;
  // Throws LaunchError unless (TILE, PER_THREAD) is a compiled variant.
  MatmulParams params(const Config& config) const;
  cudaError_t enqueue(cudaStream_t stream, const MatmulParams& params, void* args);

  int m_, n_, k_;
  std::vector<double> reference_;  // m x n
  double reference_scale_ = 0;     // max |reference_|
  DeviceBuffer<float> a_, b_, c_;
};

}  // namespace safetune::cuda
