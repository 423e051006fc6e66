// The Relacy test suites: the real BasicAutotuner<Sync> (Sync = RelacySync, or a deliberately
// broken variant of it) driven by 2 or 3 Relacy threads through one scenario each.
//
// Every execution: each thread's calls are recorded with the autotuner's own white-box events
// into a FiberTrace; when all threads have finished, the model (model::check) judges the trace and
// any violation fails the execution (RL_ASSERT). Relacy itself fails an execution on a data race
// on any Var, a deadlock, a livelock, or a leaked or misused primitive.
//
// The kernel has two configs, BLOCK=64 (2 ns) and BLOCK=128 (1 ns), so the winner is BLOCK=128;
// the fallback is BLOCK=32. Threads use key "a" unless a scenario says otherwise.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "impl/autotuner.h"
#include "impl/bench_lock.h"
#include "tests/formal/call_results.h"
#include "tests/formal/fake_kernel.h"
#include "tests/formal/fiber_trace.h"

#include "tests/formal/relacy_execution.h"  // last: it includes Relacy (see there)

namespace safetune::formal {

inline const char* const kKernel = "kern";
inline const char* const kFallback = "BLOCK=32";

// How a scenario configures the autotuner.
struct Setup {
  WaitPolicy wait = WaitPolicy::Block;
  ReentryPolicy reentry = ReentryPolicy::Error;
  bool bench_lock = false;
  int failing_benchmarks = 0;
  bool wait_graph = true;  // false: no wait graph, so a cycle of waits deadlocks
};

template <class Derived, rl::thread_id_t Threads, class Sync>
struct AutotunerSuite : rl::test_suite<Derived, Threads> {
  explicit AutotunerSuite(const Setup& setup)
      : plain_allocator(),
        kernel(kKernel, {{"BLOCK=64", 2.0}, {"BLOCK=128", 1.0}}),
        trace(header(setup), &relacy_thread),
        tuner(kernel, ConfigSpace::parse("BLOCK=64;BLOCK=128"), options(setup)) {
    kernel.failing_benchmarks = setup.failing_benchmarks;
  }

  // One call of the autotuned kernel on `key` from the calling Relacy thread, recorded.
  // Returns the launched config, or nothing when the call raised.
  std::optional<std::string> call(std::string_view key) {
    return recorded(key, [&](Stream& stream) -> const Config& { return tuner.call(Invocation{key, stream, nullptr}); });
  }

  // The same call through the key's handle (impl/autotuner_key_handle.h), made inside the call,
  // where call() makes its lookup.
  std::optional<std::string> call_through_handle(std::string_view key) {
    return recorded(key, [&](Stream& stream) -> const Config& { return tuner.handle(key).call(stream); });
  }

  // `make_call(stream)` on the calling thread's stream, recorded as that thread's call of `key`.
  template <class MakeCall>
  std::optional<std::string> recorded(std::string_view key, const MakeCall& make_call) {
    const int thread = static_cast<int>(rl::thread_index());
    FakeStream stream(thread);
    std::optional<std::string> result =
        trace.recorded_call(kKernel, key, thread, [&]() -> const Config& { return make_call(stream); });
    results.add(rl::thread_index(), result);
    return result;
  }

  // The model passes the trace, and the calls returned what the scenario promises.
  void after() { assert_execution_passes(trace, static_cast<const Derived*>(this)->outcome_is_right(), results); }

  PlainAllocator plain_allocator;  // first: see PlainAllocator
  FakeKernel kernel;
  BasicBenchLock<Sync> bench_lock;
  BasicWaitGraph<Sync> wait_graph;  // Relacy's policy has no process graph: each execution its own
  FiberTrace trace;
  BasicAutotuner<Sync> tuner;
  CallResults<Threads> results;

 private:
  static model::Header header(const Setup& setup) {
    model::Policy policy;
    policy.wait = setup.wait;
    policy.reentry = setup.reentry;
    policy.fallback = kFallback;
    return white_box_header(kKernel, {"BLOCK=64", "BLOCK=128"}, policy);
  }

