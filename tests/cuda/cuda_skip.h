// Every CUDA test starts with SAFETUNE_REQUIRE_CUDA(): it asks cudaGetDeviceCount and, when no
// device is usable (here: cudaErrorInsufficientDriver), skips with the reason, so ctest reports
// the test as skipped, never as passed.
#pragma once

#include <gtest/gtest.h>

#include "impl/cuda/cuda_probe.h"

#define SAFETUNE_REQUIRE_CUDA()                                                   \
  do {                                                                            \
    const ::safetune::cuda::CudaProbe probe_ = ::safetune::cuda::probe_cuda();    \
    if (probe_.devices == 0) GTEST_SKIP() << "no usable CUDA device: " << probe_.reason; \
  } while (false)
