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
    explicit Lock(Mutex& mutex) SAFETUNE_ACQUIRE(mutex) : lock_(noisy(mutex.mutex_)) {}
    ~Lock() SAFETUNE_RELEASE() = default;
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    // Releases the mutex early; the destructor then does nothing unless lock() took it back.
    void unlock() SAFETUNE_RELEASE() { lock_.unlock(); }
    void lock() SAFETUNE_ACQUIRE() {
      noisy(*lock_.mutex());
      lock_.lock();
    }

   private:
    friend class CondVar;
    std::unique_lock<std::mutex> lock_;
  };

  class CondVar {
   public:
    // Releases the lock while blocked and holds it again on return. May return with no notify,
    // as the standard allows; with schedule_noise() on it does so on purpose (see below).
    void wait(Lock& lock) {
      if (noise_.load(std::memory_order_relaxed) && one_in(4)) {
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

  // Schedule noise for stress runs (the full mix), so that bugs in the windows around a wait or a
  // lock show: about one wait in four returns after at most kSpuriousWakeAfter, notified or not
  // (a waiter that trusts its wake-up instead of re-checking its condition is caught), and about
  // one lock in eight first spins up to kLockDelay (a check made before the lock and not made
  // again under it goes stale). Off by default; it costs a wait or a lock one relaxed load (it
  // orders nothing: a flag that each thread only reads). The tuned path takes no lock.
  static void schedule_noise(bool on) { noise_.store(on, std::memory_order_relaxed); }

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
  static constexpr std::chrono::microseconds kLockDelay{200};
  // A draw from a per-thread generator (no shared state, no synchronization).
  static std::minstd_rand& draws() {
    thread_local std::minstd_rand generator(static_cast<unsigned>(std::hash<std::thread::id>{}(thread_id())));
    return generator;
  }
  static bool one_in(unsigned n) { return draws()() % n == 0; }
  // With schedule noise on, one lock in eight waits a little first.
  static std::mutex& noisy(std::mutex& mutex) {
    if (noise_.load(std::memory_order_relaxed) && one_in(8)) {
      const auto deadline = std::chrono::steady_clock::now() + kLockDelay * (draws()() % 1000) / 1000;
      while (std::chrono::steady_clock::now() < deadline) {
      }
    }
    return mutex;
  }
  static inline std::atomic<bool> noise_{false};
};

}  // namespace safetune
