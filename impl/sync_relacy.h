// The Relacy binding of the sync policy (impl/sync.h): BasicAutotuner<RelacySync> is the real
// autotuner, unchanged, run under Relacy's exhaustive scheduler (tests/formal/).
//
// Contract:
//   - Every primitive maps to Relacy's own: Mutex -> rl::mutex (Lock holds one, relockable),
//     CondVar -> Relacy's condition variable with spurious wake-ups allowed (what
//     rl::condition_variable is, but its wait reports why it returned), Atomic<T> ->
//     rl::atomic<T> with the same memory orders, ThreadId -> rl::thread_index(). Each operation
//     is a scheduling point of Relacy's search.
//   - Relacy simulates spurious wake-ups only under its random scheduler (rl::sched_random; its
//     condvar turns them on only when ctx().is_random_sched()), at most 10 per condition
//     variable per execution. CondVar::spurious_wakeups() counts those that happened, so that a
//     suite can show its search really had some.
//   - Var<T> for an arithmetic or enum T is an rl::var of that value: Relacy checks every access
//     for data races and records the value in its history.
//   - Var<T> for any other T (strings, shared_ptr, vectors) keeps the value beside an rl::var
//     shadow: get() is a load and set()/mut() a store of the shadow, so Relacy sees a race on the
//     value exactly when it would see one on an rl::var. get() returns a copy, so that the read
//     happens at the checked access and not later through a reference.
//   - Each access is reported to Relacy at its caller's line (a default argument), so a history
//     names the line in autotuner.h, not this file.
//   - Usable only inside an rl::simulate execution: the objects register with Relacy's context.
//     All of Relacy's threads are fibers of one OS thread, so std:: primitives inside the checked
//     code (shared_ptr's counter) are never contended, and are not checked either.
//
// relacy.hpp defines macros for new, delete, malloc, free, memory_order_*, assert, errno and the
// pthread and semaphore API, meant for code that is rewritten to Relacy wholesale. So:
//   - Include this header LAST in its translation unit, after every standard, gtest and safetune
//     header: those must see the real names.
//   - It undefines the macros that would change code below it (new, delete, the allocation
//     functions, memory_order_*: BasicAutotuner's templates name std::memory_order_acquire and are
//     instantiated below it). The others stay; nothing below names them.
//   - Relacy's headers define functions out of line: include them in one translation unit only.
#pragma once

#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

#include "impl/sync.h"

// /usr/include is a system directory, so the compiler treats Relacy's headers as system headers
// and does not warn about them under -Wall -Wextra.
#include <relacy/relacy.hpp>

#undef new
#undef delete
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef memory_order_relaxed
#undef memory_order_consume
#undef memory_order_acquire
#undef memory_order_release
#undef memory_order_acq_rel
#undef memory_order_seq_cst

#include "impl/sync.h"

namespace safetune {

// Where an operation is written: the caller's function, file and line, for Relacy's history.
struct RelacyWhere {
  const char* function = __builtin_FUNCTION();
  const char* file = __builtin_FILE();
  unsigned line = __builtin_LINE();
  rl::debug_info info() const { return rl::debug_info(function, file, line); }
};

// The std::memory_order of the policy contract, as Relacy spells it.
constexpr rl::memory_order relacy_order(std::memory_order order) {
  switch (order) {
    case std::memory_order_relaxed: return rl::mo_relaxed;
    case std::memory_order_consume: return rl::mo_consume;
    case std::memory_order_acquire: return rl::mo_acquire;
    case std::memory_order_release: return rl::mo_release;
    case std::memory_order_acq_rel: return rl::mo_acq_rel;
    case std::memory_order_seq_cst: return rl::mo_seq_cst;
  }
  return rl::mo_seq_cst;
}

struct RelacySync {
  class Lock;
  class CondVar;

  class SAFETUNE_CAPABILITY("mutex") Mutex {
   public:
    void lock(RelacyWhere where = {}) SAFETUNE_ACQUIRE() { mutex_.lock(where.info()); }
    void unlock(RelacyWhere where = {}) SAFETUNE_RELEASE() { mutex_.unlock(where.info()); }

   private:
    friend class CondVar;
    rl::mutex mutex_;
  };

  class SAFETUNE_SCOPED_CAPABILITY Lock {
   public:
    explicit Lock(Mutex& mutex, RelacyWhere where = {}) SAFETUNE_ACQUIRE(mutex) : mutex_(mutex) {
      mutex_.lock(where);
    }
    ~Lock() SAFETUNE_RELEASE() {
      if (held_) mutex_.unlock();
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    // Releases the mutex early; the destructor then does nothing unless lock() took it back.
    void unlock(RelacyWhere where = {}) SAFETUNE_RELEASE() {
      mutex_.unlock(where);
      held_ = false;
    }
    void lock(RelacyWhere where = {}) SAFETUNE_ACQUIRE() {
      mutex_.lock(where);
      held_ = true;
    }

   private:
    friend class CondVar;
    Mutex& mutex_;
    bool held_ = true;  // this fiber's own bookkeeping, not shared state
  };

