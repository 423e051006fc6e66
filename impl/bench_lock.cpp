// The per-device benchmark lock (impl/bench_lock.h).
#include "impl/bench_lock.h"

#include <stdexcept>

namespace safetune {

void BenchLock::lock() { reacquire(1); }

void BenchLock::unlock() {
  std::lock_guard guard(mutex_);
  if (depth_ == 0 || holder_ != std::this_thread::get_id()) {
    throw std::logic_error("BenchLock::unlock: the calling thread does not hold the lock");
  }
  if (--depth_ == 0) {
    holder_ = std::thread::id();
    released_.notify_all();
  }
}

int BenchLock::release_all() {
  std::lock_guard guard(mutex_);
  if (depth_ == 0 || holder_ != std::this_thread::get_id()) return 0;
  int depth = depth_;
  depth_ = 0;
  holder_ = std::thread::id();
  released_.notify_all();
  return depth;
}

void BenchLock::reacquire(int depth) {
  if (depth <= 0) return;
  const auto me = std::this_thread::get_id();
  std::unique_lock guard(mutex_);
  released_.wait(guard, [&] { return depth_ == 0 || holder_ == me; });
  holder_ = me;
  depth_ += depth;
}

bool BenchLock::held_by_this_thread() const {
  std::lock_guard guard(mutex_);
  return depth_ > 0 && holder_ == std::this_thread::get_id();
}

BenchLockHold::BenchLockHold(BenchLock* lock) : lock_(lock) {
  if (lock_ != nullptr) lock_->lock();
}

BenchLockHold::~BenchLockHold() {
  if (lock_ != nullptr) lock_->unlock();
}

void BenchLockYield::release() {
  if (lock_ != nullptr) released_depth_ += lock_->release_all();
}

BenchLockYield::~BenchLockYield() {
  if (lock_ != nullptr) lock_->reacquire(released_depth_);
}

}  // namespace safetune
