// The reference autotuner on real CUDA kernels: threads on their own streams tune one key once,
// the refused config is a failed bench, the bench lock is on, and the trace passes the model.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "impl/autotuner.h"
#include "impl/cuda/matmul_kernel.h"
#include "impl/trace/trace_recorder.h"
#include "model/checker.h"
#include "tests/common/checked_trace.h"
#include "tests/cuda/cuda_skip.h"

namespace safetune::cuda {
namespace {

TEST(CudaAutotuner, TenThreadsOnTheirOwnStreamsTuneOneKeyOnce) {
  SAFETUNE_REQUIRE_CUDA();
  CudaDevice device;
  MatmulKernel matmul(device, 512, 512, 512, BenchTiming{1, 5});
  const ConfigSpace space = MatmulKernel::config_space();
  TraceRecorder recorder(testing::header_for(matmul, space));
  TunerOptions options = device.tuner_options();
  options.observer = &recorder;
  Autotuner tuner(matmul, space, options);
  constexpr int kThreads = 10;
  std::vector<std::unique_ptr<CudaStream>> streams;
  for (int t = 0; t < kThreads; ++t) streams.push_back(device.new_stream());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TraceRecorder::bind_thread(t);
      Stream& stream = *streams[static_cast<std::size_t>(t)];
      recorder.call_begin(matmul.name(), "512", stream.id());
      try {
        const Config& launched = tuner.call(Invocation{"512", stream});
        recorder.call_end(matmul.name(), "512", CallOutcome::returned(launched.str()), stream.id());
      } catch (const std::exception& error) {
        recorder.call_end(matmul.name(), "512", CallOutcome::raised(error.what()), stream.id());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (auto& stream : streams) stream->synchronize();

  const model::CheckResult result = model::check(recorder.snapshot());
  EXPECT_TRUE(result.violations.empty()) << testing::violation_text(result);
  EXPECT_EQ(result.stats.successful_tunings, 1);
  EXPECT_EQ(result.stats.benches, static_cast<std::int64_t>(space.size()));
  EXPECT_EQ(result.stats.failed_benches, 1);  // TILE=128,PER_THREAD=16: too much shared memory
  EXPECT_EQ(result.stats.errors, 0);
  const std::optional<Config> winner = tuner.tuned_config("512");
  ASSERT_TRUE(winner.has_value());
  EXPECT_NE(*winner, Config::parse("TILE=128,PER_THREAD=16"));
  EXPECT_LE(matmul.max_relative_error(*streams[0], *winner), kMatmulTolerance) << winner->str();
}

}  // namespace
}  // namespace safetune::cuda
