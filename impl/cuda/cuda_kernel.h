// CudaKernel: the base of every real CUDA kernel the autotuner tunes.
//
// A subclass says how to enqueue one launch of a config on a CUDA stream (enqueue). The base
// turns that into the Kernel interface:
//   - launch(inv, config): enqueues on inv.stream's CUDA stream, then checks the launch error;
//     a refused launch (too many threads, too much shared memory, a config the kernel does not
//     have) is a LaunchError, which the autotuner records as a failed bench.
//   - benchmark(inv, config): times enqueue with CUDA events (event_timer.h): warm-up,
//     repetitions, median, an L2 flush before each timed repetition.
// inv.args is the subclass's own argument struct, or null for the kernel's built-in problem
// (the data it benchmarks and verifies on). The per-device BenchLock is taken by the autotuner
// (CudaDevice::tuner_options), not here. Thread-safe when enqueue is (it must not write state
// shared between calls).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cuda_device.h"
#include "event_timer.h"
#include "impl/kernel.h"

namespace safetune::cuda {

class CudaKernel : public Kernel {
 public:
  // Throws std::invalid_argument on bad timing (validate).
  CudaKernel(CudaDevice& device, std::string name, BenchTiming timing);

  const std::string& name() const override { return name_; }
  void launch(const Invocation& inv, const Config& config) final;
  double benchmark(const Invocation& inv, const Config& config) final;

  CudaDevice& device() const { return device_; }

 protected:
  // Enqueues one launch on `stream`. Throws LaunchError for a config the kernel cannot run.
  // Must not synchronize. The base checks cudaGetLastError afterwards.
  virtual void enqueue(cudaStream_t stream, const Config& config, void* args) = 0;

 private:
  void checked_enqueue(cudaStream_t stream, const Config& config, void* args);

  CudaDevice& device_;
  const std::string name_;
  const BenchTiming timing_;
};

// The value of `param` in `config`; LaunchError naming kernel, config and param when missing.
int config_param(const std::string& kernel, const Config& config, const char* param);

}  // namespace safetune::cuda
