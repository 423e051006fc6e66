#include "cuda_stream.h"

#include <string>

#include "cuda_check.h"

namespace safetune::cuda {

CudaStream::CudaStream(int id) : Stream(&kCudaStreamKind), id_(id) {
  check_cuda(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
}

CudaStream::~CudaStream() {
  // Drain first so that no queued work refers to buffers freed after the stream; errors here
  // cannot be reported from a destructor and were already reported by the work's own checks.
  cudaStreamSynchronize(handle_);
  cudaStreamDestroy(handle_);
}

void CudaStream::synchronize() {
  check_cuda(cudaStreamSynchronize(handle_), "cudaStreamSynchronize(stream " + std::to_string(id_) + ")");
}

void throw_not_a_cuda_stream(const Stream& stream) {
  throw LaunchError("stream " + std::to_string(stream.id()) + " is not a CUDA stream (" +
                    kind_description(stream) + ")");
}

}  // namespace safetune::cuda
