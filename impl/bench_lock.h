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
// Invariants: depth > 0 exactly when a holder is set; only the holder changes depth downwards.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

namespace safetune {

class BenchLock {
 public:
  // Blocks until no other thread holds the lock, then adds one hold for the calling thread.
  void lock();
  // Drops one hold. Throws std::logic_error when the calling thread holds none.
  void unlock();
  // Drops every hold of the calling thread and returns how many there were (0: none). Never
  // blocks, so it is safe to call with other locks held.
  int release_all();
  // Takes `depth` holds at once, blocking like lock(); depth 0 does nothing.
  void reacquire(int depth);
  bool held_by_this_thread() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable released_;
  std::thread::id holder_;  // guarded by mutex_; default id: free
  int depth_ = 0;           // guarded by mutex_
};

// Holds `lock` (when not null) for one scope.
class BenchLockHold {
 public:
  explicit BenchLockHold(BenchLock* lock);
  ~BenchLockHold();
  BenchLockHold(const BenchLockHold&) = delete;
  BenchLockHold& operator=(const BenchLockHold&) = delete;

 private:
  BenchLock* lock_;
};

// Gives up the calling thread's holds on `lock` (when not null) at release(), and takes them
// back when the scope ends. Declare it before any lock that the blocking wait uses, so those are
// released before the bench lock is taken back.
class BenchLockYield {
 public:
  explicit BenchLockYield(BenchLock* lock) : lock_(lock) {}
  ~BenchLockYield();
  BenchLockYield(const BenchLockYield&) = delete;
  BenchLockYield& operator=(const BenchLockYield&) = delete;
  void release();  // never blocks

 private:
  BenchLock* lock_;
  int released_depth_ = 0;
};

}  // namespace safetune
