// What every Relacy suite of tests/formal/ needs inside one execution, whatever it checks (the
// reference autotuner, autotuner_suites.h; the broken subjects, subject_suites.h).
//
// This header includes Relacy (through impl/sync_relacy.h): include it LAST in its translation
// unit, and in one translation unit per executable (see impl/sync_relacy.h).
#pragma once

#include <string>

#include "impl/sync_relacy.h"  // last: Relacy's headers define macros (see there)

namespace safetune::formal {

// The model's complaint about the last failing execution, for the test to print.
inline std::string& last_violation() {
  static std::string text;
  return text;
}

// The end of every execution: the model's verdict on the trace; a violation is kept for the
// test to print and fails the execution. `Trace` is a FiberTrace (fiber_trace.h).
template <class Trace>
void assert_trace_passes(const Trace& trace) {
  const std::string violations = trace.violations();
  if (!violations.empty()) last_violation() = violations;
  RL_ASSERT(violations.empty());
}

// The end of a passing suite's execution: the model's verdict first (a broken subject is caught
// by it, and says so), then what the calls returned against what the scenario promises
// (`outcome_right`, with `results` shown when it is not).
template <class Trace, class Results>
void assert_execution_passes(const Trace& trace, bool outcome_right, const Results& results) {
  assert_trace_passes(trace);
  if (!outcome_right && trace.violations().empty())
    last_violation() = "the model passed the trace, but the calls returned what the scenario rules out: " + results.show();
  RL_ASSERT(outcome_right);
}

// The calling Relacy thread's index: how a FiberTrace (fiber_trace.h) names threads.
inline unsigned relacy_thread() { return rl::thread_index(); }

// Turns Relacy's allocator off for one execution, for as long as it lives.
//
// relacy.hpp replaces the global operator new and delete. Inside an execution every allocation
// is then leak-checked, and every delete becomes a branch of the search (free now or defer).
// The code under test, the model and the trace allocate ordinary std:: strings, maps and
// shared_ptrs: that would multiply the executions by 2^(number of frees), and the model's
// allocations in after() would count as the test's. Relacy has a switch for its own
// allocations, the protected counter disable_alloc_ (while it is non-zero, new and delete go to
// malloc and free); this raises it. It must be the suite's first member, so that every
// allocation of the suite, from its constructor to its destructor, goes to malloc and free.
class PlainAllocator {
 public:
  PlainAllocator() { ++counter(rl::ctx()); }
  ~PlainAllocator() { --counter(rl::ctx()); }
  PlainAllocator(const PlainAllocator&) = delete;
  PlainAllocator& operator=(const PlainAllocator&) = delete;

 private:
  // A derived class may name a protected member; the pointer to it then reaches any context.
  struct Access : rl::context {
    static int& of(rl::context& context) { return context.*(&Access::disable_alloc_); }
  };
  static int& counter(rl::context& context) { return Access::of(context); }
};

}  // namespace safetune::formal
