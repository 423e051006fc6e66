// Checking CUDA return codes.
//
// Every CUDA runtime call in impl/cuda goes through check_cuda, so no error is silently dropped:
//   - check_cuda(code, what) throws CudaError naming the call and the CUDA error.
//   - check_launch(what) reads the launch's error (cudaGetLastError). A launch the device refuses
//     (too many threads per block, too much shared memory, a bad grid) throws LaunchError, which
//     the autotuner records as a failed bench of that config instead of crashing.
// This header has no CUDA include, so CPU-side code may name CudaError.
#pragma once

#include <stdexcept>
#include <string>

#include "impl/kernel.h"

namespace safetune::cuda {

// A CUDA runtime call failed (not a launch the device refused: that is a LaunchError).
struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `code` is a cudaError_t; `what` names the call and its subject, e.g. "cudaMalloc(flush buffer)".
void check_cuda(int code, const std::string& what);
// Throws LaunchError when the last launch on this thread failed; `what` names kernel and config.
void check_launch(const std::string& what);
// The CUDA error's name and description, e.g. "cudaErrorInvalidValue: invalid argument".
std::string cuda_error_text(int code);

}  // namespace safetune::cuda
