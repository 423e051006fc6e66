// The CUDA device's plumbing: streams, return-code checks, event timing, the bench lock default.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "impl/cuda/cuda_check.h"
#include "impl/cuda/cuda_device.h"
#include "impl/cuda/event_timer.h"
#include "tests/cuda/cuda_skip.h"

namespace safetune::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// A stream of another device, to show that a CUDA kernel refuses it cleanly: of no kind, or of
// a kind of its own.
struct ForeignStream final : Stream {
  explicit ForeignStream(const StreamKind* kind = nullptr) : Stream(kind) {}
  void synchronize() override {}
  int id() const override { return 99; }
};
constexpr StreamKind kForeignKind{"foreign"};

TEST(CudaDevice, ReadsPropertiesAndHandsOutStreamsWithUniqueIds) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  EXPECT_GT(device.properties().multiprocessors, 0);
  EXPECT_GT(device.properties().l2_bytes, 0u);
  auto first = device.new_stream();
  auto second = device.new_stream();
  EXPECT_NE(first->id(), second->id());
  EXPECT_NE(first->handle(), second->handle());
  first->synchronize();
}

TEST(CudaDevice, TunerOptionsCarryTheDeviceBenchLock) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  EXPECT_EQ(device.tuner_options().bench_lock, &device.bench_lock());
}

TEST(CudaDevice, AFailingRuntimeCallThrowsCudaErrorNamingTheCall) {
  SAFETUNE_REQUIRE_CUDA();
  try {
    check_cuda(cudaSetDevice(-1), "cudaSetDevice(-1)");
    FAIL() << "cudaSetDevice(-1) did not fail";
  } catch (const CudaError& error) {
    EXPECT_NE(std::string(error.what()).find("cudaSetDevice(-1) failed"), std::string::npos) << error.what();
  }
}

// Needs no GPU: the check is on the host, before any CUDA call.
TEST(CudaDevice, AForeignStreamIsALaunchError) {
  ForeignStream of_no_kind;
  ForeignStream of_another_kind(&kForeignKind);
  // Through pointers g++ cannot follow: knowing the object, its -Warray-bounds would flag the
  // CudaStream read that the inline cuda_handle makes only after its kind check has passed.
  Stream* volatile opaque = &of_no_kind;
  EXPECT_THAT([&] { cuda_handle(*opaque); },
              ThrowsMessage<LaunchError>(HasSubstr("stream 99 is not a CUDA stream (it has no kind)")));
  opaque = &of_another_kind;
  EXPECT_THAT([&] { cuda_handle(*opaque); },
              ThrowsMessage<LaunchError>(HasSubstr("stream 99 is not a CUDA stream (its kind is 'foreign')")));
}

TEST(CudaDevice, ItsStreamsAreOfTheCudaKind) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  EXPECT_EQ(stream->kind(), &kCudaStreamKind);
  EXPECT_EQ(cuda_handle(*stream), stream->handle());
}

TEST(EventTimer, MedianOfALongerWorkloadIsLonger) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  auto stream = device.new_stream();
  DeviceBuffer<unsigned char> buffer(std::size_t{256} << 20, "timer test buffer");
  auto fill = [&](std::size_t bytes) {
    return [&, bytes] { check_cuda(cudaMemsetAsync(buffer.data(), 1, bytes, stream->handle()), "memset"); };
  };
  const double small = time_median_ns(device, stream->handle(), fill(std::size_t{1} << 20), {1, 5});
  const double large = time_median_ns(device, stream->handle(), fill(buffer.size()), {1, 5});
  EXPECT_GT(small, 0);
  EXPECT_GT(large, 4 * small) << "256 MiB took " << large << " ns, 1 MiB " << small << " ns";
}

TEST(EventTimer, RejectsBadTiming) {
  SAFETUNE_REQUIRE_CUDA();
  EXPECT_THROW(validate(BenchTiming{-1, 10}), std::invalid_argument);
  EXPECT_THROW(validate(BenchTiming{2, 0}), std::invalid_argument);
  EXPECT_NO_THROW(validate(BenchTiming{0, 1}));
}

}  // namespace
}  // namespace safetune::cuda
