// The Relacy suites for the broken subjects: a subject's own code (stress/subjects/, e.g.
// NotifyOne<Sync> over BasicMiniTuner<Sync>) bound to RelacySync, driven by 2 or 3 Relacy threads
// through a small version of the scenario its bug class lives in (docs/subjects.md).
//
// The machinery is the reference suites' (autotuner_suites.h): each thread's calls and the
// subject's events go into a FiberTrace; after every execution the model judges the trace and a
// violation fails the execution (RL_ASSERT); Relacy fails an execution on a data race on any Var,
// a deadlock or a livelock.
//
// A suite is a scenario over a subject template `Tuner`. Tuner<RelacySync> is built from a
// SubjectEnvironment as `safetune stress` builds Tuner<StdSync>, except for the bench lock: the
// environment's is the real-thread one, so a subject built on BasicMiniTuner gets a Relacy
// BasicBenchLock through its constructor. A white-box subject reports its own events; a
// black-box one (check-then-act) gets the harness's RecordingKernel, as in `safetune stress`,
// and its trace is judged as a black-box trace.
//
// The kernel has two configs, BLOCK=64 (2 ns) and BLOCK=128 (1 ns), so the winner is BLOCK=128.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "impl/bench_lock.h"
#include "impl/config.h"
#include "stress/harness/recording_kernel.h"
#include "stress/subjects/subject.h"
#include "tests/formal/call_results.h"
#include "tests/formal/fake_kernel.h"
#include "tests/formal/fiber_trace.h"

#include "tests/formal/relacy_execution.h"  // last: it includes Relacy (see there)

namespace safetune::formal::subject {

inline const char* const kKernel = "kern";

// How the subject reports what it does: its own white-box events, or none (black-box).
enum class Box { White, Black };

// How a scenario configures the environment.
struct Setup {
  bool bench_lock = false;     // a per-device bench lock (for subjects that take one)
  int failing_benchmarks = 0;  // the first this many benchmarks fail
};

template <class Derived, rl::thread_id_t Threads, template <class> class Tuner, Box box>
struct SubjectSuite : rl::test_suite<Derived, Threads> {
  explicit SubjectSuite(const Setup& setup)
      : plain_allocator(),
        kernel(kKernel, {{"BLOCK=64", 2.0}, {"BLOCK=128", 1.0}}),
        trace(header(), &relacy_thread),
        recording(kernel, trace),
        space(ConfigSpace::parse("BLOCK=64;BLOCK=128")),
        environment(make_environment()),
        subject(make_subject(environment, setup.bench_lock ? &bench_lock : nullptr)) {
    kernel.failing_benchmarks = setup.failing_benchmarks;
  }

  // One call of the subject on `key` from the calling Relacy thread, recorded.
  // Returns the launched config, or nothing when the call raised.
  std::optional<std::string> call(std::string_view key) {
    const int thread = static_cast<int>(rl::thread_index());
    FakeStream stream(thread);
    std::optional<std::string> result = trace.recorded_call(
        kKernel, key, thread, [&] { return subject.call(Invocation{key, stream, nullptr}); });
    results.add(rl::thread_index(), result);
    return result;
  }

  // The model passes the trace, and the calls returned what the scenario promises.
  void after() { assert_execution_passes(trace, static_cast<const Derived*>(this)->outcome_is_right(), results); }

  PlainAllocator plain_allocator;  // first: see PlainAllocator
  FakeKernel kernel;
  FiberTrace trace;
  stress::RecordingKernel recording;  // what a black-box subject benches and launches through
  ConfigSpace space;
  BasicBenchLock<RelacySync> bench_lock;
  stress::SubjectEnvironment environment;
  Tuner<RelacySync> subject;
  CallResults<Threads> results;

 private:
  static model::Header header() {
    model::Header header = white_box_header(kKernel, {"BLOCK=64", "BLOCK=128"}, model::Policy{});
    header.white_box = box == Box::White;
    return header;
  }

  stress::SubjectEnvironment make_environment() {
    return stress::SubjectEnvironment{
        .kernel = box == Box::White ? static_cast<Kernel&>(kernel) : recording,
        .space = space,
        .wait = model::WaitPolicy::Block,
        .reentry = model::ReentryPolicy::Error,
        .fallback = std::nullopt,
        .observer = box == Box::White ? &trace : nullptr,
        .bench_lock = nullptr,  // the real-thread kind: make_subject passes a Relacy one
        .pre_bench_hook = pre_bench_hook()};
  }

