// CudaDevice: one CUDA device as the autotuner sees it.
//
// It owns what every kernel benchmark on the device shares:
//   - the per-device BenchLock, on by default (tuner_options() hands it to each autotuner), so
//     that benchmarks of different keys and kernels never overlap and disturb each other;
//   - the L2 flush buffer: a timed repetition is preceded by a write of a buffer twice the L2's
//     size on the same stream, so that no repetition finds its inputs already in L2;
//   - stream ids, unique per device (the trace's `stream`).
// Thread-safe: any thread may ask for a stream, flush L2 on its own stream, or read properties.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "cuda_stream.h"
#include "device_buffer.h"
#include "impl/autotuner.h"
#include "impl/bench_lock.h"

namespace safetune::cuda {

struct CudaDeviceProperties {
  std::string name;
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  std::size_t shared_memory_per_block = 0;  // the default limit, without opting in
  std::size_t l2_bytes = 0;
};

class CudaDevice {
 public:
  // Selects device `ordinal` on the calling thread and allocates the flush buffer. Throws
  // CudaError (no such device, out of memory).
  explicit CudaDevice(int ordinal = 0);

  int ordinal() const { return ordinal_; }
  const CudaDeviceProperties& properties() const { return properties_; }
  std::unique_ptr<CudaStream> new_stream();
  // Enqueues a write of the flush buffer on `stream`: evicts every line a timed launch could reuse.
  void flush_l2(cudaStream_t stream);
  BenchLock& bench_lock() { return bench_lock_; }
  // TunerOptions with this device's bench lock set (the CUDA default); other fields default.
  TunerOptions tuner_options();

 private:
  const int ordinal_;
  CudaDeviceProperties properties_;
  DeviceBuffer<unsigned char> flush_buffer_;
  BenchLock bench_lock_;
  std::atomic<int> next_stream_id_{0};  // relaxed: only uniqueness matters, not ordering
};

}  // namespace safetune::cuda
