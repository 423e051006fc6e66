#include "matmul_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "cuda_stream.h"
#include "device_kernels.h"
#include "random_data.h"

namespace safetune::cuda {
namespace {

std::vector<double> reference_product(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  std::vector<double> c(static_cast<std::size_t>(m) * n, 0.0);
  for (int i = 0; i < m; ++i) {
    for (int p = 0; p < k; ++p) {
      const double a_ip = a[static_cast<std::size_t>(i) * k + p];
      const float* b_row = &b[static_cast<std::size_t>(p) * n];
      double* c_row = &c[static_cast<std::size_t>(i) * n];
      for (int j = 0; j < n; ++j) c_row[j] += a_ip * b_row[j];
    }
  }
  return c;
}

std::size_t checked_size(int rows, int cols, const char* what) {
  if (rows < 1 || cols < 1) {
    throw std::invalid_argument(std::string("MatmulKernel: ") + what + " must be at least 1 x 1, got " +
                                std::to_string(rows) + " x " + std::to_string(cols));
  }
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

}  // namespace

MatmulKernel::MatmulKernel(CudaDevice& device, int m, int n, int k, BenchTiming timing)
    : CudaKernelOf(device, "matmul_fp32", timing),
      m_(m), n_(n), k_(k),
      a_(checked_size(m, k, "A"), "matmul A"),
      b_(checked_size(k, n, "B"), "matmul B"),
      c_(checked_size(m, n, "C"), "matmul C") {
  const std::uint64_t seed = fresh_seed();
  const std::vector<float> a = random_floats(a_.size(), seed);
  const std::vector<float> b = random_floats(b_.size(), seed + 1);
  a_.upload(a);
  b_.upload(b);
  reference_ = reference_product(a, b, m, n, k);
  for (double x : reference_) reference_scale_ = std::max(reference_scale_, std::abs(x));
}

ConfigSpace MatmulKernel::config_space() {
  std::vector<Config> configs;
  const int variants[][2] = {{8, 1},  {16, 1}, {16, 2}, {16, 4}, {32, 1},  {32, 2},
                             {32, 4}, {32, 8}, {64, 4}, {64, 8}, {64, 16}, {128, 16}};
  for (const auto& v : variants) configs.emplace_back(std::vector<Config::Param>{{"TILE", v[0]}, {"PER_THREAD", v[1]}});
  return ConfigSpace(std::move(configs));
}

double MatmulKernel::max_relative_error(Stream& stream, const Config& config) {
  const cudaStream_t handle = cuda_handle(stream);
  check_cuda(cudaMemsetAsync(c_.data(), 0xff, c_.size() * sizeof(float), handle), "cudaMemsetAsync(poison C)");
  launch(Invocation{"check", stream}, config);
  std::vector<float> c(c_.size());
  check_cuda(cudaMemcpyAsync(c.data(), c_.data(), c.size() * sizeof(float), cudaMemcpyDeviceToHost, handle),
             "cudaMemcpyAsync(matmul C)");
  check_cuda(cudaStreamSynchronize(handle), "cudaStreamSynchronize(matmul check)");
  double worst = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double error = std::abs(static_cast<double>(c[i]) - reference_[i]);
    if (std::isnan(error)) return std::numeric_limits<double>::quiet_NaN();
    worst = std::max(worst, error);
  }
  return worst / reference_scale_;
}

MatmulParams MatmulKernel::params(const Config& config) const {
  const int tile = config_param(name(), config, "TILE");
  const int per_thread = config_param(name(), config, "PER_THREAD");
  if (!matmul_has_variant(tile, per_thread)) {
    throw LaunchError("matmul_fp32: config '" + config.str() + "' has no compiled variant");
  }
  return {tile, per_thread};
}

cudaError_t MatmulKernel::enqueue(cudaStream_t stream, const MatmulParams& params, void* args) {
  const MatmulArgs in = args != nullptr ? *static_cast<const MatmulArgs*>(args)
                                        : MatmulArgs{a_.data(), b_.data(), c_.data(), m_, n_, k_};
  return enqueue_matmul(in.a, in.b, in.c, in.m, in.n, in.k, params.tile, params.per_thread, stream);
}

}  // namespace safetune::cuda