  // A scenario with a pre_bench(inv, config) member gets it as the pre-bench hook.
  std::function<void(const Invocation&, const Config&)> pre_bench_hook() {
    if constexpr (requires(Derived& suite, const Invocation& inv, const Config& config) {
                    suite.pre_bench(inv, config);
                  }) {
      return [this](const Invocation& inv, const Config& config) {
        static_cast<Derived*>(this)->pre_bench(inv, config);
      };
    } else {
      return {};
    }
  }

  // A subject built on BasicMiniTuner takes the bench lock; a stand-alone one takes none.
  static Tuner<RelacySync> make_subject(const stress::SubjectEnvironment& env,
                                        BasicBenchLock<RelacySync>* lock) {
    if constexpr (std::is_constructible_v<Tuner<RelacySync>, const stress::SubjectEnvironment&,
                                          BasicBenchLock<RelacySync>*>) {
      return Tuner<RelacySync>(env, lock);
    } else {
      return Tuner<RelacySync>(env);
    }
  }
};

// N threads call one cold key once each (the `plain` scenario).
template <template <class> class Tuner, rl::thread_id_t N, Box box = Box::White>
struct ColdStart : SubjectSuite<ColdStart<Tuner, N, box>, N, Tuner, box> {
  ColdStart() : SubjectSuite<ColdStart, N, Tuner, box>(Setup{}) {}
  void thread(unsigned) { this->call("a"); }
  // Nothing fails: every call launches the winner.
  bool outcome_is_right() const { return this->results.every_call_in({"BLOCK=128"}); }
};

// Every config of the first attempt fails; each thread calls again after an error (the
// `faults` scenario).
template <template <class> class Tuner>
struct FailThenRetry : SubjectSuite<FailThenRetry<Tuner>, 2, Tuner, Box::White> {
  FailThenRetry() : SubjectSuite<FailThenRetry, 2, Tuner, Box::White>(Setup{false, 2}) {}
  void thread(unsigned) {
    if (!this->call("a")) this->call("a");
  }
  // A call raises only on the failed attempt; each thread ends with the retry's winner.
  bool outcome_is_right() const {
    return this->results.every_call_in({std::nullopt, "BLOCK=128"}) && this->results.every_thread_ended_with("BLOCK=128");
  }
};

// The owner's pre-bench hook of the first config re-enters the same key (reentry policy error),
// while another thread calls it too (the `reentry` scenario).
template <template <class> class Tuner>
struct SameKeyReentry : SubjectSuite<SameKeyReentry<Tuner>, 2, Tuner, Box::White> {
  SameKeyReentry() : SubjectSuite<SameKeyReentry, 2, Tuner, Box::White>(Setup{}) {}
  void thread(unsigned) { this->call("a"); }
  void pre_bench(const Invocation& inv, const Config& config) {
    if (config.str() == "BLOCK=64") this->call(inv.key);
  }
  // The one re-entrant call raises (policy error), which fails only that bench: both top-level
  // calls launch the winner.
  bool outcome_is_right() const {
    return this->results.count(std::nullopt) == 1 && this->results.every_call_in({std::nullopt, "BLOCK=128"}) &&
           this->results.every_thread_ended_with("BLOCK=128");
  }
};

// Thread 0 tunes "a", and its first pre-bench hook calls "b" (nested tuning), while thread 1
// tunes "b"; the bench lock is on (the `nested` scenario).
template <template <class> class Tuner>
struct NestedTuning : SubjectSuite<NestedTuning<Tuner>, 2, Tuner, Box::White> {
  NestedTuning() : SubjectSuite<NestedTuning, 2, Tuner, Box::White>(Setup{true, 0}) {}
  void thread(unsigned index) { this->call(index == 0 ? "a" : "b"); }
  // Nothing fails: every call, the nested one included, launches the winner.
  bool outcome_is_right() const { return this->results.every_call_in({"BLOCK=128"}); }
  void pre_bench(const Invocation& inv, const Config&) {
    if (inv.key != "a" || nested_) return;
    nested_ = true;
    this->call("b");
  }

 private:
  bool nested_ = false;  // test scaffolding: set by the one owner of "a"
};

}  // namespace safetune::formal::subject
