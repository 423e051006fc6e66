#include "reduction_kernel.h"

#include <numeric>
#include <stdexcept>

#include "cuda_stream.h"
#include "device_kernels.h"
#include "random_data.h"

namespace safetune::cuda {

ReductionKernel::ReductionKernel(CudaDevice& device, int n, BenchTiming timing)
    : CudaKernelOf(device, "reduction", timing),
      n_(n),
      in_(static_cast<std::size_t>(std::max(n, 1)), "reduction input"),
      out_(1, "reduction output") {
  if (n < 1) throw std::invalid_argument("ReductionKernel: n must be >= 1, got " + std::to_string(n));
  const std::vector<int> values = random_ints(in_.size(), fresh_seed());
  in_.upload(values);
  expected_ = std::accumulate(values.begin(), values.end(), 0LL);
}

ConfigSpace ReductionKernel::config_space() {
  std::vector<Config> configs;
  for (int block = 64; block <= 1024; block *= 2) {
    for (int items : {1, 4, 16}) configs.emplace_back(std::vector<Config::Param>{{"BLOCK", block}, {"ITEMS", items}});
  }
  return ConfigSpace(std::move(configs));
}

long long ReductionKernel::run_once(Stream& stream, const Config& config) {
  const cudaStream_t handle = cuda_handle(stream);
  check_cuda(cudaMemsetAsync(out_.data(), 0x7f, sizeof(long long), handle), "cudaMemsetAsync(poison sum)");
  launch(Invocation{"check", stream}, config);
  long long sum = 0;
  check_cuda(cudaMemcpyAsync(&sum, out_.data(), sizeof sum, cudaMemcpyDeviceToHost, handle), "cudaMemcpyAsync(sum)");
  check_cuda(cudaStreamSynchronize(handle), "cudaStreamSynchronize(reduction check)");
  return sum;
}

ReductionParams ReductionKernel::params(const Config& config) const {
  const int block = config_param(name(), config, "BLOCK");
  // The tree reduction halves the block each step: any other size would drop values.
  if (block < 32 || block > 1024 || (block & (block - 1)) != 0) {
    throw LaunchError("reduction: config '" + config.str() + "': BLOCK must be a power of two in [32, 1024]");
  }
  return {block, config_param(name(), config, "ITEMS")};
}

cudaError_t ReductionKernel::enqueue(cudaStream_t stream, const ReductionParams& params, void* args) {
  const ReductionArgs in = args != nullptr ? *static_cast<const ReductionArgs*>(args)
                                           : ReductionArgs{in_.data(), out_.data(), n_};
  return enqueue_reduction(in.in, in.out, in.n, params.block, params.items, stream);
}

}  // namespace safetune::cuda
