// The GPU benchmarks' first line: without a usable CUDA device a benchmark reports
// SkipWithError naming the reason, so a machine without a GPU never shows a figure.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "cuda_probe.h"

namespace safetune::cuda {

inline bool skip_without_cuda(benchmark::State& state) {
  const CudaProbe probe = probe_cuda();
  if (probe.devices > 0) return false;
  state.SkipWithError(("no usable CUDA device: " + probe.reason).c_str());
  return true;
}

}  // namespace safetune::cuda
