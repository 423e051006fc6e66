// The optional per-device benchmark lock (TunerOptions::bench_lock).
//
// Every autotuner of one device shares one BenchLock, so that no two benchmarks on that device
// overlap and disturb each other's timings. The autotuner holds it only around Kernel::benchmark,
// never on the hot path, so it can never block a call on a tuned key.
//
// Nested tuning must not deadlock, so the lock is unlike a mutex in two ways:
//   - It is re-entrant: its holder may take it again (a benchmark whose callback tunes another
//     key benchmarks that key while still inside the first benchmark).
//   - A thread that is about to block on another thread's attempt gives up every hold it has
//     first (BenchLockYield) and takes them back afterwards. Otherwise thread A, holding the lock
//     and waiting for thread B's attempt on K2, would wait forever for B, who waits for the lock.
//
// Invariants: the holder is meaningful exactly while depth > 0; only the holder changes depth
// downwards.
//
// BasicBenchLock<Sync> is written against the sync policy (impl/sync.h), like the autotuner, so
// that the Relacy binding (impl/sync_relacy.h) checks this lock's code too. BenchLock is the
// binding for real threads; it is a class, not an alias, so that it can be forward-declared.
#pragma once

#include <stdexcept>

#include "impl/sync.h"

namespace safetune {

template <class Sync>
class BasicBenchLock {
 public:
  // Blocks until no other thread holds the lock, then adds one hold for the calling thread.
  void lock() { reacquire(1); }
  // Drops one hold. Throws std::logic_error when the calling thread holds none.
  void unlock();
  // Drops every hold of the calling thread and returns how many there were (0: none). Never
  // blocks, so it is safe to call with other locks held.
  int release_all();
  // Takes `depth` holds at once, blocking like lock(); depth 0 does nothing.
  void reacquire(int depth);
  bool held_by_this_thread() const;

 private:
  bool held_by(typename Sync::ThreadId thread) const SAFETUNE_REQUIRES(mutex_) {
    return depth_.get() > 0 && holder_.get() == thread;
  }

  mutable typename Sync::Mutex mutex_;
  typename Sync::CondVar released_;  // notified when the depth drops to 0
  // Meaningful only while depth_ > 0.
  typename Sync::template Var<typename Sync::ThreadId> holder_ SAFETUNE_GUARDED_BY(mutex_){};
  typename Sync::template Var<int> depth_ SAFETUNE_GUARDED_BY(mutex_){0};
};

class BenchLock final : public BasicBenchLock<StdSync> {};

// Holds `lock` (when not null) for one scope.
template <class Sync>
class BasicBenchLockHold {
 public:
  explicit BasicBenchLockHold(BasicBenchLock<Sync>* lock) : lock_(lock) {
    if (lock_ != nullptr) lock_->lock();
  }
  ~BasicBenchLockHold() {
    if (lock_ != nullptr) lock_->unlock();
  }
  BasicBenchLockHold(const BasicBenchLockHold&) = delete;
  BasicBenchLockHold& operator=(const BasicBenchLockHold&) = delete;

 private:
  BasicBenchLock<Sync>* lock_;
};
using BenchLockHold = BasicBenchLockHold<StdSync>;

// Gives up the calling thread's holds on `lock` (when not null) at release(), and takes them
// back when the scope ends. Declare it before any lock that the blocking wait uses, so those are
// released before the bench lock is taken back.
template <class Sync>
class BasicBenchLockYield {
 public:
  explicit BasicBenchLockYield(BasicBenchLock<Sync>* lock) : lock_(lock) {}
  ~BasicBenchLockYield() {
    if (lock_ != nullptr) lock_->reacquire(released_depth_);
  }
  BasicBenchLockYield(const BasicBenchLockYield&) = delete;
  BasicBenchLockYield& operator=(const BasicBenchLockYield&) = delete;
  void release() {  // never blocks
    if (lock_ != nullptr) released_depth_ += lock_->release_all();
  }

 private:
  BasicBenchLock<Sync>* lock_;
  int released_depth_ = 0;
};
using BenchLockYield = BasicBenchLockYield<StdSync>;

// =============================================================================================
// Implementation details follow.
// =============================================================================================

template <class Sync>
void BasicBenchLock<Sync>::unlock() {
  typename Sync::Lock guard(mutex_);
  if (!held_by(Sync::thread_id())) {
    throw std::logic_error("BenchLock::unlock: the calling thread does not hold the lock");
  }
  const int depth = depth_.get() - 1;
  depth_.set(depth);
  if (depth == 0) released_.notify_all();
}

template <class Sync>
int BasicBenchLock<Sync>::release_all() {
  typename Sync::Lock guard(mutex_);
  if (!held_by(Sync::thread_id())) return 0;
  const int depth = depth_.get();
  depth_.set(0);
  released_.notify_all();
  return depth;
}

template <class Sync>
void BasicBenchLock<Sync>::reacquire(int depth) {
  if (depth <= 0) return;
  const auto me = Sync::thread_id();
  typename Sync::Lock guard(mutex_);
  // A loop, not one wait: wake-ups may be spurious, and another waiter may win the lock first.
  while (depth_.get() != 0 && !held_by(me)) released_.wait(guard);
  holder_.set(me);
  depth_.set(depth_.get() + depth);
}

template <class Sync>
bool BasicBenchLock<Sync>::held_by_this_thread() const {
  typename Sync::Lock guard(mutex_);
  return held_by(Sync::thread_id());
}

// The real-thread binding is compiled once, in bench_lock.cpp.
extern template class BasicBenchLock<StdSync>;

}  // namespace safetune
