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

// The other thread reads, when lock() lets it in, how many holds the main thread still has: it
// must see none. It announces that it is about to call lock(), so the check cannot pass because it
// had not started; the main thread keeps each hold 50 ms after that, so a lock that lets it in
// early is seen holding 2 or 1 (a slow start only makes the check weaker, never wrong).
TEST(BenchLock, ExcludesOtherThreadsUntilFullyReleased) {
  run_with_deadline([] {
    BenchLock lock;
    lock.lock();
    lock.lock();
    std::atomic<int> main_holds{2};
    std::atomic<bool> other_locking{false};
    std::atomic<int> seen_at_entry{-1};
    std::thread other([&] {
      other_locking = true;
      lock.lock();
      seen_at_entry = main_holds.load();
      lock.unlock();
    });
    while (!other_locking) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    main_holds = 1;
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    main_holds = 0;  // before the last unlock: the other thread may only enter after it
    lock.unlock();
    other.join();
    EXPECT_EQ(seen_at_entry, 0);
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
