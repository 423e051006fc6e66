// Every config of every real kernel computes the right answer on fresh random data: exact for
// the vector add and the reduction, within kMatmulTolerance for the fp32 matrix multiply, both
// through launch(inv, config) and through the config's prepared launch (what tuned calls use).
// A config the device refuses is a LaunchError (a failed bench), not a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "impl/cuda/matmul_kernel.h"
#include "impl/cuda/reduction_kernel.h"
#include "impl/cuda/vector_add_kernel.h"
#include "tests/cuda/cuda_skip.h"

namespace safetune::cuda {
namespace {

TEST(VectorAddKernel, EveryConfigIsExact) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  VectorAddKernel add(device, (1 << 20) + 37);  // not a multiple of any block: tails are covered
  const ConfigSpace space = VectorAddKernel::config_space();  // a range-for over a temporary's member would dangle
  for (const Config& config : space.configs()) {
    add.problem().poison(stream->handle());
    add.launch(Invocation{"k", *stream}, config);
    EXPECT_EQ(add.problem().mismatches(stream->handle()), 0u) << config.str();
  }
}

TEST(VectorAddKernel, EveryConfigsPreparedLaunchIsExact) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  VectorAddKernel add(device, (1 << 20) + 37);
  const ConfigSpace space = VectorAddKernel::config_space();
  for (const Config& config : space.configs()) {
    const std::unique_ptr<PreparedLaunch> prepared = add.prepare(config);
    add.problem().poison(stream->handle());
    prepared->launch(Invocation{"k", *stream});
    EXPECT_EQ(add.problem().mismatches(stream->handle()), 0u) << config.str();
  }
}

TEST(VectorAddKernel, TheCheckCatchesAnUnwrittenOutput) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  VectorAddKernel add(device, 1000);
  add.problem().poison(stream->handle());
  EXPECT_EQ(add.problem().mismatches(stream->handle()), 1000u);
}

TEST(VectorAddKernel, TooManyThreadsPerBlockIsALaunchError) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  VectorAddKernel add(device, 1000);
  EXPECT_THROW(add.launch(Invocation{"k", *stream}, Config::parse("BLOCK=2048,ITEMS=1")), LaunchError);
  EXPECT_THROW(add.benchmark(Invocation{"k", *stream}, Config::parse("BLOCK=2048,ITEMS=1")), LaunchError);
  EXPECT_THROW(add.launch(Invocation{"k", *stream}, Config::parse("BLOCK=256")), LaunchError);  // no ITEMS
  // Prepared: a missing parameter fails in prepare, a refused launch in the launch itself.
  EXPECT_THROW(add.prepare(Config::parse("BLOCK=256")), LaunchError);
  EXPECT_THROW(add.prepare(Config::parse("BLOCK=2048,ITEMS=1"))->launch(Invocation{"k", *stream}), LaunchError);
  // The refused launch left no sticky error: the next good launch works.
  add.problem().poison(stream->handle());
  add.launch(Invocation{"k", *stream}, Config::parse("BLOCK=256,ITEMS=1"));
  EXPECT_EQ(add.problem().mismatches(stream->handle()), 0u);
}

TEST(ReductionKernel, EveryConfigIsExact) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  ReductionKernel sum(device, (1 << 20) + 101);
  const ConfigSpace space = ReductionKernel::config_space();  // a range-for over a temporary's member would dangle
  for (const Config& config : space.configs()) {
    EXPECT_EQ(sum.run_once(*stream, config), sum.expected_sum()) << config.str();
  }
}

TEST(ReductionKernel, ABlockThatIsNotAPowerOfTwoIsALaunchError) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  ReductionKernel sum(device, 1000);
  EXPECT_THROW(sum.launch(Invocation{"k", *stream}, Config::parse("BLOCK=96,ITEMS=1")), LaunchError);
  EXPECT_THROW(sum.prepare(Config::parse("BLOCK=96,ITEMS=1")), LaunchError);
}

// Odd sizes, so that every edge tile is partial.
TEST(MatmulKernel, EveryLaunchableConfigIsWithinTolerance) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  MatmulKernel matmul(device, 257, 193, 331);
  const ConfigSpace space = MatmulKernel::config_space();  // a range-for over a temporary's member would dangle
  for (const Config& config : space.configs()) {
    if (config == Config::parse("TILE=128,PER_THREAD=16")) continue;  // refused: see the next test
    const double error = matmul.max_relative_error(*stream, config);
    EXPECT_LE(error, kMatmulTolerance) << config.str();  // false for NaN too
  }
}

TEST(MatmulKernel, TooMuchSharedMemoryIsALaunchError) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  MatmulKernel matmul(device, 64, 64, 64);
  EXPECT_THROW(matmul.launch(Invocation{"k", *stream}, Config::parse("TILE=128,PER_THREAD=16")), LaunchError);
  EXPECT_THROW(matmul.launch(Invocation{"k", *stream}, Config::parse("TILE=24,PER_THREAD=1")), LaunchError);
  EXPECT_THROW(matmul.prepare(Config::parse("TILE=128,PER_THREAD=16"))->launch(Invocation{"k", *stream}),
               LaunchError);
  EXPECT_THROW(matmul.prepare(Config::parse("TILE=24,PER_THREAD=1")), LaunchError);
  EXPECT_LE(matmul.max_relative_error(*stream, Config::parse("TILE=32,PER_THREAD=4")), kMatmulTolerance);
}

}  // namespace
}  // namespace safetune::cuda
