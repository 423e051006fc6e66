#include "impl/sim/sim_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "impl/sim/sim_device.h"
#include "recording_noise.h"

namespace safetune::sim {
namespace {

using namespace std::chrono_literals;
using testing::RecordingNoise;

TEST(SimStream, RunsWorkInEnqueueOrder) {
  SimDevice device;
  auto stream = device.new_stream();
  std::vector<int> order;  // written only by the worker, read after synchronize
  for (int i = 0; i < 50; ++i) stream->enqueue([&order, i] { order.push_back(i); });
  stream->synchronize();
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(stream->completed(), 50u);
}

TEST(SimStream, SynchronizeBlocksUntilQueuedWorkFinishes) {
  SimDevice device;
  auto stream = device.new_stream();
  std::atomic<bool> finished{false};
  stream->enqueue([&] {
    std::this_thread::sleep_for(30ms);
    finished.store(true);
  });
  const auto start = std::chrono::steady_clock::now();
  stream->synchronize();
  EXPECT_TRUE(finished.load());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 25ms);
}

TEST(SimStream, EnqueueDoesNotWaitForTheWork) {
  SimDevice device;
  auto stream = device.new_stream();
  std::atomic<bool> release{false};
  stream->enqueue([&] {
    while (!release.load()) std::this_thread::yield();
  });
  stream->enqueue([] {});  // must return while the first item is still blocked
  EXPECT_EQ(stream->completed(), 0u);
  release.store(true);
  stream->synchronize();
  EXPECT_EQ(stream->completed(), 2u);
}

TEST(SimStream, SynchronizeOnAnIdleStreamReturns) {
  SimDevice device;
  auto stream = device.new_stream();
  stream->synchronize();
  EXPECT_EQ(stream->completed(), 0u);
}

TEST(SimStream, DestructorRunsQueuedWorkThenJoins) {
  std::atomic<int> ran{0};
  {
    SimDevice device;
    auto stream = device.new_stream();
    for (int i = 0; i < 20; ++i) {
      stream->enqueue([&] {
        std::this_thread::sleep_for(100us);
        ran.fetch_add(1);
      });
    }
  }  // no synchronize: the destructor must still run everything and join the worker
  EXPECT_EQ(ran.load(), 20);
}

TEST(SimStream, IdsAreUniquePerDeviceEvenAcrossThreads) {
  SimDevice device;
  std::vector<std::unique_ptr<SimStream>> streams(16);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    threads.emplace_back([&, i] { streams[i] = device.new_stream(); });
  }
  for (auto& thread : threads) thread.join();
  std::set<int> ids;
  for (const auto& stream : streams) ids.insert(stream->id());
  EXPECT_EQ(ids.size(), streams.size());
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), 15);
}

TEST(SimStream, NullNoiseIsRejected) {
  EXPECT_THROW(SimStream(3, nullptr), std::invalid_argument);
}

TEST(SimStream, CallsNoiseAtEnqueueAndSynchronize) {
  std::vector<SyncPoint> points;
  SimStream stream(0, std::make_unique<RecordingNoise>(points));
  stream.enqueue([] {});
  stream.synchronize();
  EXPECT_EQ(points, (std::vector<SyncPoint>{SyncPoint::Enqueue, SyncPoint::Synchronize}));
}

}  // namespace
}  // namespace safetune::sim
