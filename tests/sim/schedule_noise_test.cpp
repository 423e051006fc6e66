#include "impl/sim/schedule_noise.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "impl/sim/sim_device.h"

namespace safetune::sim {
namespace {

using namespace std::chrono_literals;

std::vector<std::chrono::nanoseconds> draws(RandomDelayNoise& noise, int count) {
  std::vector<std::chrono::nanoseconds> delays;
  for (int i = 0; i < count; ++i) delays.push_back(noise.draw());
  return delays;
}

TEST(ScheduleNoise, SameSeedReplaysTheSameDelays) {
  RandomDelayNoise first(42, {.probability = 0.5, .max_delay = 50us});
  RandomDelayNoise second(42, {.probability = 0.5, .max_delay = 50us});
  EXPECT_EQ(draws(first, 200), draws(second, 200));
}

TEST(ScheduleNoise, DifferentSeedsGiveDifferentDelays) {
  RandomDelayNoise first(42, {.probability = 0.5, .max_delay = 50us});
  RandomDelayNoise second(43, {.probability = 0.5, .max_delay = 50us});
  EXPECT_NE(draws(first, 200), draws(second, 200));
}

TEST(ScheduleNoise, DelaysRespectProbabilityAndBound) {
  RandomDelayNoise noise(7, {.probability = 0.25, .max_delay = 20us});
  int delayed = 0;
  for (auto delay : draws(noise, 4000)) {
    EXPECT_GE(delay.count(), 0);
    EXPECT_LE(delay, 20us);
    delayed += delay.count() > 0 ? 1 : 0;
  }
  // 4000 draws at 25%: 1000 expected, standard deviation about 27.
  EXPECT_GT(delayed, 850);
  EXPECT_LT(delayed, 1150);
}

TEST(ScheduleNoise, ZeroProbabilityNeverDelays) {
  RandomDelayNoise noise(7, {.probability = 0.0, .max_delay = 20us});
  for (auto delay : draws(noise, 1000)) EXPECT_EQ(delay.count(), 0);
}

TEST(ScheduleNoise, BadOptionsAreRejected) {
  EXPECT_THROW(RandomDelayNoise(1, {.probability = 1.5}), std::invalid_argument);
  EXPECT_THROW(RandomDelayNoise(1, {.probability = -0.1}), std::invalid_argument);
  EXPECT_THROW(RandomDelayNoise(1, {.max_delay = -1us}), std::invalid_argument);
  EXPECT_THROW(RandomDelayNoise(1, {.max_delay = 20ms}), std::invalid_argument);
  EXPECT_THROW(SimDevice({.noise = RandomDelayOptions{.probability = 2.0}}), std::invalid_argument);
}

TEST(ScheduleNoise, StreamSeedsAreReplayableAndDistinct) {
  EXPECT_EQ(stream_noise_seed(5, 0), stream_noise_seed(5, 0));
  EXPECT_NE(stream_noise_seed(5, 0), stream_noise_seed(5, 1));
  EXPECT_NE(stream_noise_seed(5, 0), stream_noise_seed(6, 0));
}

TEST(ScheduleNoise, DeviceGivesEachStreamIdTheSameNoiseEveryTime) {
  SimDevice device({.seed = 9, .noise = RandomDelayOptions{.probability = 0.5}});
  auto first = device.noise_for(3);
  auto again = device.noise_for(3);
  auto other = device.noise_for(4);
  auto& first_random = dynamic_cast<RandomDelayNoise&>(*first);
  auto& again_random = dynamic_cast<RandomDelayNoise&>(*again);
  auto& other_random = dynamic_cast<RandomDelayNoise&>(*other);
  const auto expected = draws(first_random, 100);
  EXPECT_EQ(draws(again_random, 100), expected);
  EXPECT_NE(draws(other_random, 100), expected);
}

TEST(ScheduleNoise, DeviceWithoutNoiseOptionsGivesNoNoise) {
  SimDevice device;
  auto noise = device.noise_for(0);
  EXPECT_NE(dynamic_cast<NoScheduleNoise*>(noise.get()), nullptr);
}

TEST(ScheduleNoise, NamesEverySyncPoint) {
  EXPECT_EQ(sync_point_name(SyncPoint::Enqueue), "enqueue");
  EXPECT_EQ(sync_point_name(SyncPoint::Synchronize), "synchronize");
  EXPECT_EQ(sync_point_name(SyncPoint::BeforeBenchmark), "before_benchmark");
  EXPECT_EQ(sync_point_name(SyncPoint::AfterBenchmark), "after_benchmark");
}

}  // namespace
}  // namespace safetune::sim
