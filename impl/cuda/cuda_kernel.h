// CudaKernel: the base of every real CUDA kernel the autotuner tunes.
//
// A kernel derives from CudaKernelOf<Derived, Params> and gives two functions:
//   - Params params(const Config&) const: reads the config into the kernel's launch parameters;
//     throws LaunchError for a config the kernel does not have (a missing or bad parameter);
//   - cudaError_t enqueue(cudaStream_t, const Params&, void* args): enqueues one launch and
//     returns the code of the runtime calls it made itself (device_kernels.h's functions return
//     it), so that it can end in a tail call; must not synchronize, and must not write state
//     shared between calls (it runs on many threads).
// The base turns those into the Kernel interface:
//   - launch(inv, config): reads the config, enqueues on inv.stream's CUDA stream, then checks
//     the launch error. A refused launch (too many threads, too much shared memory) is a
//     LaunchError, which the autotuner records as a failed bench.
//   - prepare(config): the same launch with the config read once. The autotuner launches tuned
//     keys through it: its enqueue half tail-calls the kernel's enqueue, so a tuned call costs
//     two virtual calls on top of the bare launch, and no frame of ours that the driver's
//     enqueue returns through.
//   - benchmark(inv, config): times the launch with CUDA events (event_timer.h): warm-up,
//     repetitions, median, an L2 flush before each timed repetition.
// inv.args is the kernel's own argument struct, or null for its built-in problem (the data it
// benchmarks and verifies on). The per-device BenchLock is taken by the autotuner
// (CudaDevice::tuner_options), not here.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <utility>

#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_stream.h"
#include "event_timer.h"
#include "impl/kernel.h"

namespace safetune::cuda {

class CudaKernel : public Kernel {
 public:
  // Throws std::invalid_argument on bad timing (validate).
  CudaKernel(CudaDevice& device, std::string name, BenchTiming timing);

  const std::string& name() const override { return name_; }
  CudaDevice& device() const { return device_; }
  const BenchTiming& timing() const { return timing_; }

 protected:
  // Throws LaunchError naming this kernel and `config` when the last launch on this thread failed.
  // Inline so that the hot path pays one cudaGetLastError; the message is built only on failure.
  void check_launched(const std::string& config) const {
    const cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess) throw_launch_failed(config, error);
  }

 private:
  [[noreturn]] void throw_launch_failed(const std::string& config, cudaError_t error) const;

  CudaDevice& device_;
  const std::string name_;
  const BenchTiming timing_;
};

template <class Derived, class Params>
class CudaKernelOf : public CudaKernel {
 public:
  using CudaKernel::CudaKernel;

  void launch(const Invocation& inv, const Config& config) final {
    enqueue_checked(cuda_handle(inv.stream), self().params(config), inv.args, config.str());
  }

  double benchmark(const Invocation& inv, const Config& config) final {
    const Params params = self().params(config);
    const cudaStream_t stream = cuda_handle(inv.stream);
    return time_median_ns(device(), stream, [&] { enqueue_checked(stream, params, inv.args, config.str()); },
                          timing());
  }

  std::unique_ptr<PreparedLaunch> prepare(const Config& config) override {
    return std::make_unique<Prepared>(*this, self().params(config), config.str());
  }

 private:
  // Holds the parameters and the config's text (for the error message) by value, and calls the
  // final Derived's enqueue directly, as a tail call (PreparedLaunch says why).
  class Prepared final : public PreparedLaunch {
   public:
    Prepared(CudaKernelOf& kernel, Params params, std::string config)
        : kernel_(kernel), params_(std::move(params)), config_(std::move(config)) {}
    int enqueue(const Invocation& inv) const override {
      return kernel_.self().enqueue(cuda_handle(inv.stream), params_, inv.args);
    }
    void finish(int status) const override { kernel_.check_enqueued(static_cast<cudaError_t>(status), config_); }

   private:
    CudaKernelOf& kernel_;
    const Params params_;
    const std::string config_;
  };

  Derived& self() { return static_cast<Derived&>(*this); }

  void enqueue_checked(cudaStream_t stream, const Params& params, void* args, const std::string& config) {
    check_enqueued(self().enqueue(stream, params, args), config);
  }

  // Throws CudaError for a runtime call of the enqueue that failed, then LaunchError for a launch
  // the device refused. Inline, and no message built unless one failed.
  void check_enqueued(cudaError_t code, const std::string& config) const {
    if (code != cudaSuccess) [[unlikely]] check_cuda(code, name());
    check_launched(config);
  }
};

// The value of `param` in `config`; LaunchError naming kernel, config and param when missing.
int config_param(const std::string& kernel, const Config& config, const char* param);

}  // namespace safetune::cuda
