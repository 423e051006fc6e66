// CudaStream: one CUDA stream, the device's Stream. Each calling thread uses its own.
//
// The stream is created non-blocking, so it never synchronizes with the legacy default stream:
// two threads' streams run concurrently. synchronize() checks the return code (CudaError).
#pragma once

#include <cuda_runtime_api.h>

#include "impl/kernel.h"

namespace safetune::cuda {

// The kind of every CudaStream, and of no other stream.
inline constexpr StreamKind kCudaStreamKind{"cuda"};

class CudaStream final : public Stream {
 public:
  // Throws CudaError when the stream cannot be created. `id` must be unique per device.
  explicit CudaStream(int id);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  void synchronize() override;
  int id() const override { return id_; }
  cudaStream_t handle() const { return handle_; }

 private:
  cudaStream_t handle_ = nullptr;  // next to Stream's kind: cuda_handle reads both
  const int id_;
};

[[noreturn]] void throw_not_a_cuda_stream(const Stream& stream);

// The CUDA stream behind `stream`. Throws LaunchError when `stream` is not a CudaStream (a
// kernel of the CUDA device was handed another device's stream). Inline, and the stream's kind
// rather than RTTI: every tuned launch runs it, and the kind is next to the handle, where
// typeid reads two more lines. (On the H200 the difference was below what docs/gpu.md's
// paired benchmark resolves; fewer lines is the reason, not a measured gain.)
inline cudaStream_t cuda_handle(Stream& stream) {
  if (stream.kind() != &kCudaStreamKind) [[unlikely]] throw_not_a_cuda_stream(stream);
  return static_cast<CudaStream&>(stream).handle();
}

}  // namespace safetune::cuda
