// The sync policy seam: every primitive the autotuner uses for shared state, in one place.
//
// BasicAutotuner<Sync> (impl/autotuner.h) never names std::mutex, std::atomic or a plain shared
// field directly. It uses only the members of a policy, so the same code can be bound to Relacy
// (rl::mutex, rl::condition_variable, rl::atomic<T>, rl::var<T>) for exhaustive checking, as Loom
// does for Rust. A policy provides:
//
//   Mutex            lock() / unlock(); not re-entrant.
//   Lock             RAII holder of a Mutex (scoped), for the annotations below. Relockable, as
//                    std::unique_lock: unlock() and lock() again before the scope ends (the
//                    autotuner never does; the broken subjects' steps in stress/subjects/ do).
//   CondVar          wait(Lock&) (spurious wake-ups allowed, so every wait is in a loop that
//                    re-checks its condition), notify_all(); notify_one() exists only for the
//                    broken subject that wakes too few waiters.
//   Atomic<T>        load(order) / store(value, order), as std::atomic.
//   Var<T>           a plain shared variable: every access is get() or set(value), or mut() for
//                    an in-place update, so a checker policy can see each one (rl::var's `v($)`).
//   ThreadId         thread_id(): an equality-comparable name of the calling thread.
//
// Invariant kept by the autotuner: a Var is only touched with its guarding Mutex held, and an
// Atomic is the only state read without a lock.
//
// The SAFETUNE_* macros are clang's thread-safety annotations (-Wthread-safety, on in the tsan
// preset); on other compilers they expand to nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <random>
#include <mutex>
#include <thread>
#include <utility>

#if defined(__clang__)
#define SAFETUNE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SAFETUNE_THREAD_ANNOTATION(x)
#endif
#define SAFETUNE_CAPABILITY(name) SAFETUNE_THREAD_ANNOTATION(capability(name))
#define SAFETUNE_SCOPED_CAPABILITY SAFETUNE_THREAD_ANNOTATION(scoped_lockable)
#define SAFETUNE_GUARDED_BY(mu) SAFETUNE_THREAD_ANNOTATION(guarded_by(mu))
#define SAFETUNE_REQUIRES(...) SAFETUNE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define SAFETUNE_EXCLUDES(...) SAFETUNE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define SAFETUNE_ACQUIRE(...) SAFETUNE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define SAFETUNE_RELEASE(...) SAFETUNE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// For a function that releases a Lock its caller handed it: clang 14's analysis cannot follow a
// scoped lock into another function (the broken subjects' steps; the autotuner has none).
#define SAFETUNE_NO_THREAD_SAFETY_ANALYSIS SAFETUNE_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace safetune {

// The policy for real threads: thin shells over the standard library.
struct StdSync {
  class Lock;
  class CondVar;

  class SAFETUNE_CAPABILITY("mutex") Mutex {
   public:
    void lock() SAFETUNE_ACQUIRE() { mutex_.lock(); }
    void unlock() SAFETUNE_RELEASE() { mutex_.unlock(); }

   private:
    friend class Lock;
    std::mutex mutex_;
  };

  class SAFETUNE_SCOPED_CAPABILITY Lock {
   public:
    explicit Lock(Mutex& mutex) SAFETUNE_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
    ~Lock() SAFETUNE_RELEASE() = default;
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    // Releases the mutex early; the destructor then does nothing unless lock() took it back.
    void unlock() SAFETUNE_RELEASE() { lock_.unlock(); }
    void lock() SAFETUNE_ACQUIRE() { lock_.lock(); }

   private:
    friend class CondVar;
    std::unique_lock<std::mutex> lock_;
  };

  class CondVar {
   public:
    // Releases the lock while blocked and holds it again on return. May return with no notify,
    // as the standard allows; with spurious_wakeups() on it does so on purpose (see below).
    void wait(Lock& lock) {
      if (spurious_wakeups_.load(std::memory_order_relaxed) && spurious_draw()) {
        cv_.wait_for(lock.lock_, kSpuriousWakeAfter);
        return;
      }
      cv_.wait(lock.lock_);
    }
    void notify_all() { cv_.notify_all(); }
    void notify_one() { cv_.notify_one(); }

   private:
    std::condition_variable cv_;
  };

  // Stress runs turn this on (the full mix), so that a waiter that trusts its wake-up instead of
  // re-checking its condition is caught: about one wait in four then returns after at most
  // kSpuriousWakeAfter, notified or not. Off by default; it costs a wait one relaxed load (it
  // orders nothing: a flag read by the waiting thread alone).
  static void spurious_wakeups(bool on) { spurious_wakeups_.store(on, std::memory_order_relaxed); }

  template <class T>
  using Atomic = std::atomic<T>;

  template <class T>
  class Var {
   public:
    Var() = default;
    explicit Var(T value) : value_(std::move(value)) {}
    const T& get() const { return value_; }
    void set(T value) { value_ = std::move(value); }
    T& mut() { return value_; }

   private:
    T value_{};
  };

  using ThreadId = std::thread::id;
  static ThreadId thread_id() { return std::this_thread::get_id(); }

 private:
  static constexpr std::chrono::microseconds kSpuriousWakeAfter{20};
  // One wait in four, from a per-thread generator (no shared state, no synchronization).
  static bool spurious_draw() {
    thread_local std::minstd_rand draws(static_cast<unsigned>(std::hash<std::thread::id>{}(thread_id())));
    return draws() % 4 == 0;
  }
  static inline std::atomic<bool> spurious_wakeups_{false};
};

}  // namespace safetune