  class CondVar {
   public:
    // Releases the lock while blocked and holds it again on return; may wake spuriously.
    void wait(Lock& lock, RelacyWhere where = {}) {
      if (cv_.wait(lock.mutex_.mutex_, false, where.info()) == rl::sema_wakeup_reason_spurious) ++spurious_;
    }
    void notify_all(RelacyWhere where = {}) { cv_.notify_all(where.info()); }
    void notify_one(RelacyWhere where = {}) { cv_.notify_one(where.info()); }

    // Spurious wake-ups of every CondVar since the process began (Relacy's fibers share one OS
    // thread, so a plain counter is exact).
    static unsigned long long spurious_wakeups() { return spurious_; }

   protected:
    // rl::condition_variable, less the wrapper that drops wait's reason.
    struct Primitive : rl::condvar<struct CondVarTag> {
      Primitive() { init(true, $); }  // true: spurious wake-ups allowed
      ~Primitive() { deinit($); }
      Primitive(const Primitive&) = delete;
      Primitive& operator=(const Primitive&) = delete;
    };
    Primitive cv_;

   private:
    static inline unsigned long long spurious_ = 0;
  };

  template <class T>
  class Atomic {
   public:
    Atomic() : Atomic(T{}) {}  // value-initialized, as std::atomic<T>() is since C++20
    Atomic(T value) : atomic_(stored(value)) {}  // NOLINT: mirrors std::atomic's constructor
    Atomic(const Atomic&) = delete;
    Atomic& operator=(const Atomic&) = delete;

    T load(std::memory_order order = std::memory_order_seq_cst, RelacyWhere where = {}) const {
      return atomic_.load(relacy_order(order), where.info());
    }
    void store(T value, std::memory_order order = std::memory_order_seq_cst,
               RelacyWhere where = {}) {
      atomic_.store(stored(value), relacy_order(order), where.info());
    }

   private:
    // rl::atomic<const U*> does not compile (Relacy's history converts through void*), so a
    // pointer to const is held as a pointer to non-const. It is only ever read back as T, so
    // nothing is written through it.
    using Stored = std::conditional_t<
        std::is_pointer_v<T>, std::add_pointer_t<std::remove_const_t<std::remove_pointer_t<T>>>,
        T>;
    static Stored stored(T value) {
      if constexpr (std::is_pointer_v<T>) {
        return const_cast<Stored>(value);
      } else {
        return value;
      }
    }

    rl::atomic<Stored> atomic_;
  };

  // A scalar kept in an rl::var itself (an enum as its underlying integer, promoted so that
  // Relacy's history prints a number even when the underlying type is a char type).
  template <class T>
  class ScalarVar {
   public:
    ScalarVar() : ScalarVar(T{}) {}
    explicit ScalarVar(T value) : var_(static_cast<Stored>(value)) {}

    T get(RelacyWhere where = {}) const { return static_cast<T>(Stored(var_(where.info()))); }
    void set(T value, RelacyWhere where = {}) { var_(where.info()) = static_cast<Stored>(value); }

   private:
    using Stored = decltype(+std::declval<typename std::conditional_t<
                                std::is_enum_v<T>, std::underlying_type<T>,
                                std::type_identity<T>>::type>());
    rl::var<Stored> var_;
  };

  // Any other value, beside an rl::var shadow that stands for every access to it.
  template <class T>
  class ShadowedVar {
   public:
    ShadowedVar() : ShadowedVar(T{}) {}
    explicit ShadowedVar(T value) : value_(std::move(value)), shadow_(0) {}

    T get(RelacyWhere where = {}) const {
      (void)unsigned(shadow_(where.info()));
      return value_;
    }
    void set(T value, RelacyWhere where = {}) {
      touch(where);
      value_ = std::move(value);
    }
    T& mut(RelacyWhere where = {}) {
      touch(where);
      return value_;
    }

   private:
    void touch(const RelacyWhere& where) { shadow_(where.info()) = ++writes_; }

    T value_;
    unsigned writes_ = 0;  // only for the shadow's recorded value
    rl::var<unsigned> shadow_;
  };

  template <class T>
  using Var = std::conditional_t<std::is_arithmetic_v<T> || std::is_enum_v<T>, ScalarVar<T>,
                                 ShadowedVar<T>>;

  using ThreadId = unsigned;
  static ThreadId thread_id() { return rl::thread_index(); }
};

}  // namespace safetune
