#include "vector_add_kernel.h"

#include <cmath>
#include <stdexcept>

#include "device_kernels.h"
#include "random_data.h"

namespace safetune::cuda {

VectorAddProblem::VectorAddProblem(int n, std::uint64_t seed)
    : n_(n),
      host_c_(static_cast<std::size_t>(n)),
      a_(static_cast<std::size_t>(n), "vector_add a"),
      b_(static_cast<std::size_t>(n), "vector_add b"),
      c_(static_cast<std::size_t>(n), "vector_add c") {
  if (n < 1) throw std::invalid_argument("VectorAddProblem: n must be >= 1, got " + std::to_string(n));
  const std::vector<float> a = random_floats(a_.size(), seed);
  const std::vector<float> b = random_floats(b_.size(), seed + 1);
  a_.upload(a);
  b_.upload(b);
  expected_.resize(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) expected_[i] = a[i] + b[i];
}

void VectorAddProblem::poison(cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(c_.data(), 0xff, c_.size() * sizeof(float), stream), "cudaMemsetAsync(poison c)");
}

std::size_t VectorAddProblem::mismatches(cudaStream_t stream) {
  check_cuda(cudaMemcpyAsync(host_c_.data(), c_.data(), c_.size() * sizeof(float), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(vector_add c)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(vector_add check)");
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < expected_.size(); ++i) wrong += host_c_[i] != expected_[i];  // NaN != anything
  return wrong;
}

VectorAddKernel::VectorAddKernel(CudaDevice& device, int n, BenchTiming timing)
    : CudaKernelOf(device, "vector_add", timing), problem_(n, fresh_seed()) {}

ConfigSpace VectorAddKernel::config_space() {
  std::vector<Config> configs;
  for (int block = 64; block <= 1024; block *= 2) {
    for (int items = 1; items <= 8; items *= 2) configs.emplace_back(std::vector<Config::Param>{{"BLOCK", block}, {"ITEMS", items}});
  }
  return ConfigSpace(std::move(configs));
}

VectorAddParams VectorAddKernel::params(const Config& config) const {
  return {config_param(name(), config, "BLOCK"), config_param(name(), config, "ITEMS")};
}

cudaError_t VectorAddKernel::enqueue(cudaStream_t stream, const VectorAddParams& params, void* args) {
  const VectorAddArgs in = args != nullptr ? *static_cast<const VectorAddArgs*>(args) : problem_.args();
  return enqueue_vector_add(in.a, in.b, in.c, in.n, params.block, params.items, stream);
}

}  // namespace safetune::cuda
