#include "cuda_stream.h"

#include <typeinfo>

#include "cuda_check.h"

namespace safetune::cuda {

CudaStream::CudaStream(int id) : id_(id) {
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

cudaStream_t cuda_handle(Stream& stream) {
  // typeid, not dynamic_cast: this runs on every launch of a tuned key, and CudaStream is final,
  // so an exact type comparison is the whole check and costs a fraction of a cross-cast.
  if (typeid(stream) != typeid(CudaStream)) {
    throw LaunchError("stream " + std::to_string(stream.id()) + " is not a CUDA stream");
  }
  return static_cast<CudaStream&>(stream).handle();
}

}  // namespace safetune::cuda
