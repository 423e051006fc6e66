// CudaStream: one CUDA stream, the device's Stream. Each calling thread uses its own.
//
// The stream is created non-blocking, so it never synchronizes with the legacy default stream:
// two threads' streams run concurrently. synchronize() checks the return code (CudaError).
#pragma once

#include <cuda_runtime_api.h>

#include <typeinfo>

#include "impl/kernel.h"

namespace safetune::cuda {

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
  const int id_;
  cudaStream_t handle_ = nullptr;
};

[[noreturn]] void throw_not_a_cuda_stream(const Stream& stream);

// The CUDA stream behind `stream`. Throws LaunchError when `stream` is not a CudaStream (a
// kernel of the CUDA device was handed another device's stream). Inline, and typeid rather than
// dynamic_cast: every tuned launch runs it, and CudaStream is final, so an exact type
// comparison is the whole check (docs/gpu.md measures what a call elsewhere costs a launch).
inline cudaStream_t cuda_handle(Stream& stream) {
  if (typeid(stream) != typeid(CudaStream)) [[unlikely]] throw_not_a_cuda_stream(stream);
  return static_cast<CudaStream&>(stream).handle();
}

}  // namespace safetune::cuda
