// DeviceBuffer<T>: RAII device memory (cudaMalloc/cudaFree), with checked copies.
//
// Invariant: data() is a live allocation of size() elements, or null when size() == 0.
// Copies to and from the host are synchronous (cudaMemcpy): for setup and verification only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"

namespace safetune::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `what` names the buffer in error messages.
  DeviceBuffer(std::size_t size, const std::string& what) : size_(size) {
    if (size == 0) return;
    void* data = nullptr;
    check_cuda(cudaMalloc(&data, size * sizeof(T)), "cudaMalloc(" + what + ")");
    data_ = static_cast<T*>(data);
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);  // a failing free cannot be reported from a destructor
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }

  void upload(const std::vector<T>& host) {
    if (host.size() != size_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    check_cuda(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(upload)");
  }
  std::vector<T> download() const {
    std::vector<T> host(size_);
    check_cuda(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy(download)");
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace safetune::cuda
