// Timing one config with CUDA events: warm-up, timed repetitions, median.
//
// Contract of time_median_ns(device, stream, launch, timing):
//   - runs `launch` timing.warmup times untimed, then timing.repetitions times, each timed
//     repetition preceded by an L2 flush on the same stream and bracketed by two events, so the
//     flush is outside the measured interval;
//   - synchronizes only `stream` (other threads' streams keep running), then returns the median
//     of the repetitions in ns (the mean of the two middle ones for an even count);
//   - a LaunchError from `launch` propagates (a failed bench); any CUDA error is a CudaError.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "cuda_device.h"

namespace safetune::cuda {

struct BenchTiming {
  int warmup = 2;        // in [0, 1000]
  int repetitions = 10;  // in [1, 1000]
};

// Throws std::invalid_argument naming the bad field.
void validate(const BenchTiming& timing);

double time_median_ns(CudaDevice& device, cudaStream_t stream, const std::function<void()>& launch,
                      const BenchTiming& timing);

}  // namespace safetune::cuda
