// The benchmark lock: exclusive between threads, re-entrant for its holder, and yieldable.
#include "impl/bench_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "tests/impl/deadline.h"

namespace safetune {
namespace {

using testing::ready_in_time;
using testing::run_with_deadline;

TEST(BenchLock, IsReentrantForItsHolder) {
  run_with_deadline([] {
    BenchLock lock;
    lock.lock();
    lock.lock();
    EXPECT_TRUE(lock.held_by_this_thread());
    lock.unlock();
    EXPECT_TRUE(lock.held_by_this_thread());
    lock.unlock();
    EXPECT_FALSE(lock.held_by_this_thread());
  });
}

TEST(BenchLock, ExcludesOtherThreadsUntilFullyReleased) {
  run_with_deadline([] {
    BenchLock lock;
    lock.lock();
    lock.lock();
    std::atomic<bool> other_got_it{false};
    std::thread other([&] {
      lock.lock();
      other_got_it = true;
      lock.unlock();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(other_got_it);
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(other_got_it);  // one hold is still left
    lock.unlock();
    other.join();
    EXPECT_TRUE(other_got_it);
  });
}

TEST(BenchLock, UnlockWithoutHoldingIsAnError) {
  BenchLock lock;
  EXPECT_THROW(lock.unlock(), std::logic_error);
}

TEST(BenchLock, YieldReleasesEveryHoldAndTakesThemBack) {
  run_with_deadline([] {
    BenchLock lock;
    lock.lock();
    lock.lock();
    {
      BenchLockYield yield(&lock);
      yield.release();
      EXPECT_FALSE(lock.held_by_this_thread());
      auto other = std::async(std::launch::async, [&] {
        BenchLockHold hold(&lock);  // would block forever if the yield kept a hold
        return true;
      });
      ASSERT_TRUE(ready_in_time(other));
      EXPECT_TRUE(other.get());
    }
    EXPECT_TRUE(lock.held_by_this_thread());
    lock.unlock();
    EXPECT_TRUE(lock.held_by_this_thread());  // both holds came back
    lock.unlock();
    EXPECT_FALSE(lock.held_by_this_thread());
  });
}

TEST(BenchLock, YieldWithoutHoldsAndNullLockDoNothing) {
  BenchLock lock;
  {
    BenchLockYield yield(&lock);
    yield.release();
  }
  EXPECT_FALSE(lock.held_by_this_thread());
  BenchLockYield null_yield(nullptr);
  null_yield.release();
  BenchLockHold null_hold(nullptr);
}

}  // namespace
}  // namespace safetune