  BasicTunerOptions<Sync> options(const Setup& setup) {
    BasicTunerOptions<Sync> options;
    options.wait = setup.wait;
    options.reentry = setup.reentry;
    options.fallback = Config::parse(kFallback);
    if (setup.bench_lock) options.bench_lock = &bench_lock;
    if (setup.wait_graph) options.wait_graph = &wait_graph;
    options.observer = &trace;
    // A scenario with a pre_bench(inv, config) member gets it as the pre-bench hook.
    if constexpr (requires(Derived& suite, const Invocation& inv, const Config& config) {
                    suite.pre_bench(inv, config);
                  }) {
      options.pre_bench_hook = [this](const Invocation& inv, const Config& config) {
        static_cast<Derived*>(this)->pre_bench(inv, config);
      };
    }
    return options;
  }
};

// N threads call one cold key once each, under wait policy `Wait`.
template <rl::thread_id_t N, WaitPolicy Wait, class Sync = RelacySync>
struct ColdStart : AutotunerSuite<ColdStart<N, Wait, Sync>, N, Sync> {
  ColdStart() : AutotunerSuite<ColdStart, N, Sync>(setup()) {}
  static Setup setup() {
    Setup setup;
    setup.wait = Wait;
    return setup;
  }
  void thread(unsigned) { this->call("a"); }
  // Every call launches the winner; under policy fallback a call may launch the fallback instead.
  bool outcome_is_right() const {
    if (Wait == WaitPolicy::Fallback) return this->results.every_call_in({"BLOCK=128", kFallback});
    return this->results.every_call_in({"BLOCK=128"});
  }
};

// Thread 0 tunes "a"; its first benchmark, holding the bench lock, calls "b" (nested tuning),
// while thread 1 tunes "b" and needs the bench lock for it.
template <class Sync = RelacySync>
struct NestedTuning : AutotunerSuite<NestedTuning<Sync>, 2, Sync> {
  NestedTuning() : AutotunerSuite<NestedTuning, 2, Sync>(setup()) {
    this->kernel.on_benchmark = [this](const Invocation& inv, const Config&) {
      if (inv.key != "a" || nested_) return;
      nested_ = true;
      this->call("b");
    };
  }
  static Setup setup() {
    Setup setup;
    setup.bench_lock = true;
    return setup;
  }
  void thread(unsigned index) { this->call(index == 0 ? "a" : "b"); }
  // Nothing fails: every call, the nested one included, launches the winner.
  bool outcome_is_right() const { return this->results.every_call_in({"BLOCK=128"}); }

