#include "cuda_device.h"

#include <algorithm>

namespace safetune::cuda {
namespace {

CudaDeviceProperties read_properties(int ordinal) {
  cudaDeviceProp props{};
  check_cuda(cudaGetDeviceProperties(&props, ordinal),
             "cudaGetDeviceProperties(" + std::to_string(ordinal) + ")");
  return CudaDeviceProperties{.name = props.name,
                              .multiprocessors = props.multiProcessorCount,
                              .max_threads_per_block = props.maxThreadsPerBlock,
                              .shared_memory_per_block = props.sharedMemPerBlock,
                              .l2_bytes = static_cast<std::size_t>(props.l2CacheSize)};
}

// Twice L2, and at least 8 MiB should a device report no L2 size.
std::size_t flush_bytes(const CudaDeviceProperties& props) {
  return std::max<std::size_t>(2 * props.l2_bytes, std::size_t{8} << 20);
}

}  // namespace

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  check_cuda(cudaSetDevice(ordinal), "cudaSetDevice(" + std::to_string(ordinal) + ")");
  properties_ = read_properties(ordinal);
  flush_buffer_ = DeviceBuffer<unsigned char>(flush_bytes(properties_), "L2 flush buffer");
}

std::unique_ptr<CudaStream> CudaDevice::new_stream() {
  return std::make_unique<CudaStream>(next_stream_id_.fetch_add(1, std::memory_order_relaxed));
}

void CudaDevice::flush_l2(cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(flush_buffer_.data(), 0x5a, flush_buffer_.size(), stream),
             "cudaMemsetAsync(L2 flush)");
}

TunerOptions CudaDevice::tuner_options() {
  TunerOptions options;
  options.bench_lock = &bench_lock_;
  return options;
}

}  // namespace safetune::cuda
