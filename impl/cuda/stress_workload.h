// CudaStressWorkload: what `safetune stress --device cuda` runs, behind a header with no CUDA
// include, so the stress runner compiles the same with or without CUDA.
//
// Contract:
//   - kernel() is a vector add (the trace's kernel name is given at creation). Each stream from
//     new_stream() has its own inputs and output; a launch on a stream first poisons that
//     stream's output, then adds, so verify() sees only what that launch wrote.
//   - new_stream() must be called before any thread calls kernel() (the streams' buffers are
//     then only read, never added to, so launches need no lock).
//   - verify(stream) copies that stream's output back, synchronizing that stream only (other
//     threads' streams keep running), and throws OutputMismatch when any element differs from
//     a + b. A thread verifies only its own stream.
//   - config i of config_space(count) is BLOCK = 32 * (i % 32 + 1), ITEMS = i / 32 + 1;
//     fallback_config() is BLOCK=16,ITEMS=1, in no space, so a fallback launch shows as one.
//   - bench_lock() is the device's BenchLock: on by default for CUDA.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "impl/bench_lock.h"
#include "impl/config.h"
#include "impl/kernel.h"

namespace safetune::cuda {

struct OutputMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CudaStressWorkload {
 public:
  // Opens device 0. Throws CudaError when it cannot.
  static std::unique_ptr<CudaStressWorkload> create(std::string kernel_name);
  static ConfigSpace config_space(int count);
  static Config fallback_config();

  virtual ~CudaStressWorkload() = default;
  virtual std::unique_ptr<Stream> new_stream() = 0;
  virtual Kernel& kernel() = 0;
  virtual BenchLock& bench_lock() = 0;
  virtual void verify(Stream& stream) = 0;
};

}  // namespace safetune::cuda