 private:
  bool nested_ = false;  // test scaffolding: set by the one owner of "a"
};

// Every config of the first attempt fails; each thread retries once after an error.
template <class Sync = RelacySync>
struct FailThenRetry : AutotunerSuite<FailThenRetry<Sync>, 2, Sync> {
  FailThenRetry() : AutotunerSuite<FailThenRetry, 2, Sync>(setup()) {}
  static Setup setup() {
    Setup setup;
    setup.failing_benchmarks = 2;
    return setup;
  }
  void thread(unsigned) {
    if (!this->call("a")) this->call("a");
  }
  // A call raises only on the failed attempt; each thread ends with the retry's winner.
  bool outcome_is_right() const {
    return this->results.every_call_in({std::nullopt, "BLOCK=128"}) && this->results.every_thread_ended_with("BLOCK=128");
  }
};

// The owner's pre-bench hook of the first config re-enters the same key, while another thread
// calls it too.
template <ReentryPolicy Reentry, class Sync = RelacySync>
struct SameKeyReentry : AutotunerSuite<SameKeyReentry<Reentry, Sync>, 2, Sync> {
  SameKeyReentry() : AutotunerSuite<SameKeyReentry, 2, Sync>(setup()) {}
  static Setup setup() {
    Setup setup;
    setup.reentry = Reentry;
    return setup;
  }
  void thread(unsigned) { this->call("a"); }
  void pre_bench(const Invocation& inv, const Config& config) {
    if (config.str() == "BLOCK=64") this->call(inv.key);
  }
  // The one re-entrant call gets the policy's answer (an error, or the fallback); its failed
  // hook fails only that bench, so both top-level calls launch the winner.
  bool outcome_is_right() const {
    const CallResult answer = Reentry == ReentryPolicy::Error ? CallResult() : CallResult(kFallback);
    return this->results.count(answer) == 1 && this->results.every_call_in({answer, "BLOCK=128"}) &&
           this->results.every_thread_ended_with("BLOCK=128");
  }
};

// Thread 0 calls twice; thread 1 invalidates the key and then calls it.
template <class Sync = RelacySync>
struct InvalidateRace : AutotunerSuite<InvalidateRace<Sync>, 2, Sync> {
  InvalidateRace() : AutotunerSuite<InvalidateRace, 2, Sync>(Setup{}) {}
  void thread(unsigned index) {
    if (index == 0) {
      this->call("a");
      this->call("a");
    } else {
      this->tuner.invalidate("a");
      this->call("a");
    }
  }
  // Nothing fails: every call launches the winner, however the invalidate falls.
  bool outcome_is_right() const { return this->results.every_call_in({"BLOCK=128"}); }
};

// N threads call one cold key twice each: the even ones through a key's handle, made inside each
// call (handle(key) is the lookup that call() makes first), the odd ones with call(). A handle's
// calls are call()'s past the lookup: one owner, and every call launches the winner.
template <rl::thread_id_t N, class Sync = RelacySync>
struct HandleColdStart : AutotunerSuite<HandleColdStart<N, Sync>, N, Sync> {
  HandleColdStart() : AutotunerSuite<HandleColdStart, N, Sync>(Setup{}) {}
  void thread(unsigned index) {
    for (int i = 0; i < 2; ++i) {
      if (index % 2 == 0) this->call_through_handle("a");
      else this->call("a");
    }
  }
  bool outcome_is_right() const { return this->results.every_call_in({"BLOCK=128"}); }
};

// N threads in a cycle of nested tunings: thread i tunes key i ("a", "b", "c") and its first
// pre-bench hook calls key i+1 (mod N). In the interleavings where every owner is in its attempt
// before the nested calls, waiting would close a cycle: the last of them gets the re-entry
// policy's answer (R11). Without the wait graph (DetectCycles false) those interleavings
// deadlock, and Relacy must say so.
template <rl::thread_id_t N, ReentryPolicy Reentry, bool DetectCycles = true, class Sync = RelacySync>
struct WaitCycle : AutotunerSuite<WaitCycle<N, Reentry, DetectCycles, Sync>, N, Sync> {
  WaitCycle() : AutotunerSuite<WaitCycle, N, Sync>(setup()) {}
  static Setup setup() {
    Setup setup;
    setup.reentry = Reentry;
    setup.wait_graph = DetectCycles;
    return setup;
  }
  void thread(unsigned index) { this->call(key_of(index)); }
  // A nested call that would close the cycle gets the policy's answer (an error, or the fallback);
  // any other launches the winner. Every top-level call launches the winner.
  bool outcome_is_right() const {
    const CallResult answer = Reentry == ReentryPolicy::Error ? CallResult() : CallResult(kFallback);
    return this->results.every_call_in({answer, "BLOCK=128"}) && this->results.every_thread_ended_with("BLOCK=128");
  }
  void pre_bench(const Invocation&, const Config&) {
    const unsigned index = rl::thread_index();
    if (nested_[index]) return;
    nested_[index] = true;
    this->call(key_of((index + 1) % N));
  }

 private:
  static std::string key_of(unsigned index) { return std::string(1, static_cast<char>('a' + index)); }
  bool nested_[N] = {};  // test scaffolding: each thread touches only its own
};

// A deliberately broken policy: CondVar::notify_all wakes one waiter only (a lost wake-up).
struct NotifyOneSync : RelacySync {
  class CondVar : public RelacySync::CondVar {
   public:
    void notify_all(RelacyWhere where = {}) { cv_.notify_one(where.info()); }
  };
};

// A deliberately broken policy: every thread gets the same id, so the autotuner takes another
// thread's call for a re-entry of the owner (an owner check keyed on something shared).
struct OneThreadIdSync : RelacySync {
  static ThreadId thread_id() { return 0; }
};

}  // namespace safetune::formal
