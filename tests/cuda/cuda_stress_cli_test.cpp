// `safetune stress` from a CUDA build chooses its device itself: cuda when cudaGetDeviceCount
// finds a device, else the sim device, and it says which and why on stderr. These tests hold on
// either kind of machine (they branch on the same probe the command uses), so they are never
// skipped: without a GPU they prove the fallback, with one they prove the choice of cuda.
#include <gtest/gtest.h>

#include <string>

#include "impl/cuda/cuda_probe.h"
#include "impl/posix/temp_directory.h"
#include "tests/stress/run_binary.h"

namespace safetune::stress::testing {
namespace {

bool has_gpu() { return cuda::probe_cuda().devices > 0; }

TEST(CudaStressCli, DefaultDeviceIsCudaWithAGpuElseSimAndTheRunSaysWhich) {
  const CommandResult result = run_safetune("stress --threads 4 --keys 2 --configs 4 --calls 10");
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("verdict: pass"), std::string::npos) << result.out;
  if (has_gpu()) {
    EXPECT_NE(result.err.find("CUDA device(s) found: using the cuda device"), std::string::npos)
        << result.err;
  } else {
    EXPECT_NE(result.err.find("no usable CUDA device ("), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("): using the sim device"), std::string::npos) << result.err;
  }
}

TEST(CudaStressCli, AskingForCudaRunsOnTheGpuElseIsAUsageErrorThatSaysWhy) {
  const CommandResult result = run_safetune("stress --device cuda --threads 2 --keys 1 --configs 4 --calls 5");
  if (has_gpu()) {
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("device: cuda"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("verdict: pass"), std::string::npos) << result.out;
  } else {
    EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
    EXPECT_NE(result.err.find("no usable CUDA device"), std::string::npos) << result.err;
  }
}

// A run on a store forks its worker processes, even one: the command must not initialize CUDA
// before the fork (its probe then runs in a child), or the worker's CUDA fails.
TEST(CudaStressCli, OneWorkerProcessOnAStoreRunsOnTheGpu) {
  const posix::TempDirectory store("safetune-cuda-store");
  const CommandResult result = run_safetune("stress --device cuda --processes 1 --threads 2 --keys 1 --configs 4 --calls 3 --store " + store.path());
  if (has_gpu()) {
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("verdict: pass"), std::string::npos) << result.out;
  } else {
    EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
    EXPECT_NE(result.err.find("no usable CUDA device"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace safetune::stress::testing
