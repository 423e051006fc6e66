// rapidcheck draws of stress programs (stress/harness/program.h), shared by the properties that
// run them: one process (subject_programs_test.cpp) or several (process_programs_test.cpp).
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <ostream>
#include <tuple>
#include <vector>

#include "stress/harness/program.h"

namespace safetune::stress {

// How rapidcheck prints a drawn step in a counterexample.
inline void showValue(const ProgramStep& step, std::ostream& out) {
  if (step.invalidate) {
    out << "invalidate(" << key_name(step.key) << ')';
    return;
  }
  out << "call(" << key_name(step.key) << ')';
  switch (step.hook) {
    case HookAction::None: break;
    case HookAction::Reenter: out << " hook: re-enter"; break;
    case HookAction::Nested: out << " hook: nested call(" << key_name(step.nested_key) << ')'; break;
    case HookAction::Throw: out << " hook: throw"; break;
    case HookAction::FailAll: out << " hook: fail every config"; break;
  }
}

}  // namespace safetune::stress

namespace safetune::property {

// A step over keys 0 .. keys-1: mostly calls, some invalidations (unless left out), and hooks that
// re-enter, nest a call of another key, throw, or fail the whole attempt.
inline rc::Gen<stress::ProgramStep> steps(int keys, bool invalidations = true) {
  using stress::HookAction;
  return rc::gen::map(
      rc::gen::tuple(invalidations ? rc::gen::weightedElement<bool>({{5, false}, {1, true}}) : rc::gen::just(false),
                     rc::gen::inRange(0, keys),
                     rc::gen::inRange(1, std::max(keys, 2)),
                     rc::gen::weightedElement<HookAction>({{6, HookAction::None},
                                                           {1, HookAction::Reenter},
                                                           {1, HookAction::Nested},
                                                           {1, HookAction::Throw},
                                                           {1, HookAction::FailAll}})),
      [keys](const std::tuple<bool, int, int, HookAction>& drawn) {
        auto [invalidate, key, offset, hook] = drawn;
        stress::ProgramStep step{.invalidate = invalidate, .key = key};
        if (invalidate) return step;
        // A nested call goes to any other key (cycles included); one key has no other.
        if (hook == HookAction::Nested && keys < 2) hook = HookAction::None;
        step.hook = hook;
        if (hook == HookAction::Nested) step.nested_key = (key + offset) % keys;
        return step;
      });
}

// `threads` threads of 1 to 4 steps each; inside a property, every draw shrinks on its own.
inline std::vector<stress::ThreadProgram> draw_threads(int threads, int keys, bool invalidations = true) {
  std::vector<stress::ThreadProgram> drawn;
  for (int t = 0; t < threads; ++t)
    drawn.push_back({*rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<std::vector<stress::ProgramStep>>(steps(keys, invalidations))))});
  return drawn;
}

}  // namespace safetune::property
